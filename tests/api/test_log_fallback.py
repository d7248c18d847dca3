"""Issue 39 part 3 through the API, on every store: what the summary and the extraction dropped is still
found in the log, quoted as the person's words under 【当时的原话】 and by recall_memory (`said_in_log`),
and gone with the pair's log when the friend is forgotten or the account deleted."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from dreamchat.api.app import create_app
from dreamchat.config import Settings
from dreamchat.domain.models import PairId
from tests.api.conftest import Person, register
from tests.api.test_chat import CHAT_MODEL, send
from tests.api.test_chat_tools import tool_results
from tests.fakes.fake_llm import Reply
from tests.services.conftest import runtime  # noqa: F401 (the fixture, on every store)

SAID = "我养了一只叫团子的橘猫"
QUESTION = "我的猫叫什么"
TAGS = {"basic_emotion": "开心", "scene": "闲聊", "atmosphere": "轻松"}
NO_CORE = {"create": False, "content": "", "importance": 0, "category": "其他"}
QUOTES = "【当时的原话】"


@pytest.fixture
def chat_on(runtime, fake_llm) -> Iterator[TestClient]:  # noqa: F811 (the fixture imported above)
    """The app on the runtime's store with the fake server as every model; logins outlast the clock."""
    update = {
        "llm_base_url": fake_llm.base_url,
        "llm_api_key": "test-key",
        "llm_timeout_seconds": 2,
        "llm_max_retries": 0,
        "max_delay_seconds": 30,
        "access_token_minutes": 60 * 24 * 365,
    }
    settings = Settings(data_dir=runtime.settings.data_dir, run_scheduler=False, **update)
    with TestClient(create_app(settings, dataclasses.replace(runtime, settings=settings))) as client:
        yield client


def tell_a_fact_the_memories_drop(person: Person, ai: dict, fake_llm, clock) -> None:
    """The person names their cat; the topic ends; the summary and the extracted memory leave the name out."""
    fake_llm.default = lambda body: Reply.json(NO_CORE)  # the core judge creates nothing
    fake_llm.script(CHAT_MODEL, Reply.text("好可爱！"))
    send(person, ai, SAID)
    fake_llm.script("qwen-plus", Reply.json({"summary": "对方聊起了自己养的猫", "emotion_tags": TAGS}))
    compressed = person.post(f"/api/memory/{ai['id']}/compress")
    assert compressed.status_code == 200, compressed.text
    mid = compressed.json()["mid_term"][0]
    memory = {
        "title": "养猫",
        "key_points": ["对方养了一只橘猫"],
        "detail_content": "对方养猫。",
        "source_mid_ids": [mid["id"]],
    }
    fake_llm.script("doubao-pro-32k", Reply.json({"memories": [memory]}))
    clock.advance(hours=30)
    assert person.post(f"/api/memory/{ai['id']}/extract").status_code == 200
    files = person.get(f"/api/memory/{ai['id']}/files").json()
    remembered = json.dumps([files["mid_term"], files["long_term"], files["core"]], ensure_ascii=False)
    assert "团子" not in remembered and "橘猫" in remembered  # only the log holds the name


def system_prompt(fake_llm) -> str:
    return fake_llm.requests_for(CHAT_MODEL)[-1].messages[0]["content"]


def said_in_log(fake_llm, person: Person, ai: dict, query: str) -> list[str]:
    fake_llm.script(CHAT_MODEL, Reply.tools(("recall_memory", {"query": query})), Reply.text("嗯"))
    send(person, ai, "你还记得吗")
    answer = tool_results(fake_llm)[0]
    return answer.get("said_in_log", [])


@pytest.mark.every_store
def test_a_name_only_the_log_holds_is_quoted_recalled_and_forgotten_with_the_pair(chat_on, fake_llm, clock) -> None:
    person = register(chat_on, "alice")
    ai = person.create_ai_user(name="小梦")
    tell_a_fact_the_memories_drop(person, ai, fake_llm, clock)

    fake_llm.script(CHAT_MODEL, Reply.text("团子呀"))
    send(person, ai, QUESTION)
    prompt = system_prompt(fake_llm)
    assert prompt.count(QUOTES) == 1
    quoted = prompt.split(QUOTES, 1)[1]
    assert f"对方：「{SAID}」" in quoted.split("\n【", 1)[0]  # under the one header, as the person's words, dated
    assert [line for line in quoted.split("\n") if "团子" in line][0].startswith("- 20")

    said = said_in_log(fake_llm, person, ai, "猫的名字")
    assert len(said) == 1 and SAID in said[0]

    assert person.delete(f"/api/friends/{ai['id']}", params={"forget": "true"}).status_code == 200
    assert person.post(f"/api/friends/{ai['id']}").status_code in (200, 201)
    assert said_in_log(fake_llm, person, ai, "猫的名字") == []
    preview = person.get(f"/api/memory/{ai['id']}", params={"q": QUESTION}).json()["sections"]
    assert "团子" not in json.dumps(preview, ensure_ascii=False)


@pytest.mark.every_store
def test_a_deleted_account_leaves_no_unit_of_its_log(chat_on, fake_llm, clock) -> None:
    person = register(chat_on, "alice")
    ai = person.create_ai_user(name="小梦")
    tell_a_fact_the_memories_drop(person, ai, fake_llm, clock)
    context = chat_on.app.state.services.context  # type: ignore[attr-defined]
    pair = PairId(account_id=person.id, ai_user_id=ai["id"])
    assert [u.text for u in context.person_units(pair, None)] == [SAID]

    assert person.delete("/api/auth/user").status_code == 200
    assert context.person_units(pair, None) == []
