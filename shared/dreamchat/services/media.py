"""Photos and voice notes a person sends an AI friend: checked from their bytes, kept (the record in the
pair's media partition, the bytes in the blob store under the pair's prefix, so erasing the pair erases
them), and served back only to the pair's own person.

Nothing is stored for an upload that breaks a rule. The upload counts against the account's budget
(`DREAMCHAT_MEDIA_UPLOADS_PER_MINUTE`) before the file is inspected, since inspecting is the costly part.
A message names an upload by its id (`unsent`); a record's `message_id` is then the message's.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from dreamchat import keys
from dreamchat.domain import ids
from dreamchat.domain.media import Inspected, Media, MediaProblem
from dreamchat.domain.models import PairId
from dreamchat.errors import MediaAlreadySent, MediaRefused, NotFound
from dreamchat.ports import BlobStore, Clock, RandomSource
from dreamchat.services.storage.unit_of_work import Storage

log = logging.getLogger(__name__)

# reads an upload's bytes (`dreamchat.adapters.media_files.inspect`): the file as kept, or MediaProblem
Inspector = Callable[[bytes], Inspected]


@dataclass(frozen=True)
class Stored:
    """A media record and its bytes, as served to its person."""

    media: Media
    data: bytes


class MediaService:
    def __init__(
        self,
        storage: Storage,
        blobs: BlobStore,
        clock: Clock,
        random: RandomSource,
        spend: Callable[[str], None],
        inspector: Inspector,
    ) -> None:
        self._storage = storage
        self._blobs = blobs
        self._clock = clock
        self._random = random
        self._spend = spend  # the account's upload budget: TooManyRequests beyond it
        self._inspect = inspector

    def upload(self, pair: PairId, data: bytes) -> Media:
        """Keep a photo or a voice note for a pair (a friend pair of the caller, seen in its current
        generation); MediaRefused naming the rule it breaks, nothing stored."""
        self._spend(pair.account_id)
        try:
            kept = self._inspect(data)
        except MediaProblem as problem:
            extra = {"ai_user_id": pair.ai_user_id, "rule": problem.rule, "bytes": len(data)}
            log.info("media refused", extra=extra)
            raise MediaRefused(problem.rule, str(problem)) from None
        media = self._record(pair, kept)
        self._keep(pair, media, kept.data)
        log.info("media kept", extra={"ai_user_id": pair.ai_user_id, "kind": media.kind, "bytes": media.size})
        return media

    def read(self, account_id: str, media_id: str) -> Stored:
        """A media item of the caller's own pair, with its bytes; NotFound for any other id."""
        ai_user_id = ids.media_ai_user(media_id)
        if ai_user_id is None:
            raise NotFound("no such media")
        pair = PairId(account_id=account_id, ai_user_id=ai_user_id)
        with self._storage.pair(pair) as uow:
            found = uow.media.get(media_id)
        data = self._blobs.get(keys.media_blob(pair, media_id)) if found else None
        if found is None or data is None:
            raise NotFound("no such media")
        return Stored(found.entity, data)

    def unsent(self, pair: PairId, media_id: str) -> Media:
        """The media a message is about to carry: the pair's own, kept and not yet sent with a message
        (NotFound for an id of any other pair or none, MediaAlreadySent once a message carries it). The one
        door from an upload to a message."""
        with self._storage.pair(pair) as uow:
            found = uow.media.get(media_id) if ids.media_ai_user(media_id) == pair.ai_user_id else None
        if found is None:
            raise NotFound("no such media")
        if found.entity.message_id is not None:
            raise MediaAlreadySent("this photo or voice note was sent already")
        return found.entity

    def get(self, pair: PairId, media_id: str) -> Media | None:
        """One of the pair's media records, sent or not (None for any other id)."""
        with self._storage.pair(pair) as uow:
            found = uow.media.get(media_id) if ids.media_ai_user(media_id) == pair.ai_user_id else None
        return found.entity if found else None

    def data(self, pair: PairId, media: Media) -> bytes | None:
        """The bytes of one of the pair's media (None once erased)."""
        return self._blobs.get(keys.media_blob(pair, media.id))

    def erase(self, pair: PairId, media_id: str) -> None:
        """A media record and its bytes gone with the message that carried it (and any work owed on it)."""
        with self._storage.pair(pair) as uow:
            uow.media.remove(media_id)
            if (owed := uow.owed.get("media", media_id)) is not None:
                uow.owed.paid(owed)
            uow.commit()
        self._blobs.delete(keys.media_blob(pair, media_id))

    def of_pair(self, pair: PairId) -> list[Media]:
        """Every media record of the pair, oldest first (for the export)."""
        with self._storage.pair(pair) as uow:
            return uow.media.all()

    def _record(self, pair: PairId, kept: Inspected) -> Media:
        now = self._clock.now()
        return Media(
            id=ids.media_id(now, self._random.random(), pair.ai_user_id),
            account_id=pair.account_id,
            ai_user_id=pair.ai_user_id,
            kind=kept.kind,
            content_type=kept.content_type,
            size=len(kept.data),
            created_at=int(now.timestamp()),
            width=kept.width,
            height=kept.height,
            duration_s=kept.duration_s,
        )

    def _keep(self, pair: PairId, media: Media, data: bytes) -> None:
        """The bytes first, then the record in the pair's generation: a pair forgotten meanwhile fails the
        commit (Gone) and the bytes go again; bytes left by a crash lie under the pair's prefix, erased with it."""
        blob = keys.media_blob(pair, media.id)
        self._blobs.put(blob, data, media.content_type)
        try:
            with self._storage.pair(pair) as uow:
                uow.media.add(media)
                uow.commit()
        except BaseException:
            self._blobs.delete(blob)
            raise
