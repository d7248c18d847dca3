"""Facts that changed, through the HTTP API and the real extraction contract: the model is shown the
pair's related key points under short ids, names the one a new key point replaces, the context says
the old fact as past, and the person's edit (`undo_supersede`) makes it current again."""

from __future__ import annotations

import json

from tests.api.test_memory_export import forget_and_befriend, import_into
from tests.fakes.fake_llm import Reply

TAGS = {"basic_emotion": "开心", "scene": "闲聊", "atmosphere": "轻松"}
OLD, NEW = "我住在北京", "我搬到上海了"
NO_CORE = {"create": False, "content": "", "importance": 0, "category": "其他"}


def tell(person, ai, fake_llm, clock, text: str, supersedes: list[dict]) -> dict:
    fake_llm.default = lambda body: Reply.json(NO_CORE)  # the core judge creates nothing
    fake_llm.script("qwen-plus", Reply.json({"summary": text, "emotion_tags": TAGS}))
    person.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": text})
    compressed = person.post(f"/api/memory/{ai['id']}/compress")
    assert compressed.status_code == 200, compressed.text
    mid = compressed.json()["mid_term"][0]
    memory = {"title": "住处", "key_points": [text], "detail_content": text, "source_mid_ids": [mid["id"]]}
    fake_llm.script("doubao-pro-32k", Reply.json({"memories": [{**memory, "supersedes": supersedes}]}))
    clock.advance(hours=30)
    return person.post(f"/api/memory/{ai['id']}/extract").json()


def long_term_text(person, ai) -> str:
    sections = person.get(f"/api/memory/{ai['id']}", params={"q": "我现在住在哪里？"}).json()["sections"]
    return next(s["text"] for s in sections if s["name"] == "long_term")


def test_a_supersession_named_by_the_model_and_undone_by_the_person(person, ai, fake_llm, clock) -> None:
    tell(person, ai, fake_llm, clock, OLD, [{"id": "k1", "key_point": 0}])  # nothing shown yet: dropped
    extracted = tell(person, ai, fake_llm, clock, NEW, [{"id": "k1", "key_point": 0}, {"id": "k9", "key_point": 0}])
    assert (extracted["superseded"], extracted["supersessions_dropped"]) == (1, 1)
    prompt = json.dumps(fake_llm.requests_for("doubao-pro-32k")[-1].messages, ensure_ascii=False)
    assert "k1（" in prompt and OLD in prompt and "supersedes" in prompt

    files = person.get(f"/api/memory/{ai['id']}/files").json()["long_term"]
    old, new = sorted(files, key=lambda e: e["created_at"])
    assert old["key_points"] == [OLD] and [(s["point"], s["superseded_by"]) for s in old["superseded"]] == [
        (0, f"{new['id']}#000")
    ]
    assert f"以前：{OLD}；" in long_term_text(person, ai)

    edited = person.put(f"/api/memory/{ai['id']}/long_term", json={"id": old["id"], "undo_supersede": [0]})
    assert edited.status_code == 200 and edited.json()["memory"]["superseded"] == []
    text = long_term_text(person, ai)
    assert "以前：" not in text and OLD in text and NEW in text


def test_an_undo_names_key_points_by_number(person, ai) -> None:
    for bad in (["0"], [-1], [True], "0"):
        answer = person.put(f"/api/memory/{ai['id']}/long_term", json={"id": "long_x", "undo_supersede": bad})
        assert answer.status_code == 422, bad


def test_an_export_and_import_keep_the_supersession_under_the_new_ids(person, ai, fake_llm, clock) -> None:
    tell(person, ai, fake_llm, clock, OLD, [])
    tell(person, ai, fake_llm, clock, NEW, [{"id": "k1", "key_point": 0}])
    before = long_term_text(person, ai)
    document = person.get(f"/api/memory/{ai['id']}/export").json()
    assert [e["index"]["superseded"] != [] for e in document["long_term"]] == [True, False]

    forget_and_befriend(person, ai["id"])
    assert import_into(person, ai["id"], document).status_code == 200

    old, new = sorted(person.get(f"/api/memory/{ai['id']}/files").json()["long_term"], key=lambda e: e["created_at"])
    assert old["id"] != document["long_term"][0]["index"]["id"]  # re-issued
    assert [s["superseded_by"] for s in old["superseded"]] == [f"{new['id']}#000"]
    assert long_term_text(person, ai) == before and f"以前：{OLD}；" in before


def test_editing_the_new_facts_entry_moves_the_old_entrys_mark_with_the_points_text(
    person, ai, fake_llm, clock
) -> None:
    tell(person, ai, fake_llm, clock, OLD, [])
    tell(person, ai, fake_llm, clock, NEW, [{"id": "k1", "key_point": 0}])
    old, new = sorted(person.get(f"/api/memory/{ai['id']}/files").json()["long_term"], key=lambda e: e["created_at"])

    def put(points: list[str]) -> dict:
        edited = person.put(f"/api/memory/{ai['id']}/long_term", json={"id": new["id"], "key_points": points})
        assert edited.status_code == 200, edited.text
        found = person.get(f"/api/memory/{ai['id']}/files").json()["long_term"]
        return next(e for e in found if e["id"] == old["id"])

    # a point added before it: Shanghai is now #001, and the mark still names Shanghai, not the Bund
    assert [s["superseded_by"] for s in put(["周末去了外滩", NEW])["superseded"]] == [f"{new['id']}#001"]
    text = long_term_text(person, ai)
    assert f"以前：{OLD}；" in text and f"起：{NEW}" in text and "起：周末去了外滩" not in text
    # Shanghai rewritten away: nothing says what replaced Beijing, which is current again
    assert put(["周末去了外滩", "我搬到上海浦东了"])["superseded"] == []
    assert "以前：" not in long_term_text(person, ai)
