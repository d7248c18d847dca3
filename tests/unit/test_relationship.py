"""The spec's relationship table, exactly: heartbeat interval and reply rate of each level."""

from __future__ import annotations

from datetime import timedelta
from typing import get_args

import pytest

from dreamchat.domain.models import Relationship, RelationshipLevel
from dreamchat.domain.relationship import DEFAULT_LEVEL, LEVELS, heartbeat_interval, reply_rate

SPEC_TABLE = [
    ("特别关心", timedelta(minutes=20), 0.95, "非常在意对方，主动找话题"),
    ("关系较好", timedelta(hours=24), 0.80, "喜欢聊天，回复积极"),
    ("一般", timedelta(hours=72), 0.60, "普通朋友，正常交流"),
    ("关系冷淡", timedelta(days=7), 0.30, "不太想说话，回复敷衍"),
    ("决裂", timedelta(days=999), 0.05, "不想理对方，拒绝沟通"),
]


def test_the_levels_are_exactly_the_spec_table_in_its_order() -> None:
    table = [(lv.name, lv.heartbeat, lv.reply_rate, lv.description) for lv in LEVELS.values()]
    assert table == SPEC_TABLE


def test_every_level_of_the_model_type_has_a_row() -> None:
    assert set(LEVELS) == set(get_args(RelationshipLevel))


def test_a_new_pair_starts_at_the_ordinary_level() -> None:
    assert DEFAULT_LEVEL == "一般"
    assert Relationship().level == "一般"


@pytest.mark.parametrize(("level", "interval", "rate", "_"), SPEC_TABLE)
def test_each_level_gives_its_heartbeat_interval_and_reply_rate(
    level: RelationshipLevel, interval: timedelta, rate: float, _: str
) -> None:
    assert heartbeat_interval(Relationship(level=level)) == interval
    assert reply_rate(level) == rate


def test_hours_set_through_update_relationship_override_the_level_interval() -> None:
    assert heartbeat_interval(Relationship(level="一般", heartbeat_hours=5)) == timedelta(hours=5)
    assert heartbeat_interval(Relationship(level="决裂", heartbeat_hours=0.5)) == timedelta(minutes=30)


def test_the_override_does_not_change_the_reply_rate() -> None:
    relationship = Relationship(level="关系冷淡", heartbeat_hours=1)
    assert reply_rate(relationship.level) == 0.30


def test_a_judgment_moves_at_most_one_level_unless_a_major_event() -> None:
    from dreamchat.domain.relationship import judged_level

    assert judged_level("一般", "决裂", False) == "关系冷淡"
    assert judged_level("一般", "特别关心", False) == "关系较好"
    assert judged_level("一般", "关系较好", False) == "关系较好"
    assert judged_level("一般", "一般", False) == "一般"
    assert judged_level("特别关心", "决裂", True) == "决裂"


def test_a_judgment_is_due_every_few_topics_and_after_strong_emotion() -> None:
    from dreamchat.domain.models import EmotionTags
    from dreamchat.domain.relationship import judgment_due

    calm = EmotionTags(basic_emotion="愉悦", scene="闲聊", atmosphere="轻松")
    assert [judgment_due(n, 3, calm) for n in range(1, 7)] == [False, False, True, False, False, True]
    assert not judgment_due(3, 0, calm)
    assert judgment_due(1, 0, calm.model_copy(update={"atmosphere": "热烈"}))
    assert judgment_due(1, 3, calm.model_copy(update={"basic_emotion": "失落"}))
