"""Each benchmark script runs on a tiny slice and prints its figures (so CI keeps them working)."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench import (
    cold_start,
    context_tokens,
    export_memory,
    import_memory,
    model_cost,
    quality,
    recall_fusion,
    recall_loo,
    retrieval_latency,
)
from bench.embedding_cache import CachedEmbedder
from bench.locomo import DEFAULT_DATA
from tests.fakes.fake_llm import FakeLLMServer, Reply

needs_data = pytest.mark.skipif(not DEFAULT_DATA.exists(), reason=f"LoCoMo data not at {DEFAULT_DATA}")


def run(main, *argv: str) -> str:
    out = io.StringIO()
    assert main(list(argv), out=out) == 0
    return out.getvalue()


@needs_data
def test_context_tokens_prints_each_policy_after_every_session_and_the_evidence_recall() -> None:
    text = run(context_tokens.main, "--limit", "1", "--sessions", "3")
    assert "## conv-26" in text and "(a) whole" in text and "(c) ours" in text
    assert len(re.findall(r"^\s+[123] 2023-\d\d-\d\d\s+\d+\s+\d+\s+\d+\s+\d+", text, re.MULTILINE)) == 3
    assert "tokens by section: system" in text
    assert "## Evidence recall" in text and "single-hop" in text
    assert "## Targets" in text and "(needs six sessions or more)" in text
    assert "embedding provider: none (retrieval: bm25)" in text and "answer c" in text and "ceiling" in text


@needs_data
def test_context_tokens_replays_the_offline_providers_memories() -> None:
    text = run(context_tokens.main, "--limit", "1", "--sessions", "2", "--memories", "offline")
    assert "memories: offline" in text and "## Evidence recall" in text


@needs_data
def test_recall_loo_chooses_each_conversations_constants_on_the_others() -> None:
    text = run(
        recall_loo.main,
        *("--limit", "2", "--sessions", "3", "--embedding", "none", "--embedding-cache", "off"),
        *(
            "--grid",
            "retrieval.WORDS_SHARE=",
            "--grid",
            "retrieval.PERIOD_SLACK=",
            "--grid",
            "context.QUOTE_SHARE=",
        ),
        *("--grid", "context.UNSURE_SHARE=", "--grid", "retrieval.PARENT_WEIGHT="),
        *("--grid", "context.MID_SUMMARY_TOKENS=70,100"),
    )
    assert "grid (4 combinations)" in text and "## Shipped constants, per conversation" in text
    assert "## Leave one conversation out" in text and text.count("conv-26") >= 2 and "conv-30" in text
    assert "spread    recall: min" in text and "how often each value was chosen" in text


class WordsEmbedder:
    """A tiny offline stand-in for the embedding model: a text's vector counts its characters' buckets."""

    kind = "local"
    name = "local:bench-smoke"

    def embed(self, texts, *, query: bool):
        import numpy as np

        rows = np.ones((len(texts), 16), dtype=np.float32)
        for row, text in zip(rows, texts, strict=True):
            for char in text:
                row[ord(char) % 16] += 1
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_recall_fusion_ranks_the_chinese_set_three_ways_at_equal_count_and_tokens() -> None:
    from dreamchat.services.recall import RecallService

    out = io.StringIO()
    assert recall_fusion.main(["--sets", "zh-dev"], out=out, make_service=lambda: RecallService(WordsEmbedder())) == 0
    text = out.getvalue()
    assert "## zh-dev: 24 turns" in text
    rows = re.findall(r"^\s+(bm25|dense|fusion)(\s.*)$", text, re.MULTILINE)
    assert [name for name, _ in rows] == ["bm25", "dense", "fusion"]
    for _, cells in rows:
        shares = [float(c) for c in re.findall(r"([\d.]+)%", cells)]
        assert len(shares) == 5 and shares[0] <= shares[1] <= shares[2] <= 100.0


def test_every_recall_zh_conversation_reads_as_a_memory_import() -> None:
    for split in recall_fusion.SPLITS:
        pool = recall_fusion.zh_pool(split)
        assert len(pool.entries) == 42 and len(pool.cases) == 24
        assert all(case.relevant <= {e.id for e in pool.entries} for case in pool.cases)


@needs_data
def test_recall_fusion_measures_locomo_facts_as_units() -> None:
    text = run(
        recall_fusion.main, "--sets", "locomo", "--limit", "1", "--embedding", "none", "--embedding-cache", "off"
    )
    assert "## locomo:" in text and re.search(r"^\s+fusion\s+[\d.]+%", text, re.MULTILINE)


def test_the_embedding_cache_asks_the_model_only_for_texts_it_has_not_seen(tmp_path: Path) -> None:
    class Counting:
        name, kind, calls = "fake:model", "api", []

        def embed(self, texts, *, query: bool):
            self.calls.append(list(texts))
            return [[float(len(t)), float(query)] for t in texts]

    inner = Counting()
    cache = CachedEmbedder(inner, tmp_path / "cache.sqlite")
    first = cache.embed(["a", "bb"], query=False)
    again = CachedEmbedder(inner, tmp_path / "cache.sqlite").embed(["bb", "a", "ccc"], query=False)
    assert inner.calls == [["a", "bb"], ["ccc"]]
    assert again.tolist() == [[2.0, 0.0], [1.0, 0.0], [3.0, 0.0]] and first.tolist() == [[1.0, 0.0], [2.0, 0.0]]
    cache.embed(["a"], query=True)  # a query's vector is not a document's
    assert inner.calls[-1] == ["a"]


@needs_data
def test_retrieval_latency_prints_each_size() -> None:
    text = run(retrieval_latency.main, "--sizes", "50", "200", "--turns", "3", "--dims", "16")
    assert re.search(r"^\s+50\s+[\d.]+\s+[\d.]+", text, re.MULTILINE)
    assert re.search(r"^\s+200\s+[\d.]+\s+[\d.]+", text, re.MULTILINE)


@needs_data
def test_quality_scores_offline_by_keyword_overlap_by_default() -> None:
    text = run(quality.main, "--limit", "1", "--sessions", "2", "--workers", "1")
    assert "offline provider" in text and "scoring: keyword overlap" in text
    assert re.search(r"^\s+all\s+2\s+\d+\.\d%", text, re.MULTILINE)
    assert "key-point acc." in text and "extraction" in text


def _fake_models(body: dict) -> Reply:
    """Compress, extract and judge replies, each valid for the request it answers."""
    prompt = "\n".join(m["content"] for m in body["messages"])
    if body["model"] == "qwen-plus":
        return Reply.json(
            {
                "summary": "They talked about a support group.",
                "emotion_tags": {"basic_emotion": "开心", "scene": "闲聊", "atmosphere": "轻松"},
            }
        )
    if body["model"] == "doubao-pro-32k":
        mid = re.search(r"id: (mid_\w+)", prompt).group(1)
        return Reply.json(
            {
                "memories": [
                    {
                        "title": "Support group",
                        "key_points": ["went to a support group"],
                        "detail_content": "x",
                        "source_mid_ids": [mid],
                    }
                ]
            }
        )
    count = int(re.search(r"陈述（共 (\d+) 条）", prompt).group(1))
    return Reply.text(json.dumps({"present": [True] * count}))


@needs_data
def test_quality_uses_the_judge_model_when_one_is_configured(monkeypatch) -> None:
    with FakeLLMServer(default=_fake_models) as server:
        for name, value in {
            "LLM_BASE_URL": server.base_url,
            "LLM_API_KEY": "test-key",
            "LLM_MAX_RETRIES": "0",
            "LLM_TIMEOUT_SECONDS": "5",
        }.items():
            monkeypatch.setenv(f"DREAMCHAT_{name}", value)
        text = run(quality.main, "--limit", "1", "--sessions", "2", "--workers", "2")
    assert "compress: qwen-plus" in text and "scoring: judge model deepseek-chat" in text
    assert re.search(r"^\s+all\s+2\s+[\d.]+%\s+100\.0%\s+100\.0%\s+100\.0%", text, re.MULTILINE)
    assert "fell back to keyword overlap: 0" in text


@needs_data
def test_model_cost_replays_chat_turns_and_prices_every_model_key() -> None:
    text = run(model_cost.main, "--conversations", "1", "--sessions", "2")
    assert re.search(r"^replayed: 1 conversation\(s\), \d+ chat turns, 2 topics", text, re.MULTILINE)
    assert re.search(r"^every chat turn\s+\d+\s+\d+\s+\d+\.\d%", text, re.MULTILINE)
    assert re.search(r"^turns after the first 3 of a topic\s+\d+", text, re.MULTILINE)
    for key in ("deepseek_chat", "qwen_short_to_mid", "doubao_mid_to_long", "deepseek_core_memory", "embedding"):
        assert re.search(rf"^{key}\s+.*\d+\.\d{{3}}\s+\d+\.\d{{3}}\s+\d+\.\d{{3}}", text, re.MULTILINE), key
    assert re.search(r"^total\s+\d+\.\d{3}\s+\d+\.\d{3}\s+\d+\.\d{3}", text, re.MULTILINE)
    assert "dreamchat.domain.tokens" in text and "NOT VERIFIED" in text
    # both prompt orders, side by side (issue 27): the previous one kept in the bench only
    assert "# Prompt order: stable" in text and "# Prompt order: previous" in text and "# Side by side" in text
    assert re.search(r"^previous\s+\d+\s+\d+\.\d%\s+\d+\.\d%\s+\d+\.\d{3}", text, re.MULTILINE)


def test_the_cacheable_prefix_is_counted_at_block_boundaries_against_the_same_key() -> None:
    def call(key: str, *messages: str, tools: str = "") -> model_cost.Call:
        blocks = (tools, *messages)
        return model_cost.Call(key, "chat", blocks, tuple(10 for _ in blocks), 0)

    first = call("deepseek_chat", "system", "hi", tools="T")
    grown = call("deepseek_chat", "system", "hi", "hello", "how are you", tools="T")
    changed = call("deepseek_chat", "system 2", "hi", tools="T")
    other_key = call("qwen_short_to_mid", "system", "hi", tools="T")
    served = model_cost.cacheable([first, grown, changed, other_key])
    assert [(s.prefix, s.strict, s.after) for s in served] == [(0, 0, 0), (30, 30, 30), (10, 0, 0), (0, 0, 0)]


def test_cold_start_times_the_chat_handler_and_reports_missing_ones(monkeypatch) -> None:
    monkeypatch.setattr(cold_start, "ENTRIES", [*cold_start.ENTRIES, ("nosuch", "handler", {})])
    text = run(cold_start.main, "--repeat", "1", "--only", "chat.handler", "--only", "nosuch.handler", "--no-imports")
    assert re.search(r"chat\.handler\s+\d+ \(\d+\)\s+\d+ \(\d+\)\s+\d+ \(\d+\)\s+\d+ \(\d+\)\s+200", text)
    assert re.search(r"nosuch\.handler\s+not present", text)


def test_load_runs_and_loses_nothing(capsys) -> None:
    import importlib.util
    import sys
    from pathlib import Path

    spec = importlib.util.spec_from_file_location("bench_load", Path(__file__).parents[2] / "bench" / "load.py")
    load = importlib.util.module_from_spec(spec)
    sys.modules["bench_load"] = load  # its dataclasses look their module up there
    spec.loader.exec_module(load)
    assert load.main(["--people", "2", "--turns", "2", "--delays", "0.2"]) == 0
    out = capsys.readouterr().out
    assert "lost 0" in out and "/api/health while chatting" in out

    assert load.main(["--people", "2", "--turns", "2", "--concurrency", "2"]) == 0
    assert "lost 0" in capsys.readouterr().out


def test_heartbeat_sweep_reads_only_due_pairs_and_leases_each_once(capsys) -> None:
    from bench import heartbeat_sweep

    assert heartbeat_sweep.main(["--pairs", "3000", "--due", "200", "--worker-runs", "3"]) == 0
    row = next(line.split() for line in capsys.readouterr().out.splitlines() if line.strip().startswith("3000"))
    pairs, due, queries, items, _, leases, _, enqueued, _ = row
    assert (pairs, due, items, leases, enqueued) == ("3000", "200", "200", "200", "200")
    assert int(queries) >= 16


def test_capacity_units_meters_every_step(capsys) -> None:
    from bench import capacity_units

    assert capacity_units.main(["--turns", "2"]) == 0
    out = capsys.readouterr().out
    for step in ("chat turn", "compression", "extraction worker", "heartbeat worker"):
        assert re.search(rf"^{step}.*\s\d+\.\d\s+\d+\.\d\s", out, re.MULTILINE), step


def test_voice_reply_overhead_times_both_ways_and_speaks_every_always_turn(capsys) -> None:
    from bench import voice_reply_overhead

    assert voice_reply_overhead.main(["--turns", "3"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^voice never\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+0\.0\s+0$", out, re.MULTILINE), out
    assert re.search(r"^voice always\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+1\.0\s+3$", out, re.MULTILINE), out
    assert "a voice reply adds" in out


README = Path(__file__).parents[2] / "bench" / "README.md"
COMMANDS = sorted(set(re.findall(r"`(\.venv/bin/python bench/[a-z_]+\.py)[^`]*`", README.read_text())))


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_bench_readme_gives_starts_as_written(command) -> None:
    """From the repository root, exactly as bench/README.md writes it (`--help`: it starts, imports all)."""
    script = command.split()[-1]
    done = subprocess.run([sys.executable, script, "--help"], cwd=README.parents[1], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "usage:" in done.stdout


def test_the_readme_gives_a_command_for_every_script() -> None:
    scripts = {
        p.name
        for p in README.parent.glob("*.py")
        if p.name not in ("__init__.py", "locomo.py", "prices.py", "legacy_prompt.py", "embedding_cache.py")
    }
    assert {c.split("/")[-1] for c in COMMANDS} >= scripts - {"cold_start_artifact.py"}


def test_export_memory_prints_the_streamed_peak_for_each_size() -> None:
    text = run(export_memory.main, "--sizes", "30", "90")
    rows = re.findall(r"^\s+(30|90)\s+[\d.]+MB\s+([\d.]+)MB\s+([\d.]+)MB", text, re.MULTILINE)
    assert [r[0] for r in rows] == ["30", "90"]
    assert "3x the messages: the streamed peak x" in text


def test_import_memory_prints_the_time_per_100_entries_and_the_calls_for_each_size() -> None:
    text = run(import_memory.main, "--sizes", "8", "16", "--latency-ms", "0")
    rows = re.findall(r"^\s+(8|16)\s+[\d.]+s\s+[\d.]+s\s+(\d+)\s+(\d+)\s+(\d+)", text, re.MULTILINE)
    assert [r[0] for r in rows] == ["8", "16"]
    for entries, calls, vectors, owed in rows:  # every memory gets its vectors, ten texts a call
        assert int(vectors) + int(owed) == int(entries) + int(entries) // 4
        assert int(calls) < int(vectors)


def test_reply_rates_prints_each_level_and_a_full_answer_for_each_always_answered_kind() -> None:
    from bench import reply_rates

    text = run(reply_rates.main, "--rounds", "20")
    rows = re.findall(r"^(\S+?)\u3000*\s+(\d+)%\s+[\d.]+%\s+([\d.]+)%((?:\s+[\d.]+%){5})$", text, re.MULTILINE)
    assert [r[0] for r in rows] == ["特别关心", "关系较好", "一般", "关系冷淡", "决裂"]
    for level, spec, measured, shares in rows:
        always = shares.split()[:4]
        if level != "决裂":
            assert always == ["100.0%"] * 4, level
        assert abs(float(measured) - int(spec)) < 8, level
    assert "always answered over the mix" in text and "## How the classifier reads each labelled kind" in text


def test_media_cost_measures_photos_through_the_pipeline_and_prices_the_mix() -> None:
    from bench import media_cost

    text = run(media_cost.main, "--photo-share", "0.1")
    kept = [float(b) for b in re.findall(r"kept \d+×\d+, ([\d.]+) B/px", text)]
    assert kept and all(0.01 < b < 3 for b in kept)  # a JPEG of a photograph, not raw pixels or nothing
    photos = re.search(r"^\| photos \| (\d+) \|", text, re.MULTILINE)
    assert photos and int(photos.group(1)) == 90  # 30 a day × 10 % × 30 days
    assert re.search(r"S3 per active person-month: storage of that month's media \$0\.\d+", text)


def test_media_turn_times_each_kind_with_every_medium_heard_or_seen() -> None:
    from bench import media_turn

    text = run(media_turn.main, "--turns", "2")
    rows = re.findall(r"^(text|voice note|photo)\s+([\d.]+)\s+([\d.]+)", text, re.MULTILINE)
    assert [r[0] for r in rows] == ["text", "voice note", "photo"]
    assert all(float(p50) > 0 for _, p50, _ in rows)
