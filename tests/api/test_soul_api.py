from __future__ import annotations

from tests.api.test_chat import CHAT_MODEL, ai, app, person, send  # noqa: F401 - fixtures
from tests.fakes.fake_llm import Reply
from tests.fakes.fixtures import fake_llm  # noqa: F401 - a fixture


def test_soul_shows_base_self_and_the_assembled_persona(person, ai) -> None:
    soul = person.get(f"/api/soul/{ai['id']}").json()
    assert soul["base_soul"] == "温柔体贴的朋友" and soul["self_soul"] == ""
    assert soul["persona"] == "温柔体贴的朋友\n【自我认知】"


def test_reflection_updates_the_self_soul_with_the_spec_prompt(person, ai, fake_llm) -> None:
    send(person, ai, "你最近好像变得很爱开玩笑")
    fake_llm.script(CHAT_MODEL, Reply.json({"changed": True, "self_soul": "最近变得爱开玩笑，喜欢逗对方笑"}))
    result = person.post(f"/api/soul/{ai['id']}/update").json()
    assert result["changed"] is True and result["self_soul"] == "最近变得爱开玩笑，喜欢逗对方笑"
    prompt = fake_llm.requests_for(CHAT_MODEL)[-1].messages
    text = "\n".join(m["content"] for m in prompt)
    for heading in ("【基础性格设定】", "【最近的对话记录】", "【当前的自我认知】", "【更新要求】"):
        assert heading in text
    assert person.get(f"/api/soul/{ai['id']}").json()["self_soul"] == "最近变得爱开玩笑，喜欢逗对方笑"
    assert person.get(f"/api/ai-users/{ai['id']}").json()["base_soul"] == "温柔体贴的朋友"


def test_reflection_without_a_change_keeps_the_self_soul(person, ai, fake_llm) -> None:
    fake_llm.script(CHAT_MODEL, Reply.json({"changed": False, "self_soul": ""}))
    result = person.post(f"/api/soul/{ai['id']}/update").json()
    assert result == {"changed": False, "self_soul": "", "degraded": False, "refused": None}


def test_reflection_may_not_restate_the_base_soul(person, ai, fake_llm) -> None:
    fake_llm.script(CHAT_MODEL, Reply.json({"changed": True, "self_soul": "温柔体贴的朋友"}))
    result = person.post(f"/api/soul/{ai['id']}/update").json()
    assert result["changed"] is False and result["refused"]


def test_judging_the_relationship_changes_the_level_and_records_it(person, ai, fake_llm) -> None:
    send(person, ai, "和你聊天真开心，你是我最好的朋友")
    fake_llm.script(CHAT_MODEL, Reply.json({"level": "关系较好", "reason": "对方表达了亲近"}))
    result = person.post(f"/api/relationship/{ai['id']}/judge").json()
    assert result["changed"] is True and result["relationship"]["level"] == "关系较好"
    core = person.get(f"/api/memory/{ai['id']}/files").json()["core"]
    assert [c["source"] for c in core] == ["relationship"]
    fake_llm.script(CHAT_MODEL, Reply.json({"level": "关系较好", "reason": "没有变化"}))
    again = person.post(f"/api/relationship/{ai['id']}/judge").json()
    assert again["changed"] is False
    assert len(person.get(f"/api/memory/{ai['id']}/files").json()["core"]) == 1
