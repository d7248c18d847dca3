"""chat → TopicEnded → compress → extract → heartbeat, through the real handlers on moto."""

from __future__ import annotations

import json
import time

from functions.chat import handler as chat
from functions.compress import handler as compress
from functions.extract import handler as extract
from functions.heartbeat import handler as heartbeat
from tests.api.sse import parse_sse
from tests.fakes.fake_llm import Reply
from tests.handlers.events import LambdaContext, http_api_event, scheduled_event, sqs_batch

SUMMARY = {
    "summary": "约好周末去海边",
    "emotion_tags": {"basic_emotion": "开心", "scene": "闲聊", "atmosphere": "轻松"},
}


def call(method: str, path: str, body=None, token: str | None = None) -> dict:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    return chat.handler(http_api_event(method, path, body, headers), LambdaContext())


def signed_up() -> tuple[str, str]:
    registered = call("POST", "/api/auth/register", {"username": "alice", "password": "correct-horse"})
    assert registered["statusCode"] == 201, registered["body"]
    token = json.loads(registered["body"])["access_token"]
    created = call("POST", "/api/ai-users", {"name": "小梦", "base_soul": "温柔"}, token)
    return token, json.loads(created["body"])["id"]


def test_the_whole_path_runs_on_the_aws_adapters(cloud, fake_llm, capsys) -> None:
    token, ai_id = signed_up()
    fake_llm.script("deepseek-chat", Reply.text("周末见！\n拜拜~"))
    turn = call("POST", f"/api/ai-users/{ai_id}/chat", {"content": "那周末去海边，拜拜"}, token)
    events = parse_sse(turn["body"])
    assert [name for name, _ in events] == ["notice", "message", "message", "done"]  # the AI disclosure first
    assert events[-1][1]["topic_ended"] is True

    [published] = cloud.receive(cloud.topic_ended_queue)
    event = json.loads(published)
    assert event["detail-type"] == "TopicEnded" and event["source"] == "dreamchat"
    fake_llm.script("qwen-plus", Reply.json(SUMMARY))
    first = compress.handler(event, LambdaContext())
    again = compress.handler(event, LambdaContext())  # EventBridge may deliver twice
    assert first == again and first["mid_term_id"].startswith("mid_")
    emitted = capsys.readouterr().out  # CloudWatch embedded-metric JSON on stdout
    assert '"Compressions"' in emitted and '"ModelTokens"' in emitted and '"qwen_short_to_mid"' in emitted
    assert "约好周末去海边" not in emitted and "海边" not in emitted  # no content in logs or metrics

    fake_llm.script(
        "doubao-pro-32k",
        Reply.json(
            {
                "memories": [
                    {
                        "title": "海边之约",
                        "key_points": ["周末去海边"],
                        "detail_content": "约好周末去海边",
                        "source_mid_ids": [first["mid_term_id"]],
                    }
                ]
            }
        ),
    )
    fake_llm.script("deepseek-chat", Reply.json({"create": False, "content": "", "importance": 2, "category": "其他"}))
    assert extract.sweep(scheduled_event(), LambdaContext())["pairs"] == 1
    assert extract.sweep(scheduled_event(), LambdaContext())["pairs"] == 0  # leased: in flight once
    pairs = sqs_batch(cloud.receive(cloud.extract_queue), queue="dreamchat-extract")
    assert extract.worker(pairs, LambdaContext()) == {"batchItemFailures": []}
    assert extract.worker(pairs, LambdaContext()) == {"batchItemFailures": []}  # a redelivered batch
    files = json.loads(call("GET", f"/api/memory/{ai_id}/files", token=token)["body"])
    assert [m["extracted_to_long"] for m in files["mid_term"]] == [True]
    assert [e["title"] for e in files["long_term"]] == ["海边之约"]
    docs = cloud.s3.list_objects_v2(Bucket="dreamchat-test-docs")["Contents"]
    stem = files["long_term"][0]["detail_file"].removesuffix(".json")  # the document under its revision
    assert [d["Key"].rsplit("/", 1)[-1].rsplit(".", 2)[0] for d in docs] == [stem]

    fake_llm.script(
        "deepseek-chat",
        Reply.tools(("update_relationship", {"level": "特别关心", "heartbeat_hours": 0.0003})),
        Reply.text("好呀"),
    )
    call("POST", f"/api/ai-users/{ai_id}/chat", {"content": "我还在"}, token)
    status = json.loads(call("GET", "/api/heartbeat/status", token=token)["body"])
    due = status["ai_users"][0]["next_due"]
    # a few seconds after the person's last word (night time counts one third); on a loaded machine
    # the turn itself can outlast the 1.1 s interval, so "due" may already be a moment past
    assert -5 < due - time.time() < 5
    time.sleep(max(0.0, due - time.time()) + 1)
    swept = heartbeat.sweep(scheduled_event(), LambdaContext())
    assert swept["due"] == 1
    bodies = cloud.receive(cloud.heartbeat_queue)
    fake_llm.script("deepseek-chat", Reply.text("在干嘛呀"))
    batch = sqs_batch(bodies)
    assert heartbeat.worker(batch, LambdaContext()) == {"batchItemFailures": []}
    assert heartbeat.worker(batch, LambdaContext()) == {"batchItemFailures": []}  # a redelivered batch
    history = json.loads(call("GET", f"/api/ai-users/{ai_id}/messages", token=token)["body"])["messages"]
    assert [(m["content"], m["kind"]) for m in history if m["kind"] == "heartbeat"] == [("在干嘛呀", "heartbeat")]


def test_a_bad_work_item_fails_alone(cloud, fake_llm) -> None:
    batch = sqs_batch(["not json", json.dumps({"account_id": "a", "ai_user_id": "b", "due": 1})])
    response = heartbeat.worker(batch, LambdaContext())
    assert response == {"batchItemFailures": [{"itemIdentifier": "msg-0"}]}
