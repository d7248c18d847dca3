"""Takedowns: an operator makes an AI user private at once and its owner cannot make it public again until
an operator restores it. Its friendships end for everyone else (`FriendListService.ended`: `taken_down`);
every person's memory of it is kept (they may export it or forget it). Both go through
`AIUserService.change`, over the version read, so an owner's change racing a takedown never undoes it."""

from __future__ import annotations

import logging

from dreamchat.domain.models import Account, AIUser, Moderation
from dreamchat.errors import Conflict, NotFound
from dreamchat.ports import Clock
from dreamchat.services.ai_users import AIUserService
from dreamchat.services.operators import OperatorService

log = logging.getLogger(__name__)


class TakedownService:
    def __init__(self, ai_users: AIUserService, operators: OperatorService, clock: Clock) -> None:
        self._ai_users = ai_users
        self._operators = operators
        self._clock = clock

    def take_down(self, ai_user_id: str, note: str, report_id: str | None = None) -> AIUser | None:
        """Make the AI user private, saying why (`note`, for its owner); None when it is gone. Taken down
        again, it keeps whether it was public before the first takedown (a restore brings that back)."""
        at = self._epoch()

        def down(current: AIUser) -> AIUser:
            was_public = current.moderation.was_public if current.moderation else current.visibility == "public"
            moderation = Moderation(note=note, at=at, was_public=was_public, report_id=report_id)
            return current.model_copy(update={"visibility": "private", "moderation": moderation, "updated_at": at})

        try:
            taken = self._ai_users.change(ai_user_id, down)
        except NotFound:  # deleted meanwhile: nothing is left to take down
            return None
        log.info("ai user taken down", extra={"ai_user_id": ai_user_id, "report_id": report_id})
        return taken

    def restore(self, operator: Account, ai_user_id: str) -> AIUser:
        """Lift a takedown: public again if it was public before; Conflict unless it is taken down."""
        at = self._epoch()

        def lifted(current: AIUser) -> AIUser:
            if current.moderation is None:
                raise Conflict("this AI user is not taken down")
            visibility = "public" if current.moderation.was_public else current.visibility
            return current.model_copy(update={"visibility": visibility, "moderation": None, "updated_at": at})

        restored = self._ai_users.change(ai_user_id, lifted)
        self._operators.record(operator, "ai_user.restore", target=ai_user_id, account_id=restored.owner_id)
        return restored

    def _epoch(self) -> int:
        return int(self._clock.now().timestamp())
