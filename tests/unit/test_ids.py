"""Ids that sort by time: message ids keep the turn order even when the clock does not move."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from dreamchat.adapters.runtime import SeededRandom
from dreamchat.domain.ids import memory_id, message_id

NOW = datetime(2026, 3, 15, 12, 0, 0, 123456, tzinfo=UTC)


def test_a_message_id_is_m_then_sixteen_digits_of_microseconds_then_six_hex() -> None:
    assert re.fullmatch(r"m\d{16}[0-9a-f]{6}", message_id(NOW, 0.5))
    assert message_id(NOW, 0.5) == f"m{int(NOW.timestamp() * 1_000_000):016d}800000"


def test_a_later_message_gets_a_greater_id_whatever_the_random_part() -> None:
    assert message_id(NOW, 0.999999) < message_id(NOW + timedelta(microseconds=1), 0.0)


def test_a_message_id_made_at_the_same_instant_is_strictly_after_the_previous_one() -> None:
    first = message_id(NOW, 0.9)
    second = message_id(NOW, 0.1, after=first)
    assert second > first
    assert int(second[1:17]) == int(first[1:17]) + 1


def test_a_message_id_is_after_the_previous_one_even_when_the_clock_went_back() -> None:
    first = message_id(NOW, 0.5)
    assert message_id(NOW - timedelta(seconds=5), 0.5, after=first) > first


def test_a_later_clock_reading_wins_over_the_previous_id() -> None:
    first = message_id(NOW, 0.5)
    later = NOW + timedelta(seconds=3)
    assert message_id(later, 0.5, after=first) == message_id(later, 0.5)


def test_a_previous_id_of_another_shape_is_ignored() -> None:
    assert message_id(NOW, 0.5, after="legacy-42") == message_id(NOW, 0.5)


def test_a_turn_of_many_messages_at_one_instant_stays_in_order() -> None:
    rng = SeededRandom(5)
    ids: list[str] = []
    for _ in range(20):
        ids.append(message_id(NOW, rng.random(), after=ids[-1] if ids else None))
    assert ids == sorted(ids)
    assert len(set(ids)) == 20


def test_a_memory_id_names_its_tier_and_sorts_by_time() -> None:
    assert memory_id("mid", NOW, 0.25) == f"mid_{int(NOW.timestamp()):010d}_400000"
    assert memory_id("core", NOW, 0.99) < memory_id("core", NOW + timedelta(seconds=1), 0.0)
