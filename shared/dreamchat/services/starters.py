"""The starter characters shipped with the product (`shared/dreamchat/data/starters.json`): seeded as public
AI users of the system account, so a fresh install's discover screen is not empty.

The system account is only an owner id: nobody can log in as it, so nobody but an operator changes a starter.
Seeding is idempotent and runs at every start (`dreamchat.api.app.create_app`, `DREAMCHAT_STARTERS`): a
starter already stored is left exactly as it is, so an operator's takedown stands across restarts and a
starter is never written twice, on any store. Two starts at once: one write lands, the other finds it there."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from dreamchat.domain.models import AIUser
from dreamchat.domain.personas import first_problem
from dreamchat.ports import Clock, StoreError
from dreamchat.services.storage.unit_of_work import Storage

log = logging.getLogger(__name__)

STARTERS_FILE = "starters.json"


@dataclass(frozen=True)
class Starters:
    """The characters to seed and the owner id they are seeded under."""

    owner_id: str
    characters: tuple[dict[str, Any], ...]


@cache
def shipped() -> Starters:
    """The shipped file, read once per process."""
    document = json.loads(resources.files("dreamchat").joinpath("data", STARTERS_FILE).read_bytes())
    return Starters(document["owner_id"], tuple(document["starters"]))


def starter_ai_user(owner_id: str, fields: dict[str, Any], now: int) -> AIUser:
    """A starter as it is stored: public, owned by the system account; ValueError when its name or greeting
    breaks the rule every AI user keeps (`dreamchat.domain.personas.first_problem`)."""
    found = first_problem(fields)
    if found is not None:
        raise ValueError(f"starter {fields.get('id')}: {found[0]}: {found[1]}")
    return AIUser(owner_id=owner_id, visibility="public", created_at=now, updated_at=now, **fields)


class StarterService:
    def __init__(self, storage: Storage, clock: Clock, starters: Starters | None = None) -> None:
        self._storage = storage
        self._clock = clock
        self._starters = starters or shipped()

    def on_start(self) -> None:
        """`seed` as a start runs it: a store out of reach now (a cold start under throttling) must not stop the
        app from serving; the next start seeds what is missing."""
        try:
            self.seed()
        except StoreError as error:
            log.warning("starters not seeded: %s", type(error).__name__)

    def seed(self) -> int:
        """Store each starter not stored yet; how many this call stored."""
        now = int(self._clock.now().timestamp())
        added = sum(self._seed(starter_ai_user(self._starters.owner_id, f, now)) for f in self._starters.characters)
        log.info("starters seeded added=%d shipped=%d", added, len(self._starters.characters))
        return added

    def _seed(self, ai_user: AIUser) -> bool:
        with self._storage.begin() as uow:
            if uow.ai_users.get(ai_user.id) is not None:
                return False  # stored before: left as it is (a takedown stands)
            uow.ai_users.add(ai_user)
            return uow.committed()  # False: another start stored it meanwhile
