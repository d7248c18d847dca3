"""The spec's relationship levels: heartbeat interval and reply rate of each."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from dreamchat.domain.models import Relationship, RelationshipLevel


@dataclass(frozen=True)
class Level:
    name: RelationshipLevel
    heartbeat: timedelta
    reply_rate: float
    description: str


LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level("特别关心", timedelta(minutes=20), 0.95, "非常在意对方，主动找话题"),
        Level("关系较好", timedelta(hours=24), 0.80, "喜欢聊天，回复积极"),
        Level("一般", timedelta(hours=72), 0.60, "普通朋友，正常交流"),
        Level("关系冷淡", timedelta(days=7), 0.30, "不太想说话，回复敷衍"),
        Level("决裂", timedelta(days=999), 0.05, "不想理对方，拒绝沟通"),
    )
}
DEFAULT_LEVEL: RelationshipLevel = "一般"


def heartbeat_interval(relationship: Relationship) -> timedelta:
    """The level's interval, unless the AI set its own hours through update_relationship."""
    if relationship.heartbeat_hours is not None:
        return timedelta(hours=relationship.heartbeat_hours)
    return LEVELS[relationship.level].heartbeat


def reply_rate(level: RelationshipLevel) -> float:
    return LEVELS[level].reply_rate
