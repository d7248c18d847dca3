"""The tools the AI may call during a turn, run: their arguments and descriptions, as the model reads
them, are `dreamchat.llm.tools`.

Arguments are validated; a bad call returns an error to the model, never raises.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from zoneinfo import ZoneInfo

from pydantic import ValidationError

from dreamchat.domain.emotions import DEFAULTS
from dreamchat.domain.heartbeat import add_scheduled, remove_scheduled
from dreamchat.domain.models import (
    AIUser,
    PairId,
    ScheduledHeartbeat,
)
from dreamchat.llm.chat_context import render_quote, said_as_past
from dreamchat.llm.chat_prompts import local_time
from dreamchat.llm.tools import (
    TOOLS,
    Args,
    GetCurrentState,
    RecallMemory,
    RemoveScheduledHeartbeat,
    SearchWeb,
    SetScheduledHeartbeat,
    UpdateRelationship,
    UpdateSelfSoul,
)
from dreamchat.ports import Clock, SearchProvider, SearchUnavailable
from dreamchat.services.context import ContextService, Recalled
from dreamchat.services.heartbeat_state import HeartbeatStateService
from dreamchat.services.memory_repo import MemoryRepository
from dreamchat.services.soul import SoulService


@dataclass
class ToolBox:
    """Runs the AI's tool calls for one pair during one turn."""

    pair: PairId
    ai_user: AIUser
    repo: MemoryRepository
    context: ContextService
    soul: SoulService
    heartbeats: HeartbeatStateService
    search: SearchProvider
    clock: Clock
    results: int = 5
    level_changed: bool = False  # the relationship level changes at most once per turn
    _zone: str = field(default="", init=False, repr=False)  # the pair's, read once a turn when a tool needs it

    def run(self, name: str, arguments: dict[str, Any]) -> str:
        if name not in TOOLS:
            return _answer(error=f"unknown tool {name}")
        try:
            args = TOOLS[name][0].model_validate(arguments)
        except ValidationError as error:
            problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in error.errors())
            return _answer(error=f"invalid arguments: {problems}")
        tool: Callable[[Args], str] = getattr(self, f"_{name}")
        return tool(args)

    def _update_self_soul(self, args: UpdateSelfSoul) -> str:
        problem = self.soul.update_self_soul(self.pair, self.ai_user, args.new_content)
        return _answer(error=problem) if problem else _answer(ok=True)

    def _update_relationship(self, args: UpdateRelationship) -> str:
        current = self.repo.relationship(self.pair)
        if self.level_changed and args.level != current.level:
            return _answer(error="这一轮已经调整过关系等级了，关系不会一下子变那么多", level=current.level)
        updated = self.soul.set_relationship(self.pair, self.ai_user, args.level, args.heartbeat_hours, args.reason)
        self.level_changed = self.level_changed or updated.level != current.level
        return _answer(ok=True, level=updated.level, heartbeat_hours=updated.heartbeat_hours)

    def _set_scheduled_heartbeat(self, args: SetScheduledHeartbeat) -> str:
        entry = ScheduledHeartbeat(hour=args.hour, minute=args.minute, message_template=args.message_template)
        try:
            state = self._change(lambda s: add_scheduled(s, entry))
        except ValueError as error:
            return _answer(error=str(error))
        return _answer(ok=True, scheduled=[s.model_dump() for s in state.scheduled])

    def _remove_scheduled_heartbeat(self, args: RemoveScheduledHeartbeat) -> str:
        removed: list[bool] = []
        state = self._change(lambda s: _remember(removed, remove_scheduled(s, args.hour, args.minute)))
        if not removed[-1]:
            return _answer(error=f"no scheduled heartbeat at {args.hour:02d}:{args.minute:02d}")
        return _answer(ok=True, scheduled=[s.model_dump() for s in state.scheduled])

    def _get_current_state(self, args: GetCurrentState) -> str:
        relationship = self.repo.relationship(self.pair)
        state = self.heartbeats.get(self.pair)
        mids = self.repo.mid_terms(self.pair)
        mood = max(mids, key=lambda m: m.created_at).emotion_tags.basic_emotion if mids else DEFAULTS["basic_emotion"]
        due = self.heartbeats.next_due(self.pair, self.ai_user, relationship)
        zone = self._pair_zone()
        return _answer(
            time=local_time(self.clock.now(), zone),
            timezone=zone,
            relationship=relationship.level,
            mood=mood,
            next_heartbeat=local_time(due.at, zone) if due else None,
            scheduled_heartbeats=[f"{s.hour:02d}:{s.minute:02d} {s.message_template}".strip() for s in state.scheduled],
        )

    def _search_web(self, args: SearchWeb) -> str:
        try:
            results = self.search.search(args.query, self.results)
        except SearchUnavailable as error:
            return _answer(error=str(error))
        if not results:
            return _answer(results=[], note="没有搜到相关结果")
        return _answer(
            results=[
                {"source": n, "title": r.title, "url": r.url, "snippet": r.snippet} for n, r in enumerate(results, 1)
            ],
            note="用到搜索结果时，像朋友聊天一样自然地说出消息来源（网站名或链接）",
        )

    def _recall_memory(self, args: RecallMemory) -> str:
        zone = self._pair_zone()
        found = self.context.recall(self.pair, args.query, zone=zone)  # the time the query names, in the pair's zone
        tz = ZoneInfo(zone)
        # the log, the memory of last resort: the person's own words no recalled memory holds
        said = [render_quote(q, tz) for q in self.context.said_in_log(self.pair, args.query, found)]
        if not found and not said:
            return _answer(found=[], note="没有找到相关的长期记忆")
        return _answer(
            found=[
                {
                    "title": r.detail.title,
                    "detail": r.detail.detail_content,
                    "said": [render_quote(q, tz) for q in r.said],
                    **_changed(r, tz),
                }
                for r in found
            ],
            said_in_log=said or None,
        )

    def _pair_zone(self) -> str:
        if not self._zone:
            self._zone = self.repo.zone(self.pair, self.ai_user)
        return self._zone

    def _change(self, edit: Any) -> Any:
        relationship = self.repo.relationship(self.pair)
        return self.heartbeats.change(self.pair, self.ai_user, relationship, edit)


def _changed(recalled: Recalled, tz: ZoneInfo) -> dict[str, list[str]]:
    """The memory's facts that later changed, said as past with what holds now (none: no field)."""
    said = said_as_past(recalled.changed, tz)
    return {"changed": said} if said else {}


def _remember(box: list[bool], result: tuple[Any, bool]) -> Any:
    box.append(result[1])
    return result[0]


def _answer(**fields: Any) -> str:
    return json.dumps({k: v for k, v in fields.items() if v is not None or k == "next_heartbeat"}, ensure_ascii=False)
