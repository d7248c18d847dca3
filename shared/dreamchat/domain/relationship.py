"""The spec's relationship levels: heartbeat interval and reply rate of each."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from dreamchat.domain.models import EmotionTags, Relationship, RelationshipLevel


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


# worst to best: a judgment moves along this line
ORDER: tuple[RelationshipLevel, ...] = ("决裂", "关系冷淡", "一般", "关系较好", "特别关心")


def judged_level(current: RelationshipLevel, proposed: RelationshipLevel, major_event: bool) -> RelationshipLevel:
    """The level a judgment leads to: at most one step toward the proposal, unless a major event."""
    here, there = ORDER.index(current), ORDER.index(proposed)
    if major_event or abs(there - here) <= 1:
        return proposed
    return ORDER[here + (1 if there > here else -1)]


def strong_emotion(tags: EmotionTags) -> bool:
    """A topic that may have moved the relationship: a heated one, or one that left the AI low."""
    return tags.atmosphere == "热烈" or tags.basic_emotion == "失落"


def judgment_due(topics: int, every: int, tags: EmotionTags) -> bool:
    """After a compression: every `every` topics (0: never on a count) and after strong emotion."""
    return strong_emotion(tags) or (every > 0 and topics % every == 0)
