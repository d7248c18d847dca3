from __future__ import annotations

from tests.api.test_chat import CHAT_MODEL, send
from tests.fakes.fake_llm import Reply


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


CALM = {"basic_emotion": "愉悦", "scene": "闲聊", "atmosphere": "轻松"}
HEATED = {"basic_emotion": "严肃", "scene": "讨论", "atmosphere": "热烈"}


def finish_a_topic(app, person, ai, fake_llm, tags: dict, judgment: dict | None = None) -> None:
    """One topic, ended by a farewell and compressed; `judgment` answers a relationship judgment."""
    send(person, ai, "今天聊得很开心，拜拜")
    fake_llm.script("qwen-plus", Reply.json({"summary": "聊了聊今天", "emotion_tags": tags}))
    if judgment is not None:
        fake_llm.script(CHAT_MODEL, Reply.json(judgment))
    app.state.runtime.bus.drain()


def judgments(fake_llm) -> int:
    return sum("关系等级" in r.messages[0]["content"] for r in fake_llm.requests_for(CHAT_MODEL))


def level_of(person, ai) -> str:
    return person.get(f"/api/memory/{ai['id']}/files").json()["relationship"]["level"]


def test_the_relationship_is_judged_every_third_compressed_topic(app, person, ai, fake_llm) -> None:
    finish_a_topic(app, person, ai, fake_llm, CALM)
    finish_a_topic(app, person, ai, fake_llm, CALM)
    assert judgments(fake_llm) == 0 and level_of(person, ai) == "一般"
    finish_a_topic(app, person, ai, fake_llm, CALM, {"level": "关系较好", "reason": "聊得越来越投机"})
    assert judgments(fake_llm) == 1 and level_of(person, ai) == "关系较好"
    core = person.get(f"/api/memory/{ai['id']}/files").json()["core"]
    assert [c["source"] for c in core] == ["relationship"] and "聊得越来越投机" in core[0]["content"]


def test_a_heated_topic_is_judged_at_once_and_moves_one_level(app, person, ai, fake_llm) -> None:
    finish_a_topic(app, person, ai, fake_llm, HEATED, {"level": "决裂", "reason": "吵了一架", "major_event": False})
    assert judgments(fake_llm) == 1 and level_of(person, ai) == "关系冷淡"


def test_a_major_event_may_move_it_further(app, person, ai, fake_llm) -> None:
    finish_a_topic(
        app, person, ai, fake_llm, HEATED, {"level": "决裂", "reason": "对方背叛了信任", "major_event": True}
    )
    assert level_of(person, ai) == "决裂"


def test_a_repeated_topic_ended_event_does_not_judge_twice(app, person, ai, fake_llm) -> None:
    finish_a_topic(app, person, ai, fake_llm, HEATED, {"level": "决裂", "reason": "吵了一架"})
    topic_id = person.get(f"/api/memory/{ai['id']}/files").json()["mid_term"][0]["topic_id"]
    services = app.state.services
    pair = services.ai_users.pair(person.id, ai["id"])
    fake_llm.script(CHAT_MODEL, Reply.json({"level": "决裂", "reason": "又吵了一架"}))
    services.compression.compress(pair, topic_id)  # the same TopicEnded, delivered again
    assert judgments(fake_llm) == 1 and level_of(person, ai) == "关系冷淡"
