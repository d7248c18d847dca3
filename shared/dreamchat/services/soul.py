"""The AI's self-image (self_soul) and its relationship with the person.

base_soul belongs to the AI user's owner; self_soul belongs to the pair and only the AI
changes it: through the update_self_soul tool (checked by the domain's rules) or by
reflection. The relationship level is one core entry, written over on every change, and each change is
kept in its history (`dreamchat.domain.core_memory`: the rules of every source).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

from dreamchat.config import Settings
from dreamchat.domain.core_memory import RELATIONSHIP_ID, relationship_change, relationship_entry
from dreamchat.domain.heartbeat import HeartbeatState
from dreamchat.domain.models import (
    AIUser,
    Conversation,
    PairId,
    Relationship,
    RelationshipLevel,
    SelfSoul,
)
from dreamchat.domain.relationship import judged_level
from dreamchat.domain.soul import self_soul_problem
from dreamchat.errors import Contended
from dreamchat.llm.chat_context import persona
from dreamchat.llm.memory_models import FallbackMemoryModels
from dreamchat.ports import Clock
from dreamchat.services.heartbeat_state import HeartbeatStateService
from dreamchat.services.memory_repo import MemoryRepository
from dreamchat.services.storage.session import Versioned
from dreamchat.services.storage.unit_of_work import PairUnitOfWork, Storage, retry_on_conflict

RECENT_MESSAGES = 40


@dataclass(frozen=True)
class Reflection:
    changed: bool
    self_soul: str
    degraded: bool
    refused: str | None = None


class SoulService:
    def __init__(
        self,
        repo: MemoryRepository,
        storage: Storage,
        models: FallbackMemoryModels,
        heartbeats: HeartbeatStateService,
        clock: Clock,
        settings: Settings,
    ) -> None:
        self._repo = repo
        self._storage = storage
        self._models = models
        self._heartbeats = heartbeats
        self._clock = clock
        self._settings = settings

    def view(self, pair: PairId, ai_user: AIUser) -> dict[str, Any]:
        soul = self._repo.self_soul(pair)
        return {
            "base_soul": ai_user.base_soul,
            "self_soul": soul.self_soul,
            "updated_at": soul.updated_at,
            "persona": persona(ai_user.base_soul, soul.self_soul),
        }

    def update_self_soul(self, pair: PairId, ai_user: AIUser, new: str, *, rate_limited: bool = True) -> str | None:
        """Set the self_soul if the rules allow; the problem otherwise."""
        interval = timedelta(hours=self._settings.self_soul_min_hours if rate_limited else 0)
        with self._storage.pair(pair) as uow:
            read = uow.self_soul.get()
            problem = self_soul_problem(new, ai_user.base_soul, read.entity.updated_at, self._clock.now(), interval)
            if problem:
                return problem
            uow.self_soul.save(SelfSoul(self_soul=new.strip(), updated_at=self._now()), read)
            try:
                uow.commit()
            except Contended:
                return "自我认知刚被更新过"
        return None

    def reflect(self, pair: PairId, ai_user: AIUser) -> Reflection:
        """Reflect on recent conversations with the spec's prompt; update only on a real change."""
        soul = self._repo.self_soul(pair)
        recent = self.recent(pair)
        now = self._clock.now().astimezone(ZoneInfo(self._repo.zone(pair, ai_user)))
        result = self._models.reflect(ai_user.name, ai_user.base_soul, recent, soul.self_soul, now)
        proposal = result.value
        if not proposal.changed or proposal.self_soul.strip() == soul.self_soul.strip():
            return Reflection(False, soul.self_soul, result.degraded)
        problem = self.update_self_soul(pair, ai_user, proposal.self_soul, rate_limited=False)
        if problem:
            return Reflection(False, soul.self_soul, result.degraded, problem)
        return Reflection(True, proposal.self_soul.strip(), result.degraded)

    def recent(self, pair: PairId) -> list[Conversation]:
        messages, _ = self._repo.log.messages(pair, before=None, after=None, limit=RECENT_MESSAGES)
        return [Conversation(role=m.role, content=m.content, timestamp=m.timestamp) for m in messages]

    def set_relationship(
        self, pair: PairId, ai_user: AIUser, level: RelationshipLevel, heartbeat_hours: float | None, reason: str
    ) -> Relationship:
        """Change the level (and optionally the heartbeat hours); a change of level is written over the
        pair's current relationship entry in core memory and kept in its history."""

        def write() -> Relationship:
            with self._storage.pair(pair) as uow:
                read = uow.relationship.get()
                updated = Relationship(
                    level=level, heartbeat_hours=heartbeat_hours, reason=reason[:500], updated_at=self._now()
                )
                uow.relationship.save(updated, read)
                if read.entity.level != level:
                    self._record_change(uow, read.entity.level, level, reason)
                uow.commit()
                return updated

        updated = retry_on_conflict(write)
        self._heartbeats.change(pair, ai_user, updated, unchanged)
        return updated

    def judge_relationship(self, pair: PairId, ai_user: AIUser) -> tuple[Relationship, bool, bool]:
        """Let the model judge the level from recent conversations, at most one level at a time unless
        it names a major event: (relationship, changed, degraded)."""
        current = self._repo.relationship(pair)
        now = self._clock.now().astimezone(ZoneInfo(self._repo.zone(pair, ai_user)))
        result = self._models.judge_relationship(current.level, self.recent(pair), now)
        level = judged_level(current.level, result.value.level, result.value.major_event)
        if level == current.level:
            return current, False, result.degraded
        updated = self.set_relationship(pair, ai_user, level, None, result.value.reason)
        return updated, True, result.degraded

    def _record_change(self, uow: PairUnitOfWork, old: RelationshipLevel, new: RelationshipLevel, reason: str) -> None:
        """The current relationship entry written over (a person's edit of it meanwhile fails the commit,
        which is tried again), and the change added to its history."""
        now = self._now()
        entry = next((r for r in uow.core.read_all() if r.entity.id == RELATIONSHIP_ID), None)
        written = relationship_entry(old, new, reason, now)
        uow.core.save(written, entry or Versioned(written))  # none yet: written only while there is none
        uow.core.add(relationship_change(f"core_rel_{now:010d}_{uuid.uuid4().hex[:6]}", old, new, reason, now))

    def _now(self) -> int:
        return int(self._clock.now().timestamp())


def unchanged(state: HeartbeatState) -> HeartbeatState:
    return state
