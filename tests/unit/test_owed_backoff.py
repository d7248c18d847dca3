"""Owed work waits longer after each failed attempt, up to a cap, and counts its attempts."""

from __future__ import annotations

from dreamchat.config import Settings
from dreamchat.domain.owed import Backoff


def test_the_wait_doubles_per_attempt_up_to_the_cap() -> None:
    backoff = Backoff(base_seconds=600, max_seconds=3600)
    assert [backoff.delay(n) for n in range(6)] == [600, 1200, 2400, 3600, 3600, 3600]
    assert backoff.delay(10_000) == 3600  # no overflow, however long the outage


def test_a_degraded_result_is_first_due_one_base_wait_after_it_was_stored() -> None:
    work = Backoff(base_seconds=600, max_seconds=3600).first("extract", 1000, "long_1", ("mid_a", "mid_b"))
    assert (work.kind, work.subject, work.sources) == ("extract", "long_1", ["mid_a", "mid_b"])
    assert (work.since, work.attempts, work.due_at) == (1000, 0, 1600)


def test_each_attempt_is_counted_and_backs_the_next_one_off() -> None:
    backoff = Backoff(base_seconds=600, max_seconds=3600)
    work = backoff.first("reflect", 0)
    once = backoff.attempted(work, 2000)
    twice = backoff.attempted(once, 5000)
    assert (once.attempts, once.due_at) == (1, 2000 + 1200)
    assert (twice.attempts, twice.due_at) == (2, 5000 + 2400)
    assert twice.since == 0  # when the offline result was stored stays


def test_the_settings_give_the_back_off_and_a_cap_below_the_base_is_the_base() -> None:
    assert Settings(heal_backoff_seconds=60, heal_backoff_max_seconds=600).heal_backoff == Backoff(60, 600)
    assert Settings(heal_backoff_seconds=600, heal_backoff_max_seconds=60).heal_backoff.delay(3) == 600
