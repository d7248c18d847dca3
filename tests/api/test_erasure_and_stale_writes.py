"""Issue 25 through the API: erasing one's own pair never depends on the AI user's visibility, and
one tool round cannot run unbounded calls nor move the relationship more than once a turn."""

from __future__ import annotations

from tests.api.conftest import register
from tests.api.test_chat import CHAT_MODEL, send
from tests.api.test_chat_tools import tool_results
from tests.fakes.fake_llm import Reply


def test_a_person_forgets_their_pair_after_the_owner_makes_the_ai_user_private(person, fake_llm) -> None:
    public = person.create_ai_user(name="公开", visibility="public")
    bob = register(person.client, "bob")
    assert bob.post(f"/api/friends/{public['id']}").status_code == 201
    fake_llm.script(CHAT_MODEL, Reply.text("记住了"))
    send(bob, public, "我的秘密")
    assert person.put(f"/api/ai-users/{public['id']}", json={"visibility": "private"}).status_code == 200

    listed = bob.get("/api/friends").json()
    assert listed["friends"] == []
    assert listed["ended"] == [{"ai_user_id": public["id"], "name": "公开", "reason": "no_longer_visible"}]
    assert bob.get(f"/api/memory/{public['id']}/files").status_code == 404  # the friendship ended

    forgot = bob.delete(f"/api/friends/{public['id']}", params={"forget": "true"})
    assert forgot.status_code == 200, forgot.text
    assert forgot.json()["forgot"] is True and forgot.json()["erased"]["items"] > 0
    assert bob.get("/api/friends").json() == {"friends": [], "ended": []}
    assert bob.delete(f"/api/friends/{public['id']}", params={"forget": "true"}).status_code == 404


def test_one_round_of_150_relationship_calls_runs_a_bounded_few_and_moves_the_level_once(person, ai, fake_llm) -> None:
    calls = [("update_relationship", {"level": level}) for level in ["关系冷淡", "决裂"] * 75]
    fake_llm.script(CHAT_MODEL, Reply.tools(*calls), Reply.text("嗯"))
    events = send(person, ai, "你好")
    assert events[-1][0] == "done"

    results = tool_results(fake_llm)
    assert len(results) == 150  # every call is answered (providers refuse one left without)
    unrun = [r for r in results if "一轮最多" in r.get("error", "")]
    assert len(unrun) == 150 - 8
    ran = results[:8]  # alternating: the first moves the level, a second change is refused, the same level stands
    assert [r.get("level") for r in ran] == ["关系冷淡"] * 8
    assert [bool(r.get("ok")) for r in ran] == [True, False] * 4
    files = person.get(f"/api/memory/{ai['id']}/files").json()
    assert files["relationship"]["level"] == "关系冷淡"
    assert [c["source"] for c in files["core"]] == ["relationship"]


def test_the_level_moves_once_a_turn_across_tool_rounds_too(person, ai, fake_llm) -> None:
    fake_llm.script(
        CHAT_MODEL,
        Reply.tools(("update_relationship", {"level": "关系较好"})),
        Reply.tools(("update_relationship", {"level": "特别关心"})),
        Reply.text("嗯"),
    )
    send(person, ai, "你好")
    assert person.get(f"/api/memory/{ai['id']}/files").json()["relationship"]["level"] == "关系较好"
    fake_llm.script(CHAT_MODEL, Reply.tools(("update_relationship", {"level": "特别关心"})), Reply.text("嗯"))
    send(person, ai, "再聊聊")  # the next turn may move it again
    assert person.get(f"/api/memory/{ai['id']}/files").json()["relationship"]["level"] == "特别关心"
