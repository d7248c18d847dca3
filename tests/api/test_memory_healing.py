"""POST /api/memory/{id}/extract redoes the pair's degraded results at once and says what it did."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from dreamchat.api.app import create_app
from dreamchat.config import Settings
from tests.api.conftest import Person, register
from tests.api.test_chat import CHAT_MODEL
from tests.conftest import memory_runtime
from tests.fakes.fake_llm import Reply

TAGS = {"basic_emotion": "开心", "scene": "闲聊", "atmosphere": "轻松"}


@pytest.fixture
def person(tmp_path, clock, rng, fake_llm) -> Iterator[Person]:
    """The app on the fake model, one attempt per background step (a failure degrades at once)."""
    settings = Settings(
        data_dir=tmp_path / "data",
        run_scheduler=False,
        llm_base_url=fake_llm.base_url,
        llm_api_key="test-key",
        llm_timeout_seconds=2,
        llm_max_retries=0,
        background_attempts=1,
    )
    with TestClient(create_app(settings, memory_runtime(settings, clock, rng))) as client:
        yield register(client, "alice")


def degraded_topic(person: Person, ai_id: str, fake_llm) -> dict:
    fake_llm.script("qwen-plus", Reply.error(500))
    person.post(f"/api/ai-users/{ai_id}/save-message", json={"content": "我最近在学做川菜，昨天做了回锅肉"})
    [mid] = person.post(f"/api/memory/{ai_id}/compress").json()["mid_term"]
    assert mid["degraded"] is True
    return mid


def test_extract_now_redoes_a_degraded_summary_then_extracts_it(person, fake_llm) -> None:
    ai_id = person.create_ai_user()["id"]
    mid = degraded_topic(person, ai_id, fake_llm)
    fake_llm.script("qwen-plus", Reply.json({"summary": "在学川菜，做了回锅肉", "emotion_tags": TAGS}))
    memory = {
        "title": "学做川菜",
        "key_points": ["做了回锅肉"],
        "detail_content": "在学川菜",
        "source_mid_ids": [mid["id"]],
    }
    fake_llm.script("doubao-pro-32k", Reply.json({"memories": [memory]}))
    fake_llm.script(CHAT_MODEL, Reply.json({"create": False, "content": "", "importance": 3, "category": "其他"}))
    result = person.post(f"/api/memory/{ai_id}/extract").json()
    assert result["healed"] == [{"kind": "compress", "id": mid["id"], "outcome": "healed"}]
    assert result["still_owed"] == 0 and result["degraded"] is False
    assert [e["title"] for e in result["long_term"]] == ["学做川菜"]  # extracted from the redone summary
    [stored] = person.get(f"/api/memory/{ai_id}/files").json()["mid_term"]
    assert (stored["id"], stored["summary"], stored["degraded"]) == (mid["id"], "在学川菜，做了回锅肉", False)
    assert stored["extracted_to_long"] is True
    assert person.post(f"/api/memory/{ai_id}/extract").json()["healed"] == []  # nothing is owed any more


def test_extract_now_while_the_model_still_fails_says_the_work_is_still_owed(person, fake_llm) -> None:
    ai_id = person.create_ai_user()["id"]
    mid = degraded_topic(person, ai_id, fake_llm)
    fake_llm.script("qwen-plus", Reply.error(503))
    result = person.post(f"/api/memory/{ai_id}/extract").json()
    assert result["healed"] == [{"kind": "compress", "id": mid["id"], "outcome": "degraded"}]
    assert result["still_owed"] == 1 and result["long_term"] == []  # an owed summary is not extracted
    [stored] = person.get(f"/api/memory/{ai_id}/files").json()["mid_term"]
    assert stored["degraded"] is True and stored["extracted_to_long"] is False


def test_a_redone_summary_longer_than_its_share_of_the_topic_is_cut_and_marked(person, fake_llm) -> None:
    """The redo keeps the rule of a compression (issue 35 §3): the 16-character topic's summary keeps 12."""
    ai_id = person.create_ai_user()["id"]
    mid = degraded_topic(person, ai_id, fake_llm)
    fake_llm.script("qwen-plus", Reply.json({"summary": "在学川菜。" * 1000, "emotion_tags": TAGS}))
    fake_llm.script("doubao-pro-32k", Reply.error(500))  # the extraction waits: only the redo is looked at
    result = person.post(f"/api/memory/{ai_id}/extract").json()
    assert result["healed"] == [{"kind": "compress", "id": mid["id"], "outcome": "healed"}]
    [stored] = person.get(f"/api/memory/{ai_id}/files").json()["mid_term"]
    assert (stored["summary"], stored["summary_cut"], stored["degraded"]) == ("在学川菜。在学川菜。", True, False)
    assert stored["compression_ratio"] >= 1 - 12 / 16


