"""Model tokens and cost per active person-month, and how much of each prompt a prefix cache could serve, on LoCoMo.

    .venv/bin/python bench/model_cost.py [--conversations N] [--sessions N] [--data PATH]
        [--ordering both|stable|previous]

Each LoCoMo conversation is replayed through the real chat turn (`ChatService.accept` then
`ChatService.respond`, the services built on a local runtime as the app builds them): speaker A is
the person, one message a minute; a recording stand-in for the model (the `LLMGateway` port)
answers each turn with speaker B's next turn(s) and records every request exactly as the code
built it. A session ends with the person's farewell (a "Bye! 再见" turn is added when the session
does not end with one), so its topic is ended, compressed (and every few topics reflected on and
judged) through the local event bus; before each later session a heartbeat runs (its model answers
HEARTBEAT_OK) and extraction runs as the daily sweep would (summaries older than a day, then core
judgment). The stand-in answers the memory steps from the data set: a session's written summary,
its observation facts as key points (four to a memory), no core memory, the level kept. Embeddings
are a counting stand-in (hashed words); their tokens are priced as text-embedding-v4's.

Tokens are estimated with the project's own estimator (`dreamchat.domain.tokens`: about one per
CJK character, one per four letters of other words, 4 per message), not a provider's tokenizer.
A request is its tools block (the function schemas as JSON) followed by its messages. Its
cacheable part is the longest prefix, at block boundaries, that it shares with an earlier request
of the same pair and model key: the leading blocks byte-identical to that request's (the tools
block counts when byte-identical too). `strict` counts only an earlier request's whole prompt as a
prefix (what DeepSeek's cache units need unless it detects the common prefix itself).

Per person-month: 30 messages a day (900 chat turns) and everything the replay ran per chat turn
(compressions, reflections, judgments, extractions, embeddings) scaled alike; 5 heartbeats a day
(docs/deploy.md). Priced by `bench/prices.py` (one table, each price with its source and date) in
USD: "no cache" bills every prompt token at the full price, "cache" bills the cacheable part at the
cache-hit price where the provider's cache is automatic and the prefix reaches its minimum.

The prompt order is whatever the code builds (`stable`: issue 27's, stable first, the per-turn block
in the current message); `previous` swaps in the order before it (`bench/legacy_prompt.py`: the clock,
the guidance and the memories ranked for the message in the one system message), and `both` (the
default) replays every conversation under each and prints them side by side.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import sys
import tempfile
import zlib
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, TextIO

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a file (`.venv/bin/python bench/...`), not only with -m
    sys.path.insert(0, str(ROOT))

# E402 (the noqa below): these imports need the repo root on sys.path, which the lines above put there
from bench import legacy_prompt  # noqa: E402
from bench.locomo import DEFAULT_DATA, Dialogue, Session, Turn, load  # noqa: E402
from bench.prices import BY_KEY, CNY_PER_USD, Price  # noqa: E402
from dreamchat.adapters.runtime import ManualClock, SeededRandom  # noqa: E402
from dreamchat.config import DEFAULT_FAREWELLS, Settings  # noqa: E402
from dreamchat.domain.models import EmotionTags  # noqa: E402
from dreamchat.domain.tokens import REPLY_OVERHEAD, estimate_messages_tokens, estimate_tokens  # noqa: E402
from dreamchat.domain.topics import says_farewell  # noqa: E402
from dreamchat.events import HeartbeatDue  # noqa: E402
from dreamchat.llm.contracts import (  # noqa: E402
    CompressOutput,
    CoreJudgment,
    ExtractedMemory,
    ExtractOutput,
    QualityScore,
    RelationshipJudgment,
    SelfSoulReflection,
)
from dreamchat.llm.memory_models import FallbackMemoryModels, LLMMemoryModels  # noqa: E402
from dreamchat.llm.port import Completion, TokenUsage  # noqa: E402
from dreamchat.services.container import Services, build_services  # noqa: E402
from dreamchat.wiring import build_runtime  # noqa: E402

ACCOUNT = "acc_bench"
TURN_SECONDS = 60
FAREWELL = "Bye! 再见"
MESSAGES_PER_MONTH = 30 * 30
HEARTBEATS_PER_MONTH = 5 * 30
FIRST_TURNS = 3  # "after the first three turns of a topic"
KEY_POINTS = 4  # a memory's key points, as the extraction prompt asks (2 to 4)
TAGS = EmotionTags(basic_emotion="愉悦", scene="闲聊", atmosphere="平和")
KINDS = {
    CompressOutput: "compress",
    ExtractOutput: "extract",
    CoreJudgment: "judge_core",
    SelfSoulReflection: "reflect",
    RelationshipJudgment: "judge_relationship",
    QualityScore: "quality",
}


@dataclass(frozen=True)
class Call:
    """One request to a model as the code built it, block by block, and the tokens of its answer."""

    key: str
    kind: str  # chat, heartbeat, or the memory step (compress, extract, judge_core, ...)
    blocks: tuple[str, ...]  # the tools block ("" without tools), then each message, as JSON
    tokens: tuple[int, ...]  # estimated tokens of each block
    output: int
    turn_in_topic: int = 0  # a chat turn: the person's n-th message of its topic

    @property
    def prompt(self) -> int:
        return sum(self.tokens) + REPLY_OVERHEAD


def request_blocks(messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None) -> list[str]:
    """The request as a sequence of comparable blocks: the tools, then each message (canonical JSON)."""
    tools_block = json.dumps(list(tools), ensure_ascii=False, sort_keys=True) if tools else ""
    return [tools_block, *(json.dumps(dict(m), ensure_ascii=False, sort_keys=True) for m in messages)]


def block_tokens(messages: Sequence[Mapping[str, Any]], tools_block: str) -> list[int]:
    per_message = [estimate_messages_tokens([m]) - REPLY_OVERHEAD for m in messages]
    return [estimate_tokens(tools_block) if tools_block else 0, *per_message]


def make_call(key: str, kind: str, messages: Sequence[Mapping[str, Any]], tools: Any, output: str, turn: int) -> Call:
    blocks = request_blocks(messages, tools)
    return Call(key, kind, tuple(blocks), tuple(block_tokens(messages, blocks[0])), estimate_tokens(output), turn)


# The stand-ins for the models


class DataSetAnswers:
    """The memory steps' answers, from the data set (what the replayed session says)."""

    def __init__(self, dialogue: Dialogue) -> None:
        self.session: Session = dialogue.sessions[0]
        self._by_summary = {s.summary.strip(): s for s in dialogue.sessions}

    def answer(self, schema: type, messages: Sequence[Mapping[str, Any]]) -> Any:
        prompt = "\n".join(str(m.get("content", "")) for m in messages)
        if schema is CompressOutput:
            return CompressOutput(summary=self.session.summary.strip() or "They chatted.", emotion_tags=TAGS)
        if schema is ExtractOutput:
            return ExtractOutput(memories=[m for mid, summary in _mids(prompt) for m in self._memories(mid, summary)])
        if schema is CoreJudgment:
            return CoreJudgment(create=False)
        if schema is SelfSoulReflection:
            return SelfSoulReflection(changed=False)
        if schema is RelationshipJudgment:
            level = re.search(r"当前关系等级：(\S+)", prompt)
            return RelationshipJudgment(level=level.group(1) if level else "一般", reason="对话平稳")  # type: ignore[arg-type]
        if schema is QualityScore:
            return QualityScore(score=90, reason="要点基本保留")
        raise ValueError(f"no answer for {schema.__name__}")

    def _memories(self, mid: str, summary: str) -> list[ExtractedMemory]:
        # a summary longer than its session's share was stored cut: its session is the one it begins
        session = self._by_summary.get(summary) or next(
            (s for written, s in self._by_summary.items() if written.startswith(summary)), None
        )
        facts = [f.text for f in session.facts] if session else []
        facts = facts or [summary]
        chunks = [facts[i : i + KEY_POINTS] for i in range(0, len(facts), KEY_POINTS)]
        return [
            ExtractedMemory(title=chunk[0][:12], key_points=chunk, detail_content=" ".join(chunk), source_mid_ids=[mid])
            for chunk in chunks
        ]


