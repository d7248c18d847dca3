"""A turn accepted, as the stream sends it: its events made whole on the model pool, then handed on."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from dreamchat.services.chat_events import ChatEvent, Failed
from dreamchat.services.model_pool import ModelPool, Slot

log = logging.getLogger(__name__)

NOT_ANSWERED = "这次没能回复，你的消息已经保存。"


@dataclass(frozen=True)
class Turn:
    """A turn accepted: its events `ready` (a replay, or a crisis answered without the model), or their
    `work` to run on a `slot` of the model pool, which is given back once they are made."""

    ready: list[ChatEvent]
    pool: ModelPool | None = None
    slot: Slot | None = None
    work: Callable[[], list[ChatEvent]] | None = None

    async def events(self) -> AsyncIterator[ChatEvent]:
        """The turn's events, all of them made before the first is handed on."""
        events = self.ready
        if self.work is not None and self.pool is not None and self.slot is not None:
            try:
                events = await self.pool.run(self.work)
            except Exception as error:  # noqa: BLE001 - the stream has begun: it must still end with an event
                log.error("chat stream failed", extra={"error": type(error).__name__})
                events = [Failed("internal_error", NOT_ANSWERED)]
            finally:
                self.slot.release()
        for event in events:
            yield event
