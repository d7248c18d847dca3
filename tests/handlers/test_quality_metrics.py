"""The spec's compression quality targets as Powertools metrics a deployment can watch."""

from __future__ import annotations

import json

from functions.compress import handler as compress
from functions.extract import handler as extract
from tests.fakes.fake_llm import Reply
from tests.handlers.events import LambdaContext, scheduled_event, sqs_batch
from tests.handlers.test_serverless_flow import SUMMARY, call, signed_up


def metric_values(emitted: str, name: str) -> list[float]:
    """The values of one metric in CloudWatch embedded-metric JSON lines."""
    values = []
    for line in emitted.splitlines():
        if line.startswith("{") and '"_aws"' in line:
            record = json.loads(line)
            if name in record:
                found = record[name]
                values += found if isinstance(found, list) else [found]
    return values


def test_sampled_compressions_and_extractions_emit_the_four_quality_figures(
    cloud, fake_llm, capsys, monkeypatch
) -> None:
    monkeypatch.setenv("DREAMCHAT_QUALITY_SAMPLE_SHARE", "1")
    import importlib

    for module in (compress, extract):
        importlib.reload(module)
    token, ai_id = signed_up()
    fake_llm.script("deepseek-chat", Reply.text("周末见！\n拜拜~"))
    call("POST", f"/api/ai-users/{ai_id}/chat", {"content": "那周末去海边，拜拜"}, token)
    [published] = cloud.receive(cloud.topic_ended_queue)
    fake_llm.script("qwen-plus", Reply.json(SUMMARY))
    fake_llm.script("deepseek-chat", Reply.json({"score": 85, "reason": "要点都在"}))
    mid_id = compress.handler(json.loads(published), LambdaContext())["mid_term_id"]
    fake_llm.script(
        "doubao-pro-32k",
        Reply.json(
            {
                "memories": [
                    {
                        "title": "海边之约",
                        "key_points": ["周末去海边"],
                        "detail_content": "约好周末去海边",
                        "source_mid_ids": [mid_id],
                    }
                ]
            }
        ),
    )
    fake_llm.script(
        "deepseek-chat",
        Reply.json({"create": False, "content": "", "importance": 2, "category": "其他"}),
        Reply.json({"score": 95, "reason": "准确"}),
    )
    extract.sweep(scheduled_event(), LambdaContext())
    extract.worker(sqs_batch(cloud.receive(cloud.extract_queue), queue="dreamchat-extract"), LambdaContext())
    emitted = capsys.readouterr().out
    assert metric_values(emitted, "InformationCompleteness") == [85.0]
    assert metric_values(emitted, "KeyPointAccuracy") == [95.0]
    assert metric_values(emitted, "ExtractionRate") == [100.0]
    [ratio] = metric_values(emitted, "CompressionRatio")
    assert ratio < 100
    accuracy_prompt = fake_llm.requests_for("deepseek-chat")[-1].messages[-1]["content"]
    assert "约好周末去海边" in accuracy_prompt and "海边之约" in accuracy_prompt
    assert "海边" not in emitted  # no content in logs or metrics
