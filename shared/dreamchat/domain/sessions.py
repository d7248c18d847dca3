"""Continuous use and the break reminder. Pure: the clock's reading is passed in.

A session is the person's continuous conversation: it starts with a message after a gap of
`GAP_MINUTES` or more and goes on while messages keep coming. After `minutes` of it (the
setting `DREAMCHAT_BREAK_REMINDER_MINUTES`, the 2 hours of China's draft rules on anthropomorphic
AI), the AI's next reply is preceded by a gentle reminder to take a break, at most once per such
period: the next one comes after another `minutes` of continuous use.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

GAP_MINUTES = 15
BREAK_NOTICE = "你们已经连续聊了很久啦，记得起来活动一下、喝点水，让眼睛休息一会儿。我们随时都可以再聊。"


class ContinuousUse(BaseModel):
    """One account's continuous use: when it began, the last message, the last reminder."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    started_at: int
    last_at: int
    reminded_at: int | None = None


def continued(session: ContinuousUse | None, now: int) -> ContinuousUse:
    """The session after a message at `now`: the same one, or a new one after a gap."""
    if session is None or now - session.last_at >= GAP_MINUTES * 60:
        return ContinuousUse(started_at=now, last_at=now)
    return session.model_copy(update={"last_at": max(session.last_at, now)})


def break_due(session: ContinuousUse | None, now: int, minutes: int) -> bool:
    """The person has talked for `minutes` without a pause since the session began or since the
    last reminder (`minutes` 0: never)."""
    if session is None or minutes <= 0 or now - session.last_at >= GAP_MINUTES * 60:
        return False
    since = max(session.started_at, session.reminded_at or 0)
    return now - since >= minutes * 60


def reminded(session: ContinuousUse, now: int) -> ContinuousUse:
    return session.model_copy(update={"reminded_at": now})
