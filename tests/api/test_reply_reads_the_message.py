"""The reply decision reads the message (issue 40): a question or request to the AI, a memory question, a
goodnight and an answer to the AI's own question are answered in every seeded run at 一般 (set, so no warm
first day); at 决裂 the same messages go to the draw. Through the API, with the reply draw on."""

from __future__ import annotations

import logging

import pytest

from tests.api.test_person_first import chat, friend_at, serve, settings_for
from tests.fakes.fake_llm import Reply

AI_ASKS = "在听歌呢\n你最近在听什么？"  # every answer of the fake ends with a question
ALWAYS = [
    ("question", "你最近在听什么歌？"),
    ("memory", "你还记得我家狗叫什么吗"),
    ("farewell", "好困，我先睡了，晚安"),
]
SEEDS = (3, 40)
FRIENDS = 10  # per seed: each a fresh friend at the level, so every run draws again


def answered_over_seeds(tmp_path, clock, fake_llm, level: str, content: str, after_question: bool = False):
    """Per run, (replied, the done event's reason) for `content` sent to a fresh friend at `level`;
    `after_question`: the AI asked a question just before (a question of the person's, always answered)."""
    fake_llm.default = lambda body: Reply.text(AI_ASKS)
    outcomes = []
    for seed in SEEDS:
        for person, app in serve(settings_for(tmp_path / f"{level}-{seed}", fake_llm), clock, seed=seed):
            for _ in range(FRIENDS):
                ai_id = friend_at(app, person, level)
                if after_question:
                    clock.advance(seconds=5)
                    assert chat(person, ai_id, "你在干嘛呀？")[-1][1]["replied"]
                clock.advance(seconds=5)
                done = chat(person, ai_id, content)[-1][1]
                outcomes.append((done["replied"], done["reason"]))
    return outcomes


@pytest.mark.parametrize(("kind", "content"), ALWAYS, ids=[k for k, _ in ALWAYS])
def test_at_an_ordinary_level_a_message_that_asks_is_answered_in_every_run(
    tmp_path, clock, fake_llm, kind, content
) -> None:
    outcomes = answered_over_seeds(tmp_path, clock, fake_llm, "一般", content)
    assert outcomes == [(True, kind)] * len(SEEDS) * FRIENDS


def test_an_answer_to_the_ais_own_question_is_answered_in_every_run(tmp_path, clock, fake_llm) -> None:
    outcomes = answered_over_seeds(tmp_path, clock, fake_llm, "一般", "周杰伦的晴天，单曲循环", after_question=True)
    assert outcomes == [(True, "answer")] * len(SEEDS) * FRIENDS


def test_the_same_runs_leave_an_ordinary_message_sometimes_unread(tmp_path, clock, fake_llm) -> None:
    """The control: the same seeded draws at 一般 read a plain statement without a reply now and then."""
    outcomes = answered_over_seeds(tmp_path, clock, fake_llm, "一般", "今天去超市买了点水果")
    assert (False, "read_no_reply") in outcomes and (True, None) in outcomes
    assert {reason for _, reason in outcomes} <= {None, "read_no_reply"}


@pytest.mark.parametrize(("kind", "content"), ALWAYS, ids=[k for k, _ in ALWAYS])
def test_at_the_break_up_the_rule_does_not_apply(tmp_path, clock, fake_llm, kind, content) -> None:
    outcomes = answered_over_seeds(tmp_path, clock, fake_llm, "决裂", content)
    replied = sum(r for r, _ in outcomes)
    assert replied <= len(outcomes) // 4  # 5 %: most go unanswered
    assert (False, "read_no_reply") in outcomes and all(reason != kind for _, reason in outcomes)


def test_the_reason_is_logged_without_the_message(tmp_path, clock, fake_llm, caplog) -> None:
    fake_llm.default = lambda body: Reply.text(AI_ASKS)
    with caplog.at_level(logging.INFO, logger="dreamchat.services.reply_draw"):
        for person, app in serve(settings_for(tmp_path, fake_llm), clock):
            chat(person, friend_at(app, person, "一般"), "你还记得我家狗叫什么吗")
    [record] = [r for r in caplog.records if r.getMessage() == "reply decision"]
    assert record.reason == "memory" and record.replies is True
    assert "狗" not in str(record.__dict__)