def _mids(prompt: str) -> list[tuple[str, str]]:
    """(id, summary) of each mid-term memory in an extraction prompt."""
    return re.findall(r"- id: (\S+?)；.*\n  摘要：(.*)", prompt)


class RecordingModel:
    """The `LLMGateway` port: answers a chat turn with what the bench set (`reply`), a heartbeat
    with HEARTBEAT_OK, a memory step from the data set; records every request as it was built."""

    def __init__(self, answers: DataSetAnswers) -> None:
        self.answers = answers
        self.calls: list[Call] = []
        self.reply = ""
        self.kind = "chat"
        self.turn_in_topic = 0

    def configured(self, key: str) -> bool:
        return True

    def complete(self, key: str, messages: Sequence[Mapping[str, Any]], **options: Any) -> Completion:
        text = self.reply if self.kind == "chat" else "HEARTBEAT_OK"
        self.calls.append(make_call(key, self.kind, messages, options.get("tools"), text, self.turn_in_topic))
        return Completion(text, TokenUsage())

    def structured(self, key: str, messages: Sequence[Mapping[str, Any]], schema: type, *, coerce: Any = None) -> Any:
        answer = self.answers.answer(schema, messages)
        self.calls.append(make_call(key, KINDS[schema], messages, None, answer.model_dump_json(), 0))
        return answer


