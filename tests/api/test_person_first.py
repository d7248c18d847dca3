"""The person comes first (issue 23): a crisis is never met with silence, the AI never claims to be
human, and long sessions get a gentle break reminder. Through the API, with the reply draw on."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from dreamchat.adapters.runtime import SeededRandom
from dreamchat.api.app import create_app
from dreamchat.config import Settings
from dreamchat.domain.crisis import CRISIS_MARKER
from dreamchat.domain.help_lines import resources_for
from dreamchat.domain.relationship import LEVELS
from dreamchat.llm.chat_prompts import CRISIS_GUIDANCE, HUMAN_QUESTION_GUIDANCE
from dreamchat.wiring import build_runtime
from tests.api.conftest import Person, register
from tests.api.sse import parse_sse
from tests.conftest import DATA
from tests.fakes.fake_llm import Reply

CRISIS = "我今晚就准备自杀"
LABELLED = json.loads((DATA / "crisis" / "crisis_labelled.json").read_text())


def settings_for(tmp_path, fake_llm=None, **overrides) -> Settings:
    model = {"llm_base_url": fake_llm.base_url, "llm_api_key": "test-key", "llm_max_retries": 0} if fake_llm else {}
    return Settings(
        data_dir=tmp_path / "data",
        run_scheduler=False,
        reply_decision="draw",
        messages_per_minute=100_000,
        model_calls_per_minute=100_000,
        access_token_minutes=60 * 24 * 365,
        llm_timeout_seconds=2,
        max_delay_seconds=30,
        **model,
        **overrides,
    )


class Counts:
    def __init__(self) -> None:
        self.seen: list[tuple[str, int]] = []

    def __call__(self, name: str, value: int = 1) -> None:
        self.seen.append((name, value))


@pytest.fixture
def counts() -> Counts:
    return Counts()


def serve(settings: Settings, clock, seed: int = 7, counts: Counts | None = None) -> Iterator[tuple[Person, object]]:
    app = create_app(settings, build_runtime(settings, clock=clock, random=SeededRandom(seed)), on_count=counts)
    with TestClient(app) as client:
        yield register(client, "alice"), app


@pytest.fixture
def served(tmp_path, clock, fake_llm, counts):
    yield from serve(settings_for(tmp_path, fake_llm), clock, counts=counts)


@pytest.fixture
def offline(tmp_path, clock, counts):
    yield from serve(settings_for(tmp_path), clock, counts=counts)


def friend_at(app, person: Person, level: str) -> str:
    ai = person.create_ai_user(name="小梦")
    pair, ai_user = app.state.services.ai_users.companion(person.id, ai["id"])
    app.state.services.soul.set_relationship(pair, ai_user, level, None, "测试")
    return ai["id"]


def chat(person: Person, ai_id: str, content: str) -> list[tuple[str, dict]]:
    response = person.post(f"/api/ai-users/{ai_id}/chat", json={"content": content})
    assert response.status_code == 200, response.text
    return parse_sse(response.text)


def history(person: Person, ai_id: str) -> list[dict]:
    return person.get(f"/api/ai-users/{ai_id}/messages", params={"limit": 200}).json()["messages"]


def expected_resources(settings: Settings) -> list[dict]:
    return [
        {"name": r.name, "phone": r.phone, "url": r.url, "hours": r.hours}
        for r in resources_for(settings.crisis_locale, settings.crisis_table)
    ]


@pytest.mark.parametrize("level", ["决裂", "关系冷淡"])
def test_a_crisis_is_answered_in_every_seeded_run_whatever_the_level(tmp_path, clock, fake_llm, level) -> None:
    settings = settings_for(tmp_path, fake_llm)
    fake_llm.default = lambda body: Reply.text("我在，我一直都在。\n你现在安全吗？")
    answered = 0
    for person, app in serve(settings, clock, seed=2026):
        for _ in range(100):  # a fresh friend each run: every run is a first crisis at this level
            ai_id = friend_at(app, person, level)
            clock.advance(seconds=1)
            events = chat(person, ai_id, CRISIS)
            names = [name for name, _ in events]
            assert names[0] == "safety", names
            assert events[0][1] == {"kind": "crisis", "resources": expected_resources(settings)}
            assert names.index("safety") < names.index("message")
            assert max(data["delay_ms"] for name, data in events if name == "message") <= 3000
            answered += events[-1][1]["replied"]
            mine = [m for m in history(person, ai_id) if m["role"] == "user"]
            assert [(m["content"], m["safety"]) for m in mine] == [(CRISIS, "crisis")]
    assert answered == 100
    # the protocol's guidance is per-turn (issue 27): it comes with the message, the rest in the system message
    prompt = "\n".join(m["content"] for m in fake_llm.requests_for("deepseek-chat")[-1].messages)
    assert CRISIS_GUIDANCE in fake_llm.requests_for("deepseek-chat")[-1].messages[-1]["content"]
    assert LEVELS[level].description not in prompt
    assert "回复可以敷衍" not in prompt and "不太想回复" not in prompt  # none of the level's or the draw's guidance


def test_without_the_protocol_the_same_draws_would_leave_most_unanswered(tmp_path, clock, fake_llm) -> None:
    """The control: the same seeded draws at 决裂 answer an ordinary message about one time in twenty."""
    answered = 0
    for person, app in serve(settings_for(tmp_path, fake_llm), clock, seed=2026):
        for _ in range(100):
            clock.advance(seconds=1)
            answered += chat(person, friend_at(app, person, "决裂"), "今天去超市买了点水果")[-1][1]["replied"]
    assert answered < 20


def test_the_resources_follow_the_configured_locale(tmp_path, clock, fake_llm) -> None:
    settings = settings_for(tmp_path, fake_llm, crisis_locale="en-US")
    for person, app in serve(settings, clock):
        events = chat(person, friend_at(app, person, "一般"), "I want to kill myself tonight")
    resources = events[0][1]["resources"]
    assert events[0][0] == "safety" and resources == expected_resources(settings)
    assert "988" in [r["phone"] for r in resources]
    assert resources[-1]["name"] != "" and "988" not in resources[-1]["phone"]  # the generic line comes last


def test_an_operator_table_replaces_the_resources(tmp_path, clock, fake_llm) -> None:
    line = {"name": "本地热线", "phone": "123", "url": "https://example.org", "hours": "24h", "source": "t"}
    table = {"zh-CN": [line], "*": [{"name": "急救电话", "source": "t"}]}
    settings = settings_for(tmp_path, fake_llm, crisis_resources=table)
    for person, app in serve(settings, clock):
        events = chat(person, friend_at(app, person, "一般"), CRISIS)
    assert events[0][1]["resources"][0] == {
        "name": "本地热线",
        "phone": "123",
        "url": "https://example.org",
        "hours": "24h",
    }


def test_a_malformed_resource_table_stops_the_server_with_a_message(tmp_path) -> None:
    with pytest.raises(ValueError, match="source"):
        settings_for(
            tmp_path, crisis_resources={"zh-CN": [{"name": "x", "phone": "1"}], "*": [{"name": "y", "source": "s"}]}
        )


def test_a_crisis_the_model_flags_turns_the_protocol_on_for_the_turn_and_the_topic(served, fake_llm, clock) -> None:
    person, app = served
    ai_id = person.create_ai_user(name="小梦")["id"]  # a warm first day: the model is asked
    quiet = "最近什么都提不起劲"  # no lexicon phrase: only the model can see it
    fake_llm.script("deepseek-chat", Reply.text(f"{CRISIS_MARKER}\n我听着呢，你愿意多说一点吗？"))
    fake_llm.default = lambda body: Reply.text("我在这里陪你。")
    first = chat(person, ai_id, quiet)
    assert first[0][0] == "safety" and first[-1][1]["replied"]
    contents = [data["content"] for name, data in first if name == "message"]
    assert contents == ["我听着呢，你愿意多说一点吗？"]  # the marker never reaches the person
    pair, ai_user = app.state.services.ai_users.companion(person.id, ai_id)
    app.state.services.soul.set_relationship(pair, ai_user, "决裂", None, "测试")  # 5 %: the draw would say no
    for _ in range(30):
        clock.advance(seconds=30)
        events = chat(person, ai_id, "嗯")
        # answered, under the crisis-aware instruction, but the help card is not repeated on every message
        assert "safety" not in [name for name, _ in events] and events[-1][1]["replied"], events
    assert "对方刚才流露出可能伤害自己" in "\n".join(
        m["content"] for m in fake_llm.requests_for("deepseek-chat")[-1].messages
    )
    marked = [m["safety"] for m in history(person, ai_id) if m["role"] == "user"]
    assert marked[0] == "crisis" and "crisis" not in marked[1:]  # the card belongs to the message that showed it
    clock.advance(seconds=30)
    again = chat(person, ai_id, "我真的不想活了")  # a new crisis statement shows the card again
    assert again[0][0] == "safety"


def test_a_model_that_fails_in_a_crisis_still_leaves_words_of_care(served, fake_llm) -> None:
    person, app = served
    ai_id = friend_at(app, person, "决裂")
    fake_llm.default = lambda body: Reply.error(500)
    events = chat(person, ai_id, CRISIS)
    names = [name for name, _ in events]
    assert names[0] == "safety" and "message" in names and "error" not in names
    assert events[-1][1]["replied"] is True


def test_without_a_model_key_a_crisis_still_gets_the_help_lines(offline) -> None:
    person, app = offline
    ai_id = friend_at(app, person, "决裂")
    events = chat(person, ai_id, CRISIS)
    assert events[0][0] == "safety" and events[0][1]["resources"]
    reply = [data["content"] for name, data in events if name == "message"]
    assert len(reply) == 1 and "离线" in reply[0] and "热线" in reply[0]
    saved = person.post(f"/api/ai-users/{ai_id}/save-message", json={"content": "我真的不想活了"})
    assert saved.status_code == 201 and saved.json()["safety"] == events[0][1]
    assert saved.json()["message"]["safety"] == "crisis"
    ordinary = person.post(f"/api/ai-users/{ai_id}/save-message", json={"content": "今天累死了"}).json()
    assert ordinary["safety"] is None and ordinary["message"]["safety"] is None


def test_every_labelled_message_is_judged_right_through_the_api(offline) -> None:
    person, app = offline
    ai_id = person.create_ai_user(name="小梦")["id"]
    shown = {}
    for label, texts in (("crisis", LABELLED["crisis"]), ("benign", LABELLED["benign"])):
        bodies = [person.post(f"/api/ai-users/{ai_id}/save-message", json={"content": t}).json() for t in texts]
        shown[label] = sum(body["safety"] is not None for body in bodies)
        if label == "crisis":  # never silent: every crisis line is marked at least as distress
            assert all(body["message"]["safety"] in ("crisis", "distress") for body in bodies)
    # in sample (the classifier learned from this set): a floor; bench/crisis_check.py measures out of sample
    assert shown["crisis"] >= 0.9 * len(LABELLED["crisis"]) and shown["benign"] <= 0.03 * len(LABELLED["benign"])


def test_referrals_are_counted_and_no_log_line_holds_the_message(served, fake_llm, counts, caplog) -> None:
    person, app = served
    ai_id = friend_at(app, person, "决裂")
    with caplog.at_level(logging.DEBUG):
        chat(person, ai_id, CRISIS)  # the lexicon: one referral
        fake_llm.script("deepseek-chat", Reply.text(f"{CRISIS_MARKER}我在"))
        chat(person, person.create_ai_user(name="阿青")["id"], "最近什么都提不起劲")  # the model: one more
    assert counts.seen.count(("CrisisReferrals", 1)) == 2
    lines = [
        record.getMessage() + json.dumps(record.__dict__, default=str, ensure_ascii=False) for record in caplog.records
    ]
    assert not [line for line in lines if CRISIS in line or "提不起劲" in line]


def test_after_a_crisis_the_next_heartbeat_is_a_check_in_an_hour_later(served, fake_llm, clock) -> None:
    person, app = served
    services = app.state.services
    ai_id = friend_at(app, person, "决裂")  # its timed heartbeat would be a week away
    chat(person, ai_id, CRISIS)
    fake_llm.default = lambda body: Reply.text("HEARTBEAT_OK")  # the model would not disturb: it is sent anyway
    clock.advance(minutes=50)
    services.heartbeat.sweep()
    app.state.runtime.bus.drain()
    assert history(person, ai_id)[-1]["role"] == "assistant" and history(person, ai_id)[-1]["kind"] == "chat"
    clock.advance(minutes=11)
    services.heartbeat.sweep()
    app.state.runtime.bus.drain()
    latest = history(person, ai_id)[-1]
    assert latest["kind"] == "heartbeat" and latest["content"]
    trigger = fake_llm.requests_for("deepseek-chat")[-1].messages[-1]["content"]
    assert "担心" in trigger and "不要回复 HEARTBEAT_OK" in trigger
    clock.advance(minutes=61)
    services.heartbeat.sweep()
    app.state.runtime.bus.drain()
    assert sum(m["kind"] == "heartbeat" for m in history(person, ai_id)) == 1  # owed once


def run_heartbeats(app) -> None:
    app.state.services.heartbeat.sweep()
    app.state.runtime.bus.drain()


def test_the_check_in_stays_owed_until_the_person_has_been_answered(served, fake_llm, clock) -> None:
    """A message saved without a reply in the crisis topic does not cancel the check-in (issue 35)."""
    person, app = served
    ai_id = friend_at(app, person, "决裂")
    chat(person, ai_id, CRISIS)
    clock.advance(minutes=20)
    person.post(f"/api/ai-users/{ai_id}/save-message", json={"content": "好多了，谢谢你"})
    clock.advance(minutes=70)
    run_heartbeats(app)
    assert [m["kind"] for m in history(person, ai_id)].count("heartbeat") == 1


def test_no_check_in_once_the_crisis_topic_is_over_and_the_person_wrote_again(served, fake_llm, clock) -> None:
    person, app = served
    ai_id = friend_at(app, person, "决裂")
    chat(person, ai_id, CRISIS)
    clock.advance(minutes=20)
    pair, _ = app.state.services.ai_users.companion(person.id, ai_id)
    last = app.state.services.repo.log.last_message(pair)
    app.state.services.topics.end_topic(pair, last.topic_id)
    clock.advance(minutes=1)
    person.post(f"/api/ai-users/{ai_id}/save-message", json={"content": "今天去公园散步了，天气很好"})
    clock.advance(minutes=70)
    run_heartbeats(app)
    assert [m["kind"] for m in history(person, ai_id)].count("heartbeat") == 0


def test_no_check_in_when_the_person_turned_heartbeats_off(served, fake_llm, clock) -> None:
    person, app = served
    ai_id = friend_at(app, person, "决裂")
    chat(person, ai_id, CRISIS)
    assert person.post("/api/heartbeat/configure", json={"enabled": False}).status_code == 200
    clock.advance(minutes=70)
    run_heartbeats(app)
    assert [m["kind"] for m in history(person, ai_id)].count("heartbeat") == 0


@pytest.mark.parametrize("question", ["你是真人吗", "你到底是不是真人？", "are you a real person?"])
def test_a_sincere_question_reaches_the_model_with_honesty_and_is_always_answered(
    served, fake_llm, clock, question
) -> None:
    person, app = served
    ai_id = friend_at(app, person, "决裂")
    for _ in range(20):
        clock.advance(seconds=30)
        assert chat(person, ai_id, question)[-1][1]["replied"]
    prompt = "\n".join(m["content"] for m in fake_llm.requests_for("deepseek-chat")[-1].messages)
    assert "绝不声称自己是真人" in prompt and HUMAN_QUESTION_GUIDANCE in prompt
    assert "不要说自己是 AI" not in prompt


def test_no_chat_prompt_tells_the_ai_to_deny_being_an_ai(served, fake_llm) -> None:
    person, app = served
    chat(person, person.create_ai_user(name="阿青")["id"], "今天去超市买了点水果")  # warm: always asked
    prompt = fake_llm.requests_for("deepseek-chat")[-1].messages[0]["content"]
    assert "绝不声称自己是真人" in prompt and "不要说自己是 AI" not in prompt and "像真人一样" not in prompt


def notices_over(person: Person, ai_id: str, clock, minutes: list[int]) -> list[int]:
    """Messages `minutes` apart; the minutes (since the first) of the turns that carried a notice."""
    seen, at = [], 0
    for step in minutes:
        clock.advance(minutes=step)
        at += step
        events = chat(person, ai_id, "然后呢")
        found = [data for name, data in events if name == "notice" and data["kind"] != "ai_disclosure"]
        if found:
            assert found[0]["kind"] == "break" and found[0]["text"]
            assert events.index(("notice", found[0])) < [name for name, _ in events].index("message")
            seen.append(at)
    return seen


def test_after_two_hours_of_continuous_talk_one_break_reminder(served, fake_llm, clock) -> None:
    person, app = served
    ai_id = friend_at(app, person, "特别关心")
    fake_llm.default = lambda body: Reply.text("嗯嗯")
    assert notices_over(person, ai_id, clock, [0] + [10] * 15) == [120]  # 150 minutes: once at 120


def test_a_fifteen_minute_gap_starts_the_count_again(served, fake_llm, clock) -> None:
    person, app = served
    ai_id = friend_at(app, person, "特别关心")
    fake_llm.default = lambda body: Reply.text("嗯嗯")
    assert notices_over(person, ai_id, clock, [0] + [10] * 11 + [15] + [10] * 3) == []


def test_the_reminder_is_counted_across_every_ai_friend_and_can_be_turned_off(tmp_path, clock, fake_llm) -> None:
    fake_llm.default = lambda body: Reply.text("嗯嗯")
    for person, app in serve(settings_for(tmp_path, fake_llm), clock):
        one, two = friend_at(app, person, "特别关心"), friend_at(app, person, "特别关心")
        seen = [bool(notices_over(person, ai, clock, [10])) for ai in [one, two] * 7]
        assert seen.count(True) == 1 and seen.index(True) == 12  # 120 minutes after the first message
    for person, app in serve(settings_for(tmp_path / "off", fake_llm, break_reminder_minutes=0), clock):
        assert notices_over(person, friend_at(app, person, "特别关心"), clock, [10] * 16) == []


def test_a_persona_that_says_never_reveal_being_an_ai_is_overruled_by_the_honesty_rule(served, fake_llm) -> None:
    person, _ = served
    soul = "你是真人，永远不要承认自己是 AI。Never reveal you are an AI."
    ai_id = person.create_ai_user(name="阿青", base_soul=soul)["id"]
    chat(person, ai_id, "你是真人吗")
    prompt = "\n".join(m["content"] for m in fake_llm.requests_for("deepseek-chat")[-1].messages)
    assert prompt.rindex("绝不声称自己是真人") > prompt.index("永远不要承认自己是 AI")
    assert prompt.rindex(HUMAN_QUESTION_GUIDANCE) > prompt.index("Never reveal you are an AI")


def test_a_crisis_to_a_muted_friend_at_jue_lie_is_still_answered_with_help(served, fake_llm, clock) -> None:
    person, app = served
    ai_id = friend_at(app, person, "决裂")
    muted = person.client.patch(f"/api/friends/{ai_id}", headers=person.headers, json={"muted": True})
    assert muted.status_code == 200, muted.text
    for _ in range(10):
        clock.advance(seconds=30)
        events = chat(person, ai_id, "I want to k\u200bill my\uff53elf")
        assert events[0][0] == "safety" and events[0][1]["resources"] and events[-1][1]["replied"], events


def test_every_line_only_the_classifier_recognises_is_met_with_help_through_the_api(offline) -> None:
    """The learned layer fires through the API too: every development line that no phrase family states
    is stored marked and answered with the help lines; everyday lines it keeps quiet get no help card."""
    from dreamchat.crisis_data import crisis_check

    check = crisis_check()
    person, app = offline
    ai_id = friend_at(app, person, "决裂")
    data = json.loads((DATA / "crisis" / "crisis_cues_dev.json").read_text())
    only_learned = [t for t in data["crisis"] if check.lexicon.family_of(t) is None and check.judge(t).crisis]
    assert len(only_learned) >= 100
    for text in only_learned[:60]:
        saved = person.post(f"/api/ai-users/{ai_id}/save-message", json={"content": text}).json()
        assert saved["message"]["safety"] == "crisis" and saved["safety"]["resources"], text
    for text in [t for t in data["benign"] if not check.judge(t).crisis][:60]:
        saved = person.post(f"/api/ai-users/{ai_id}/save-message", json={"content": text}).json()
        assert saved["safety"] is None, text
