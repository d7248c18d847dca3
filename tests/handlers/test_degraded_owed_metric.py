"""The extraction sweep counts the degraded results owed as `DegradedOwed`, the metric the alarm watches."""

from __future__ import annotations

import json

from functions.extract import handler as extract
from tests.fakes.fake_llm import Reply
from tests.handlers.events import LambdaContext, scheduled_event
from tests.handlers.test_serverless_flow import call, signed_up


def emitted(out: str, name: str) -> list[dict]:
    return [e for e in (json.loads(line) for line in out.splitlines() if line.startswith("{")) if name in e]


def test_the_sweep_emits_how_many_degraded_results_are_owed(cloud, fake_llm, capsys) -> None:
    token, ai_id = signed_up()
    fake_llm.script("qwen-plus", Reply.error(500))
    call("POST", f"/api/ai-users/{ai_id}/save-message", {"content": "我在学做川菜"}, token)
    compressed = json.loads(call("POST", f"/api/memory/{ai_id}/compress", token=token)["body"])
    assert compressed["mid_term"][0]["degraded"] is True
    capsys.readouterr()
    assert extract.sweep(scheduled_event(), LambdaContext())["owed"] == 1
    [owed] = emitted(capsys.readouterr().out, "DegradedOwed")
    assert owed["DegradedOwed"] == [1.0] and owed["service"] == "dreamchat"  # as the alarm's dimension says
    assert owed["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "DreamChat"
    assert "川菜" not in json.dumps(owed)