def test_a_person_s_edit_of_a_degraded_summary_cancels_its_redo(person, fake_llm) -> None:
    ai_id = person.create_ai_user()["id"]
    mid = degraded_topic(person, ai_id, fake_llm)
    edited = person.put(f"/api/memory/{ai_id}/mid_term", json={"id": mid["id"], "summary": "我自己写：学川菜"})
    assert edited.status_code == 200 and edited.json()["memory"]["degraded"] is False
    memory = {"title": "川菜", "key_points": ["学川菜"], "detail_content": "学川菜", "source_mid_ids": [mid["id"]]}
    fake_llm.script("doubao-pro-32k", Reply.json({"memories": [memory]}))
    fake_llm.script(CHAT_MODEL, Reply.json({"create": False, "content": "", "importance": 3, "category": "其他"}))
    result = person.post(f"/api/memory/{ai_id}/extract").json()
    assert result["healed"] == [{"kind": "compress", "id": mid["id"], "outcome": "cancelled"}]
    assert len(fake_llm.requests_for("qwen-plus")) == 1  # not redone
    [stored] = person.get(f"/api/memory/{ai_id}/files").json()["mid_term"]
    assert stored["summary"] == "我自己写：学川菜" and stored["extracted_to_long"] is True


def test_redos_before_extract_now_keep_to_their_share_of_the_request_s_time(tmp_path, clock, rng, fake_llm) -> None:
    """Three owed summaries and a model taking 1.5 s each, in a 6 s request (5.5 s for the models):
    the redos may use half; the first does, the others are not started (still owed), and the
    extraction keeps its time. Before, every redo ran and the extraction answered offline."""
    settings = Settings(
        data_dir=tmp_path / "data",
        run_scheduler=False,
        llm_base_url=fake_llm.base_url,
        llm_api_key="test-key",
        llm_timeout_seconds=3,
        llm_max_retries=0,
        background_attempts=1,
        chat_turn_seconds=6,
        chat_reserve_seconds=0.5,
    )
    with TestClient(create_app(settings, memory_runtime(settings, clock, rng))) as client:
        person = register(client, "alice")
        ai_id = person.create_ai_user()["id"]
        for n in range(3):
            fake_llm.script("qwen-plus", Reply.error(500))
            person.post(f"/api/ai-users/{ai_id}/save-message", json={"content": f"第{n}件事：我在学川菜"})
            assert person.post(f"/api/memory/{ai_id}/compress").json()["mid_term"][0]["degraded"] is True
        summary = Reply.json({"summary": "对方在学川菜", "emotion_tags": TAGS})
        fake_llm.script("qwen-plus", *[Reply(content=summary.content, delay=1.5) for _ in range(3)])
        memory = {"title": "学川菜", "key_points": ["在学川菜"], "detail_content": "学川菜", "source_mid_ids": []}
        fake_llm.script("doubao-pro-32k", Reply.json({"memories": [memory]}))
        fake_llm.script(CHAT_MODEL, Reply.json({"create": False, "content": "", "importance": 3, "category": "其他"}))
        result = person.post(f"/api/memory/{ai_id}/extract").json()
        mids = person.get(f"/api/memory/{ai_id}/files").json()["mid_term"]
    assert [h["outcome"] for h in result["healed"]] == ["healed"]
    assert sum(m["degraded"] for m in mids) == 2  # not started: still owed, and counted so
    assert result["still_owed"] >= 2 and result["degraded"] is False
    assert len(fake_llm.requests_for("doubao-pro-32k")) == 1  # the extraction asked the model, in time
