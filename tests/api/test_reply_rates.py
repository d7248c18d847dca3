"""The draw's rates hold whatever the model does: the draw is made in code (seeded here), and a turn the
draw declines is 已读不回 without asking the model. Ordinary messages (none always answered) are drawn at the
level's rest rate (`dreamchat.domain.reply.rest_rate`), which keeps the spec's table over a realistic mix
(bench/reply_rates.py)."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient

from dreamchat.adapters.runtime import SeededRandom
from dreamchat.api.app import create_app
from dreamchat.config import DEFAULT_FAREWELLS, Settings
from dreamchat.crisis_data import crisis_check
from dreamchat.domain.asked import always_answered
from dreamchat.domain.relationship import LEVELS
from dreamchat.domain.reply import rest_rate
from dreamchat.llm.port import Completion, TokenUsage
from dreamchat.services.container import build_services
from dreamchat.wiring import build_runtime
from tests.api.conftest import register
from tests.api.sse import parse_sse

TURNS = 200
PER_AI_USER = 10  # a fresh AI user every few turns keeps each context short (and the test fast)
# ordinary messages: no question, nothing urgent, nothing boring
ORDINARY = [
    "今天去超市买了点水果",
    "下午把房间收拾了一遍",
    "路上看到一只很胖的橘猫",
    "晚饭做了番茄炒蛋",
    "公司楼下新开了一家面包店",
    "最近在追一部老电视剧",
    "周末打算去爬山",
    "刚下班，地铁上人好多",
]
CHECK = crisis_check()


def test_the_ordinary_messages_are_ordinary_to_the_crisis_check() -> None:
    """Distress is always answered (docs/safety.md, "The person comes first"): the rates are the draw's on the rest."""
    assert not [text for text in ORDINARY if CHECK.judge(text).distress]


def test_the_ordinary_messages_are_not_always_answered() -> None:
    assert [always_answered(text, None, DEFAULT_FAREWELLS) for text in ORDINARY] == [None] * len(ORDINARY)


def drawn_rate(level: str) -> float:
    return max(rest_rate(level), 0.02)  # the draw's floor


def within_sampling_error(share: float, rate: float) -> bool:
    return abs(share - rate) <= 3 * math.sqrt(rate * (1 - rate) / TURNS)  # three standard errors


def settings_for(tmp_path, **overrides) -> Settings:
    return Settings(
        data_dir=tmp_path / "data",
        run_scheduler=False,
        reply_decision="draw",
        messages_per_minute=100_000,
        model_calls_per_minute=100_000,
        access_token_minutes=60 * 24 * 365,
        **overrides,
    )


def share_answered(services, account_id: str, level: str, clock, turn: Callable[[str, str], bool]) -> float:
    """`TURNS` ordinary messages at `level` (daytime: 20:00-20:17 in Shanghai); the share answered."""
    replied = 0
    for n in range(TURNS):
        if n % PER_AI_USER == 0:
            ai = services.ai_users.create(account_id, {"name": "小梦"})
            pair, ai_user = services.ai_users.companion(account_id, ai.id)
            services.soul.set_relationship(pair, ai_user, level, None, "测试")
        clock.advance(seconds=1)
        replied += turn(ai.id, ORDINARY[n % len(ORDINARY)])
    return replied / TURNS


class AlwaysAnswers:
    """A chat model that answers every message it is asked about."""

    def __init__(self) -> None:
        self.asked = 0

    def configured(self, key: str) -> bool:
        return True

    def complete(self, key, messages, **options) -> Completion:
        self.asked += 1
        return Completion("嗯嗯，然后呢", TokenUsage())


def test_reply_rates_per_level_match_the_rest_rates_of_the_spec_table(tmp_path, clock) -> None:
    model = AlwaysAnswers()
    settings = settings_for(tmp_path)
    services = build_services(build_runtime(settings, clock=clock, random=SeededRandom(2026)), gateway=model)
    account, _ = services.auth.register("rates", "correct-horse-battery", "127.0.0.1")

    def turn(ai_id: str, content: str) -> bool:
        pair, ai_user = services.ai_users.companion(account.id, ai_id)
        events = services.chat.respond(pair, ai_user, services.chat.accept(pair, ai_user, content))
        return events[-1].replied

    measured = {level: share_answered(services, account.id, level, clock, turn) for level in LEVELS}
    assert {
        level: within_sampling_error(share, drawn_rate(level)) for level, share in measured.items()
    } == dict.fromkeys(LEVELS, True), measured
    assert model.asked == round(sum(measured.values()) * TURNS)  # a declined turn never asks the model


@pytest.mark.parametrize("level", ["决裂", "关系冷淡"])  # 决裂 is the example (it answered 20 of 20)
def test_through_the_api_a_model_that_always_answers_still_keeps_the_rate(tmp_path, clock, fake_llm, level) -> None:
    settings = settings_for(tmp_path, llm_base_url=fake_llm.base_url, llm_api_key="test-key", llm_max_retries=0)
    app = create_app(settings, build_runtime(settings, clock=clock, random=SeededRandom(17)))
    with TestClient(app) as client:
        person = register(client, "rates")

        def turn(ai_id: str, content: str) -> bool:
            events = parse_sse(person.post(f"/api/ai-users/{ai_id}/chat", json={"content": content}).text)
            return events[-1][1]["replied"]

        share = share_answered(app.state.services, person.id, level, clock, turn)
        last = person.get("/api/ai-users").json()["ai_users"][-1]["id"]
        history = person.get(f"/api/ai-users/{last}/messages").json()["messages"]
    assert within_sampling_error(share, drawn_rate(level)), share
    assert len(fake_llm.requests) == round(share * TURNS)  # the model was asked only when the draw said yes
    unanswered = [m for m in history if m["role"] == "user" and m["read_no_reply"]]
    assert len(unanswered) == sum(m["role"] == "user" for m in history) - sum(m["role"] == "assistant" for m in history)