class CountingEmbedder:
    """The embedding role: hashed-word vectors, and the tokens each call would be billed."""

    name = "api:bench-hashed@64"
    kind = "api"
    DIMS = 64

    def __init__(self) -> None:
        self.tokens: Counter[str] = Counter()  # "query" or "document" -> tokens

    def embed(self, texts: Sequence[str], *, query: bool) -> np.ndarray:
        self.tokens["query" if query else "document"] += sum(estimate_tokens(t) for t in texts)
        rows = np.zeros((len(texts), self.DIMS), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[\u4e00-\u9fff]|[a-z0-9]+", text.casefold()) or ["∅"]:
                rows[row, zlib.crc32(word.encode()) % self.DIMS] += 1.0
        return rows


# The replay


@dataclass
class Replayed:
    sample_id: str
    calls: list[Call]
    chat_turns: int
    topics: int
    embedding: Counter[str] = field(default_factory=Counter)


class Replay:
    """One conversation through the services of a fresh local runtime, one pair."""

    def __init__(self, dialogue: Dialogue, folder: Path) -> None:
        settings = Settings(storage="local", data_dir=folder, run_scheduler=False, reply_decision="model")
        self.dialogue = dialogue
        self.clock = ManualClock(dialogue.sessions[0].started)
        self.runtime = build_runtime(settings, clock=self.clock, random=SeededRandom(9))
        self.model = RecordingModel(DataSetAnswers(dialogue))
        self.embedder = CountingEmbedder()
        models = FallbackMemoryModels(LLMMemoryModels(self.model), attempts=1, sleep=lambda _: None)
        self.services: Services = build_services(
            self.runtime,
            gateway=self.model,  # type: ignore[arg-type]
            memory_models=models,
            embedder=self.embedder,
        )
        profile = {"name": dialogue.speaker_b, "base_soul": f"你是{dialogue.speaker_b}，{dialogue.speaker_a}的老朋友。"}
        self.ai_user = self.services.ai_users.create(ACCOUNT, profile)
        self.pair = self.services.ai_users.pair(ACCOUNT, self.ai_user.id)
        self.zone = self.ai_user.timezone
        self.turns_in_topic: Counter[str] = Counter()

    def run(self, sessions: Sequence[Session]) -> Replayed:
        try:
            for number, session in enumerate(sessions):
                if number:
                    self._between_sessions(session)
                self._session(session)
            self.clock.advance(hours=25)
            self.services.extractor.extract(self.pair, self.zone)  # the last sessions' summaries, a day later
            self.runtime.bus.drain()
        finally:
            self.runtime.close()
        turns = sum(self.turns_in_topic.values())
        return Replayed(
            self.dialogue.sample_id, self.model.calls, turns, len(self.turns_in_topic), self.embedder.tokens
        )

    def _between_sessions(self, session: Session) -> None:
        """What happens while the person is away: the daily extraction, then a heartbeat."""
        self.clock.set(max(self.clock.now() + timedelta(hours=1), session.started - timedelta(hours=2)))
        self.services.extractor.extract(self.pair, self.zone)
        self.model.kind = "heartbeat"
        self.services.heartbeat.run(
            HeartbeatDue(ACCOUNT, self.ai_user.id, int(self.clock.now().timestamp())), force=True
        )
        self.model.kind = "chat"
        self.clock.set(max(self.clock.now() + timedelta(minutes=1), session.started))

    def _session(self, session: Session) -> None:
        self.model.answers.session = session
        turns = list(session.turns)
        said = [t for t in turns if t.role == "user"]
        if not said or not says_farewell(said[-1].text, DEFAULT_FAREWELLS):
            turns.append(Turn(self.dialogue.speaker_a, "user", "", FAREWELL))
        for index, turn in enumerate(turns):
            if turn.role == "assistant":
                if not any(t.role == "user" for t in turns[:index]):  # the companion spoke first
                    self.services.topics.record(self.pair, "assistant", turn.text)
                continue
            self._turn(turn.text, _reply_after(turns, index))

    def _turn(self, content: str, reply: str) -> None:
        self.clock.advance(seconds=TURN_SECONDS)
        person = self.services.chat.accept(self.pair, self.ai_user, content)
        self.turns_in_topic[person.topic_id] += 1
        self.model.reply, self.model.turn_in_topic = reply, self.turns_in_topic[person.topic_id]
        self.services.chat.respond(self.pair, self.ai_user, person)
        self.runtime.bus.drain()  # a topic that ended is compressed now, on this thread


def _reply_after(turns: Sequence[Any], index: int) -> str:
    """Speaker B's turns after the person's, up to the person's next: one message each ("" when none)."""
    replies = []
    for turn in turns[index + 1 :]:
        if turn.role == "user":
            break
        replies.append(turn.text.replace("\n", " "))
    return "\n".join(replies) if replies or turns[index].text != FAREWELL else "Bye!"


# What a prefix cache could serve


@dataclass(frozen=True)
class Served:
    """The cacheable tokens of one call: at block boundaries (`prefix`), as a whole earlier prompt
    (`strict`), and at block boundaries when the tools only count with the first message (`after`: the
    open-weights chat templates of DeepSeek-V3 and Qwen render the tool list inside the system turn, after
    its text; the APIs do not say how they render it)."""

    call: Call
    prefix: int
    strict: int
    after: int


class _Node:
    __slots__ = ("children", "ends")

    def __init__(self) -> None:
        self.children: dict[str, _Node] = {}
        self.ends = False  # an earlier request ended here


def cacheable(calls: Sequence[Call]) -> list[Served]:
    """For each call, in order, the tokens of its longest prefix sent before by the same model key."""
    roots: dict[str, _Node] = defaultdict(_Node)
    served = []
    for call in calls:
        node, depth, strict = roots[call.key], 0, 0
        for block in call.blocks:
            if block not in node.children:
                break
            node, depth = node.children[block], depth + 1
            strict = depth if node.ends else strict
        after = sum(call.tokens[:depth]) if depth > 1 or not call.blocks[0] else 0
        served.append(Served(call, sum(call.tokens[:depth]), sum(call.tokens[:strict]), after))
        node = roots[call.key]
        for block in call.blocks:
            node = node.children.setdefault(block, _Node())
        node.ends = True
    return served


# The figures


@dataclass
class Role:
    """The figures of one model key over the replays."""

    calls: int = 0
    prompt: int = 0
    prefix: int = 0
    strict: int = 0
    after: int = 0
    output: int = 0
    per_month: float = 0.0  # calls a person-month

    def add(self, served: Served, scale: float) -> None:
        self.calls += 1
        self.prompt += served.call.prompt
        self.prefix += served.prefix
        self.strict += served.strict
        self.after += served.after
        self.output += served.call.output
        self.per_month += scale

    def cost(self, price: Price, served: str = "") -> float:
        """USD a person-month on the mean call, with the `served` measure ("prefix", "after"; "": none) at the cache price."""
        if not self.calls:
            return 0.0
        hit = getattr(self, served) / self.calls if served else 0
        one = price.cost(round(self.prompt / self.calls), round(hit), round(self.output / self.calls))
        return one * self.per_month


def share(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "n/a"


def month_scale(replayed: Replayed, call: Call) -> float:
    """How many calls like this one a person-month makes (heartbeats by their own rate)."""
    if call.kind == "heartbeat":
        heartbeats = sum(1 for c in replayed.calls if c.kind == "heartbeat")
        return HEARTBEATS_PER_MONTH / heartbeats
    return MESSAGES_PER_MONTH / replayed.chat_turns


def roles(replays: Sequence[Replayed], kinds: set[str] | None = None) -> dict[str, Role]:
    found: dict[str, Role] = defaultdict(Role)
    for replayed in replays:
        for served in cacheable(replayed.calls):
            if kinds is None or served.call.kind in kinds:
                found[served.call.key].add(served, month_scale(replayed, served.call) / len(replays))
    return dict(sorted(found.items()))


def chat_shares(replays: Sequence[Replayed]) -> list[tuple[str, Counter[str]]]:
    """Prompt and cacheable tokens of the chat turns: all of them, and those after a topic's first three."""
    rows = {"every chat turn": Counter[str](), f"turns after the first {FIRST_TURNS} of a topic": Counter[str]()}
    for replayed in replays:
        for served in cacheable(replayed.calls):
            if served.call.kind != "chat":
                continue
            for name, counts in rows.items():
                if name.startswith("every") or served.call.turn_in_topic > FIRST_TURNS:
                    counts.update(
                        prompt=served.call.prompt,
                        prefix=served.prefix,
                        strict=served.strict,
                        after=served.after,
                        tools=served.call.tokens[0] if served.prefix else 0,
                        turns=1,
                    )
    return list(rows.items())


MEASURES = (
    "",
    "prefix",
    "after",
)  # priced: no cache, the cacheable prefix, the prefix with the tools after the system text


def report(replays: Sequence[Replayed], out: TextIO) -> None:
    def write(line: str = "") -> None:
        print(line, file=out)

    turns, topics = sum(r.chat_turns for r in replays), sum(r.topics for r in replays)
    calls = sum(len(r.calls) for r in replays)
    write(f"replayed: {len(replays)} conversation(s), {turns} chat turns, {topics} topics, {calls} model calls")
    write("tokens: estimated by dreamchat.domain.tokens (not a provider's tokenizer)")
    write()
    write("## Chat prompt tokens a prefix cache could serve")
    write(
        f"{'':<34} {'turns':>6} {'prompt/turn':>11} {'cacheable':>10} {'of it tools':>11} {'tools after':>11} {'strict':>7}"
    )
    for name, c in chat_shares(replays):
        mean = c["prompt"] / c["turns"] if c["turns"] else 0
        parts = [share(c[part], c["prompt"]) for part in ("prefix", "tools", "after", "strict")]
        write(f"{name:<34} {c['turns']:>6} {mean:>11.0f} {parts[0]:>10} {parts[1]:>11} {parts[2]:>11} {parts[3]:>7}")
    write()
    write("## Per model key, per call and per active person-month (900 chat turns, 150 heartbeats), USD")
    write(
        f"{'key':<22} {'calls/mo':>8} {'prompt/call':>11} {'cacheable':>10} {'tools after':>11} {'output/call':>11} "
        f"{'$ no cache':>10} {'$ cache':>8} {'$ tools after':>13}"
    )
    total = Counter[str]()
    for key, role in roles(replays).items():
        costs = [role.cost(BY_KEY[key], measure) for measure in MEASURES]
        total.update(dict(zip(MEASURES, costs, strict=True)))
        mean = f"{role.per_month:>8.0f} {role.prompt / role.calls:>11.0f}"
        shares = f"{share(role.prefix, role.prompt):>10} {share(role.after, role.prompt):>11}"
        write(f"{key:<22} {mean} {shares} {role.output / role.calls:>11.0f} {_costs(costs)}")
    embedding = embedding_month(replays)
    cost = BY_KEY["embedding"].cost(round(embedding), 0, 0)
    total.update(dict.fromkeys(MEASURES, cost))
    blank = " " * 56
    write(f"{'embedding':<22} {blank}{_costs([cost] * 3)}  ({embedding:.0f} tokens a month)")
    write(f"{'total':<22} {blank}{_costs([total[m] for m in MEASURES])}")
    write()
    write("## By step")
    for kind in sorted({c.kind for r in replays for c in r.calls}):
        for key, role in roles(replays, {kind}).items():
            write(
                f"{kind:<20} {key:<22} {role.per_month:>8.1f}/mo  prompt {role.prompt / role.calls:>6.0f}  "
                f"cacheable {share(role.prefix, role.prompt):>6}  output {role.output / role.calls:>5.0f}"
            )
    write()
    write(f"prices: bench/prices.py, USD (CNY at {CNY_PER_USD}/USD); DeepSeek at peak-hour prices (off-peak is half)")
    for key, price in BY_KEY.items():
        mark = "" if price.verified else "  [NOT VERIFIED]"
        write(f"  {key}: {price.model} — {price.source} ({price.checked}){mark}")


def _costs(costs: Sequence[float]) -> str:
    return f"{costs[0]:>10.3f} {costs[1]:>8.3f} {costs[2]:>13.3f}"


def embedding_month(replays: Sequence[Replayed]) -> float:
    """Embedding tokens a person-month (queries and documents, scaled like the chat turns)."""
    return sum(sum(r.embedding.values()) * MESSAGES_PER_MONTH / r.chat_turns for r in replays) / len(replays)


def main(argv: list[str] | None = None, out: TextIO = sys.stdout) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conversations", type=int, default=None, help="the first N conversations (default: all)")
    parser.add_argument("--sessions", type=int, default=None, help="the first N sessions of each (default: all)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument(
        "--ordering",
        choices=["both", *ORDERINGS],
        default="both",
        help="stable: the code's order (issue 27); previous: the order before it; both: side by side",
    )
    args = parser.parse_args(argv)
    dialogues = load(args.data, limit=args.conversations, sessions=args.sessions)
    measured = {}
    for ordering in ORDERINGS if args.ordering == "both" else [args.ordering]:
        measured[ordering] = replay_all(dialogues, ordering)
        print(f"# Prompt order: {ordering} ({ORDERINGS[ordering]})", file=out)
        report(measured[ordering], out)
        print(file=out)
    if len(measured) > 1:
        side_by_side(measured, out)
    return 0


ORDERINGS = {
    "stable": "issue 27: stable first, the per-turn block in the current message",
    "previous": "before issue 27: clock, guidance and message-ranked memories in the system message",
}


def replay_all(dialogues: Sequence[Dialogue], ordering: str) -> list[Replayed]:
    order = legacy_prompt.installed() if ordering == "previous" else contextlib.nullcontext()
    replays = []
    with order:
        for dialogue in dialogues:
            with tempfile.TemporaryDirectory() as folder:
                replays.append(Replay(dialogue, Path(folder)).run(dialogue.sessions))
    return replays


def side_by_side(measured: Mapping[str, Sequence[Replayed]], out: TextIO) -> None:
    """The issue's figures for each order: chat tokens a prefix cache could serve, and the cost."""
    print("# Side by side", file=out)
    print(
        f"{'order':<10} {'prompt/turn':>11} {'cacheable':>10} {'after 3rd':>10} {'$ no cache':>10} {'$ cache':>8}",
        file=out,
    )
    for ordering, replays in measured.items():
        (_, every), (_, later) = chat_shares(replays)
        costs = {measure: 0.0 for measure in ("", "prefix")}
        for key, role in roles(replays).items():
            for measure in costs:
                costs[measure] += role.cost(BY_KEY[key], measure)
        embedding = BY_KEY["embedding"].cost(round(embedding_month(replays)), 0, 0)
        print(
            f"{ordering:<10} {every['prompt'] / max(every['turns'], 1):>11.0f} "
            f"{share(every['prefix'], every['prompt']):>10} {share(later['prefix'], later['prompt']):>10} "
            f"{costs[''] + embedding:>10.3f} {costs['prefix'] + embedding:>8.3f}",
            file=out,
        )


if __name__ == "__main__":
    sys.exit(main())
