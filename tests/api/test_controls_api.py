"""The person's controls over a conversation (issue 40): 换一个回答 with the old answers kept to swipe back to,
the last message edited and answered anew, 👍/👎 on the AI's messages, 让 TA 记住这条, search in the history."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from dreamchat.domain.bounds import ALTERNATIVES, SEARCH_QUERY_CHARS
from tests.api.conftest import Person, register
from tests.api.sse import parse_sse
from tests.fakes.fake_llm import Reply

CHAT_MODEL = "deepseek-chat"


def send(person: Person, ai: dict, content: str, **headers: str) -> list[tuple[str, dict]]:
    response = person.client.post(
        f"/api/ai-users/{ai['id']}/chat", json={"content": content}, headers={**person.headers, **headers}
    )
    assert response.status_code == 200, response.text
    return parse_sse(response.text)


def history(person: Person, ai: dict, **params: str | int) -> dict:
    response = person.get(f"/api/ai-users/{ai['id']}/messages", params=params)
    assert response.status_code == 200, response.text
    return response.json()


def regenerate(person: Person, ai: dict, message_id: str):
    return person.post(f"/api/ai-users/{ai['id']}/messages/{message_id}/regenerate")


def said(events: list[tuple[str, dict]]) -> list[str]:
    return [data["content"] for name, data in events if name == "message"]


def chat_prompt(fake_llm) -> str:
    return json.dumps(fake_llm.requests_for(CHAT_MODEL)[-1].messages, ensure_ascii=False)


@pytest.fixture
def exchange(person, ai, fake_llm) -> list[dict]:
    """Alice asked about her dog and 小梦 answered in two lines."""
    fake_llm.script(CHAT_MODEL, Reply.text("豆豆呀\n它最近还好吗"))
    assert said(send(person, ai, "你还记得我家狗叫什么吗？")) == ["豆豆呀", "它最近还好吗"]
    return history(person, ai)["messages"]


# 换一个回答


def test_a_new_answer_replaces_the_last_one_and_keeps_it_as_an_alternative(person, ai, fake_llm, exchange) -> None:
    fake_llm.script(CHAT_MODEL, Reply.text("叫豆豆，我当然记得"))

    response = regenerate(person, ai, exchange[2]["id"])

    assert response.status_code == 200, response.text
    assert said(parse_sse(response.text)) == ["叫豆豆，我当然记得"]
    messages = history(person, ai)["messages"]
    assert [m["content"] for m in messages] == ["你还记得我家狗叫什么吗？", "叫豆豆，我当然记得"]
    assert messages[1]["alternatives"] == ["豆豆呀\n它最近还好吗", "叫豆豆，我当然记得"]
    assert messages[1]["alternative"] == 1
    # the model saw the person's message last, not the answer being replaced
    assert "它最近还好吗" not in chat_prompt(fake_llm)


def test_swiping_back_shows_an_earlier_answer_and_keeps_the_newer_one(person, ai, fake_llm, exchange) -> None:
    fake_llm.script(CHAT_MODEL, Reply.text("叫豆豆"))
    regenerate(person, ai, exchange[1]["id"])
    first = history(person, ai)["messages"][1]

    response = person.put(f"/api/ai-users/{ai['id']}/messages/{first['id']}/alternative", json={"index": 0})

    assert response.status_code == 200, response.text
    assert (response.json()["content"], response.json()["alternative"]) == ("豆豆呀\n它最近还好吗", 0)
    messages = history(person, ai)["messages"]
    assert [m["content"] for m in messages[1:]] == ["豆豆呀\n它最近还好吗"]
    assert messages[1]["alternatives"] == ["豆豆呀\n它最近还好吗", "叫豆豆"]
    back = person.put(f"/api/ai-users/{ai['id']}/messages/{first['id']}/alternative", json={"index": 1})
    assert back.json()["content"] == "叫豆豆"


def test_answers_kept_are_bounded_the_oldest_going_first(person, ai, fake_llm, exchange) -> None:
    for number in range(ALTERNATIVES + 1):
        fake_llm.script(CHAT_MODEL, Reply.text(f"回答{number}"))
        last = history(person, ai)["messages"][-1]
        assert regenerate(person, ai, last["id"]).status_code == 200
    first = history(person, ai)["messages"][1]
    assert len(first["alternatives"]) == ALTERNATIVES
    assert first["alternatives"][-1] == f"回答{ALTERNATIVES}" and first["alternative"] == ALTERNATIVES - 1
    assert "豆豆呀\n它最近还好吗" not in first["alternatives"]


def test_a_new_answer_that_fails_leaves_the_old_one_in_place(person, ai, fake_llm, exchange) -> None:
    fake_llm.script(CHAT_MODEL, Reply.error(500))

    events = parse_sse(regenerate(person, ai, exchange[1]["id"]).text)

    assert events[-1][0] == "error"
    messages = history(person, ai)["messages"]
    assert [(m["id"], m["content"]) for m in messages] == [(m["id"], m["content"]) for m in exchange]


def test_only_the_last_answer_can_be_answered_anew(person, ai, fake_llm, exchange) -> None:
    fake_llm.script(CHAT_MODEL, Reply.text("今天呢？"))
    send(person, ai, "我今天去公园了")

    old_answer = regenerate(person, ai, exchange[1]["id"])
    persons_message = regenerate(person, ai, history(person, ai)["messages"][-2]["id"])

    assert old_answer.status_code == 409 and old_answer.json()["error"]["code"] == "conflict"
    assert persons_message.status_code == 409


def test_an_answer_after_a_heartbeat_or_a_missing_message_cannot_be_answered_anew(person, ai, exchange) -> None:
    assert regenerate(person, ai, "no-such-message").status_code == 404
    choice = person.put(f"/api/ai-users/{ai['id']}/messages/{exchange[1]['id']}/alternative", json={"index": 0})
    assert choice.status_code == 409  # never answered anew: nothing to choose from


@pytest.mark.parametrize("body", [{"index": -1}, {"index": "0"}, {"index": ALTERNATIVES}, {}, {"index": 0, "x": 1}])
def test_a_choice_that_is_not_an_index_is_refused(person, ai, exchange, body) -> None:
    response = person.put(f"/api/ai-users/{ai['id']}/messages/{exchange[1]['id']}/alternative", json=body)
    assert response.status_code == 422


def test_a_choice_past_the_answers_kept_is_refused(person, ai, fake_llm, exchange) -> None:
    fake_llm.script(CHAT_MODEL, Reply.text("叫豆豆"))
    regenerate(person, ai, exchange[1]["id"])
    first = history(person, ai)["messages"][1]
    response = person.put(f"/api/ai-users/{ai['id']}/messages/{first['id']}/alternative", json={"index": 2})
    assert response.status_code == 422


# editing the last message


def edit(person: Person, ai: dict, message_id: str, content: str, **headers: str):
    return person.client.put(
        f"/api/ai-users/{ai['id']}/messages/{message_id}",
        json={"content": content},
        headers={**person.headers, **headers},
    )


def test_an_edited_message_replaces_the_last_one_and_gets_a_new_answer(person, ai, fake_llm, exchange) -> None:
    fake_llm.script(CHAT_MODEL, Reply.text("是小白吧"))

    response = edit(person, ai, exchange[0]["id"], "你还记得我家猫叫什么吗？")

    assert response.status_code == 200, response.text
    assert said(parse_sse(response.text)) == ["是小白吧"]
    messages = history(person, ai)["messages"]
    assert [(m["role"], m["content"]) for m in messages] == [
        ("user", "你还记得我家猫叫什么吗？"),
        ("assistant", "是小白吧"),
    ]
    prompt = chat_prompt(fake_llm)
    assert "猫" in prompt and "狗" not in prompt and "豆豆呀" not in prompt


def test_an_edit_runs_the_crisis_check_on_the_new_words(person, ai, fake_llm, exchange) -> None:
    events = parse_sse(edit(person, ai, exchange[0]["id"], "我不想活了").text)

    assert [name for name, _ in events][0] == "safety"
    assert history(person, ai)["messages"][0]["safety"] == "crisis"


def test_an_edit_with_the_same_idempotency_key_is_stored_and_answered_once(person, ai, fake_llm, exchange) -> None:
    fake_llm.script(CHAT_MODEL, Reply.text("是小白吧"), Reply.text("不该有第二次"))
    first = edit(person, ai, exchange[0]["id"], "猫叫什么？", **{"Idempotency-Key": "edit-1"})
    again = edit(person, ai, exchange[0]["id"], "猫叫什么？", **{"Idempotency-Key": "edit-1"})

    assert said(parse_sse(first.text)) == said(parse_sse(again.text)) == ["是小白吧"]
    assert [m["content"] for m in history(person, ai)["messages"]] == ["猫叫什么？", "是小白吧"]


def test_only_the_last_message_of_the_person_can_be_edited(person, ai, fake_llm, exchange) -> None:
    send(person, ai, "我今天去公园了")

    assert edit(person, ai, exchange[0]["id"], "改一下").status_code == 409
    assert edit(person, ai, exchange[1]["id"], "改一下").status_code == 409  # the AI's message
    assert edit(person, ai, "no-such-message", "改一下").status_code == 404


@pytest.mark.parametrize("content", ["", "   "])
def test_an_edit_that_says_nothing_leaves_the_message_as_it_was(person, ai, exchange, content) -> None:
    response = edit(person, ai, exchange[0]["id"], content)
    assert response.status_code in (400, 422)
    assert [m["id"] for m in history(person, ai)["messages"]] == [m["id"] for m in exchange]


def test_an_edit_too_long_is_refused_and_the_message_kept(person, ai, exchange) -> None:
    assert edit(person, ai, exchange[0]["id"], "长" * 2001).status_code == 413
    assert [m["id"] for m in history(person, ai)["messages"]] == [m["id"] for m in exchange]


# 👍/👎


def rate(person: Person, ai: dict, message_id: str, body: dict):
    return person.post(f"/api/ai-users/{ai['id']}/messages/{message_id}/feedback", json=body)


def summary(client: TestClient) -> dict:
    ops = register(client, "ops")
    response = ops.get("/api/admin/summary")
    assert response.status_code == 200, response.text
    return response.json()


def test_a_rating_is_kept_on_the_message_counted_for_the_operators_and_never_in_a_prompt(
    person, ai, fake_llm, exchange
) -> None:
    response = rate(person, ai, exchange[1]["id"], {"rating": -1, "reason": "答非所问的紫色长颈鹿"})
    rate(person, ai, exchange[2]["id"], {"rating": 1})

    assert response.status_code == 200, response.text
    assert (response.json()["rating"], response.json()["rating_reason"]) == (-1, "答非所问的紫色长颈鹿")
    assert [m["rating"] for m in history(person, ai)["messages"]] == [None, -1, 1]
    counts = summary(person.client)
    assert (counts["ratings_up"], counts["ratings_down"]) == (1, 1)
    send(person, ai, "那你说说看")
    assert "紫色长颈鹿" not in chat_prompt(fake_llm)


def test_a_changed_mind_moves_its_count_and_the_same_rating_again_counts_once(person, ai, exchange) -> None:
    rate(person, ai, exchange[1]["id"], {"rating": 1})
    rate(person, ai, exchange[1]["id"], {"rating": 1})
    rate(person, ai, exchange[2]["id"], {"rating": 1})
    rate(person, ai, exchange[2]["id"], {"rating": -1})

    counts = summary(person.client)
    assert (counts["ratings_up"], counts["ratings_down"]) == (1, 1)


@pytest.mark.parametrize(
    "body", [{"rating": 0}, {"rating": 2}, {"rating": "1"}, {"rating": 1.0}, {}, {"rating": 1, "reason": "长" * 501}]
)
def test_any_other_rating_is_refused(person, ai, exchange, body) -> None:
    assert rate(person, ai, exchange[1]["id"], body).status_code == 422


def test_the_persons_own_message_cannot_be_rated(person, ai, exchange) -> None:
    response = rate(person, ai, exchange[0]["id"], {"rating": 1})
    assert response.status_code == 422
    assert history(person, ai)["messages"][0]["rating"] is None


# 让 TA 记住这条


def test_a_message_becomes_a_core_memory_of_the_persons_making(person, ai, fake_llm, exchange) -> None:
    response = person.post(f"/api/memory/{ai['id']}/core", json={"message_id": exchange[0]["id"]})

    assert response.status_code == 201, response.text
    assert (response.json()["content"], response.json()["source"]) == ("你还记得我家狗叫什么吗？", "person")
    files = person.get(f"/api/memory/{ai['id']}/files").json()
    assert [c["content"] for c in files["core"] if c["source"] == "person"] == ["你还记得我家狗叫什么吗？"]


def test_remembering_past_the_persons_limit_is_refused_clearly(tmp_path, clock, rng, fake_llm) -> None:
    from dreamchat.api.app import create_app
    from dreamchat.config import Settings
    from tests.conftest import memory_runtime

    settings = Settings(
        data_dir=tmp_path / "d",
        run_scheduler=False,
        llm_base_url=fake_llm.base_url,
        llm_api_key="k",
        llm_max_retries=0,
        max_person_core_memories=1,
    )
    with TestClient(create_app(settings, memory_runtime(settings, clock, rng))) as client:
        alice = register(client, "alice")
        ai = alice.create_ai_user()
        send(alice, ai, "我怕黑")
        [message, *_] = history(alice, ai)["messages"]
        assert alice.post(f"/api/memory/{ai['id']}/core", json={"message_id": message["id"]}).status_code == 201
        again = alice.post(f"/api/memory/{ai['id']}/core", json={"message_id": message["id"]})
    assert again.status_code == 409 and "at most 1" in again.json()["error"]["message"]


@pytest.mark.parametrize("body", [{}, {"message_id": ""}, {"message_id": "m", "importance": 9}])
def test_remembering_needs_a_message_id_and_nothing_else(person, ai, body) -> None:
    assert person.post(f"/api/memory/{ai['id']}/core", json=body).status_code == 422


def test_remembering_a_message_not_in_the_conversation_is_not_found(person, ai) -> None:
    assert person.post(f"/api/memory/{ai['id']}/core", json={"message_id": "nope"}).status_code == 404


# search


def test_search_finds_the_persons_words_whatever_the_case_and_pages_back(person, ai, fake_llm) -> None:
    for word in ("Apple pie", "香蕉", "APPLE juice", "苹果", "an apple a day"):
        fake_llm.script(CHAT_MODEL, Reply.text("嗯嗯"))
        send(person, ai, word)

    first = history(person, ai, q="apple", limit=2)
    second = history(person, ai, q="apple", limit=2, before=first["next_cursor"])

    assert [m["content"] for m in first["messages"]] == ["APPLE juice", "an apple a day"]
    assert [m["content"] for m in second["messages"]] == ["Apple pie"]
    assert second["next_cursor"] is None
    assert history(person, ai, q="嗯嗯")["messages"] and history(person, ai, q="西瓜")["messages"] == []


@pytest.mark.parametrize("params", [{"q": ""}, {"q": "长" * (SEARCH_QUERY_CHARS + 1)}, {"q": "a", "after": "x"}])
def test_a_search_that_is_too_long_empty_or_forward_is_refused(person, ai, params) -> None:
    response = person.get(f"/api/ai-users/{ai['id']}/messages", params=params)
    assert response.status_code == 422


# another account


def test_another_accounts_conversation_is_not_found_for_every_control(person, ai, exchange) -> None:
    mallory = register(person.client, "mallory")
    base = f"/api/ai-users/{ai['id']}/messages"
    target = exchange[1]["id"]
    attempts = [
        mallory.post(f"{base}/{target}/regenerate"),
        mallory.put(f"{base}/{target}/alternative", json={"index": 0}),
        mallory.put(f"{base}/{exchange[0]['id']}", json={"content": "改掉"}),
        mallory.post(f"{base}/{target}/feedback", json={"rating": -1}),
        mallory.get(base, params={"q": "狗"}),
        mallory.post(f"/api/memory/{ai['id']}/core", json={"message_id": target}),
    ]
    assert [r.status_code for r in attempts] == [404] * len(attempts)
    mine = mallory.create_ai_user(name="阿毛")
    foreign = [
        mallory.post(f"/api/ai-users/{mine['id']}/messages/{target}/regenerate"),
        mallory.post(f"/api/ai-users/{mine['id']}/messages/{target}/feedback", json={"rating": 1}),
        mallory.post(f"/api/memory/{mine['id']}/core", json={"message_id": target}),
    ]
    assert [r.status_code for r in foreign] == [404] * len(foreign)
    assert history(person, ai)["messages"] == exchange


def test_a_second_new_answer_while_one_is_being_made_is_refused(app, person, ai, exchange) -> None:
    from dreamchat.domain.models import PairId

    pair = PairId(account_id=person.id, ai_user_id=ai["id"])
    lease = app.state.services.answers._answering.claim_anew(pair, exchange[0]["id"])  # a tap being answered
    assert lease.status == "won"

    response = regenerate(person, ai, exchange[1]["id"])

    assert response.status_code == 409
    assert [m["id"] for m in history(person, ai)["messages"]] == [m["id"] for m in exchange]
    app.state.services.answers._answering.anew_done(lease)
    assert regenerate(person, ai, exchange[1]["id"]).status_code == 200  # given back: the next tap works
