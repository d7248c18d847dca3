"""A new friendship's first day is warm: no 已读不回 in the person's first N messages while the level is the
starting one and nobody changed it; 已读 comes after a human-like pause. Clock and randomness are passed in."""

from __future__ import annotations

from dataclasses import replace

from dreamchat.config import Settings
from dreamchat.domain import reply as replies
from dreamchat.llm.port import Completion, TokenUsage
from dreamchat.services.container import build_services


class Never:
    """A random source whose every draw declines (0.99 is above every reply rate)."""

    def random(self) -> float:
        return 0.99


class AlwaysAnswers:
    def __init__(self) -> None:
        self.asked = 0

    def configured(self, key: str) -> bool:
        return True

    def complete(self, key, messages, **options) -> Completion:
        self.asked += 1
        return Completion("嗯嗯，然后呢", TokenUsage())


def services_for(runtime, **settings):
    fixed = replace(
        runtime,
        random=Never(),
        settings=Settings(
            data_dir=runtime.settings.data_dir,
            run_scheduler=False,
            reply_decision="draw",
            messages_per_minute=10_000,
            **settings,
        ),
    )
    model = AlwaysAnswers()
    return build_services(fixed, gateway=model), model


def turns(services, account_id: str, ai_id: str, count: int) -> list:
    pair, ai_user = services.ai_users.companion(account_id, ai_id)
    return [
        services.chat.respond(pair, ai_user, services.chat.accept(pair, ai_user, f"今天做了第{n}件事"))[-1]
        for n in range(count)
    ]


def test_the_first_ten_messages_of_a_new_pair_are_answered_then_the_draw_decides(runtime) -> None:
    services, model = services_for(runtime)
    ai = services.ai_users.create("acc_new", {"name": "小梦"})
    done = turns(services, "acc_new", ai.id, 12)
    assert [d.replied for d in done] == [True] * 10 + [False] * 2
    assert [d.read_after_ms for d in done[:10]] == [0] * 10
    # declined: 已读 after a pause of 2-8 s (the draw's leftover: 0.99 at 60 % → 7.85 s)
    assert all(2000 <= d.read_after_ms <= 8000 for d in done[10:]), done
    assert model.asked == 10  # a declined turn never asks the model


def test_a_changed_level_ends_the_warm_start(runtime) -> None:
    services, model = services_for(runtime)
    ai = services.ai_users.create("acc_new", {"name": "小梦"})
    pair, ai_user = services.ai_users.companion("acc_new", ai.id)
    services.soul.set_relationship(pair, ai_user, "一般", None, "对方设定")  # set, even to the same level
    assert [d.replied for d in turns(services, "acc_new", ai.id, 3)] == [False] * 3


def test_a_pair_past_its_first_messages_never_reads_the_start_of_its_log(runtime) -> None:
    services, _ = services_for(runtime, warm_start_messages=2)
    ai = services.ai_users.create("acc_new", {"name": "小梦"})
    pair, _ = services.ai_users.companion("acc_new", ai.id)
    reads = []
    real = services.repo.log.person_message_number
    services.repo.log.person_message_number = lambda *a: reads.append(a) or real(*a)
    turns(services, "acc_new", ai.id, 1)
    assert len(reads) == 1  # a new pair: read
    for _ in range(3):  # compressed topics holding more messages than the window
        runtime.clock.advance(hours=1)
        for n in range(9):
            services.topics.record(pair, "user", f"第{n}句")
        services.compression.compress_now(pair)
    assert sum(m.message_count for m in services.repo.mid_terms(pair)) >= services.repo.log.message_window(2)
    assert [d.replied for d in turns(services, "acc_new", ai.id, 2)] == [False, False]
    assert len(reads) == 1


def test_the_window_is_a_setting(runtime) -> None:
    services, _ = services_for(runtime, warm_start_messages=2)
    ai = services.ai_users.create("acc_new", {"name": "小梦"})
    assert [d.replied for d in turns(services, "acc_new", ai.id, 3)] == [True, True, False]
    services, _ = services_for(runtime, warm_start_messages=0)
    ai = services.ai_users.create("acc_two", {"name": "阿青"})
    assert [d.replied for d in turns(services, "acc_two", ai.id, 1)] == [False]


def test_the_rules_are_pure() -> None:
    assert replies.warm_start("一般", False, 1, 10) and replies.warm_start("一般", False, 10, 10)
    assert not replies.warm_start("一般", False, 11, 10)
    assert not replies.warm_start("一般", False, None, 10)
    assert not replies.warm_start("一般", True, 1, 10)
    assert not replies.warm_start("关系较好", False, 1, 10)
    assert not replies.warm_start("一般", False, 1, 0)
    warm = replies.decide_reply("一般", None, 12, "今天去超市了", 0.99, warm=True)
    cold = replies.decide_reply("一般", None, 12, "今天去超市了", 0.99)
    assert warm.inclined and not cold.inclined and warm.probability == cold.probability
    assert replies.read_pause_seconds(0.0, 2400) == 2.0 and replies.read_pause_seconds(1.0, 2400) == 8.0
    assert replies.read_pause_seconds(0.5, 1) == 1  # capped like typing delays
