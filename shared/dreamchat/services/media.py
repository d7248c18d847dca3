"""Photos and voice notes a person sends an AI friend: checked from their bytes, kept (the record in the
pair's media partition, the bytes in the blob store under the pair's prefix, so erasing the pair erases
them), and served back only to the pair's own person.

Nothing is stored for an upload that breaks a rule. The upload counts against the account's budget
(`DREAMCHAT_MEDIA_UPLOADS_PER_MINUTE`) before the file is inspected, since inspecting is the costly part.
A message names an upload by its id (`unsent`); a record's `message_id` is then the message's.

With S3 (`SignedBlobs`) no file crosses the Lambda's 6 MB payload: the person fetches a photo through a
presigned GET (`fetch` gives a `Link`), and may send a large one through a presigned POST (`start_upload`)
to a pending key of the pair; the first `unsent` naming it claims it with the same checks as `upload`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from dreamchat import keys
from dreamchat.domain import ids
from dreamchat.domain.media import Inspected, Media, MediaProblem, check_size, kind_of
from dreamchat.domain.models import PairId
from dreamchat.errors import Contended, MediaAlreadySent, MediaRefused, NotFound, UploadsUnavailable
from dreamchat.ports import BlobStore, Clock, RandomSource, SignedBlobs, UploadForm
from dreamchat.services.storage.unit_of_work import Storage

log = logging.getLogger(__name__)

# reads an upload's bytes (`dreamchat.adapters.media_files.inspect`): the file as kept, or MediaProblem
Inspector = Callable[[bytes], Inspected]


@dataclass(frozen=True)
class Stored:
    """A media record and its bytes, as served to its person."""

    media: Media
    data: bytes


@dataclass(frozen=True)
class Link:
    """Where the person fetches a media item straight from S3, good for `seconds`."""

    media: Media
    url: str
    seconds: int


@dataclass(frozen=True)
class PendingUpload:
    """A presigned POST of one file to the pair's pending key, claimed by `unsent(pair, media_id)`."""

    media_id: str
    form: UploadForm
    seconds: int


class MediaService:
    def __init__(
        self,
        storage: Storage,
        blobs: BlobStore,
        clock: Clock,
        random: RandomSource,
        spend: Callable[[str], None],
        inspector: Inspector,
        url_seconds: int = 300,
    ) -> None:
        self._storage = storage
        self._blobs = blobs
        self._clock = clock
        self._random = random
        self._spend = spend  # the account's upload budget: TooManyRequests beyond it
        self._inspect = inspector
        self._signer = blobs if isinstance(blobs, SignedBlobs) else None  # S3 signs; a directory does not
        self._url_seconds = url_seconds  # DREAMCHAT_MEDIA_URL_SECONDS

    @property
    def signs_links(self) -> bool:
        """True where files may go straight to the blob store and come back from it (S3)."""
        return self._signer is not None

    def upload(self, pair: PairId, data: bytes) -> Media:
        """Keep a photo or a voice note for a pair (a friend pair of the caller, seen in its current
        generation); MediaRefused naming the rule it breaks, nothing stored."""
        self._spend(pair.account_id)
        kept = self._checked(pair, data)
        media = self._record(pair, kept)
        self._keep(pair, media, kept.data)
        log.info("media kept", extra={"ai_user_id": pair.ai_user_id, "kind": media.kind, "bytes": media.size})
        return media

    def start_upload(self, pair: PairId, content_type: str, size: int) -> PendingUpload:
        """A presigned POST for a file the client declares (type and size checked now, the bytes when it is
        claimed); UploadsUnavailable without S3, MediaRefused for a type or size no upload may have."""
        if self._signer is None:
            raise UploadsUnavailable("this server takes files at POST /api/ai-users/{id}/media (multipart)")
        declared = content_type.split(";")[0].strip().lower()
        try:
            check_size(kind_of(declared), size)
        except MediaProblem as problem:
            raise MediaRefused(problem.rule, str(problem)) from None
        self._spend(pair.account_id)
        media_id = ids.media_id(self._clock.now(), self._random.random(), pair.ai_user_id)
        key = keys.media_upload_blob(pair, media_id)
        form = self._signer.upload_form(key, declared, size, self._url_seconds, dict([keys.PENDING_UPLOAD_TAG]))
        log.info("media upload signed", extra={"ai_user_id": pair.ai_user_id, "bytes": size})
        return PendingUpload(media_id, form, self._url_seconds)

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

    def fetch(self, account_id: str, media_id: str) -> Stored | Link:
        """What the person gets for a media item of their own pair: with S3 a presigned GET (the bytes never
        pass through the Lambda), else the bytes; NotFound for any other id."""
        if self._signer is None:
            return self.read(account_id, media_id)
        ai_user_id = ids.media_ai_user(media_id)
        pair = PairId(account_id=account_id, ai_user_id=ai_user_id) if ai_user_id else None
        found = self._found(pair, media_id) if pair else None
        if pair is None or found is None:
            raise NotFound("no such media")
        url = self._signer.download_url(keys.media_blob(pair, media_id), found.content_type, self._url_seconds)
        return Link(found, url, self._url_seconds)

    def unsent(self, pair: PairId, media_id: str) -> Media:
        """The media a message is about to carry: the pair's own, kept and not yet sent with a message
        (NotFound for an id of any other pair or none, MediaAlreadySent once a message carries it). The one
        door from an upload to a message: a presigned upload is claimed here (MediaRefused, nothing kept, when
        it breaks a rule)."""
        found = self._found(pair, media_id)
        if found is None and self._signer is not None and ids.media_ai_user(media_id) == pair.ai_user_id:
            found = self._claim(pair, media_id)
        if found is None:
            raise NotFound("no such media")
        if found.message_id is not None:
            raise MediaAlreadySent("this photo or voice note was sent already")
        return found

    def get(self, pair: PairId, media_id: str) -> Media | None:
        """One of the pair's media records, sent or not (None for any other id)."""
        return self._found(pair, media_id)

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

    def _found(self, pair: PairId, media_id: str) -> Media | None:
        """The pair's record of this id (an id of another AI user's pair is nobody's here)."""
        if ids.media_ai_user(media_id) != pair.ai_user_id:
            return None
        with self._storage.pair(pair) as uow:
            found = uow.media.get(media_id)
        return found.entity if found else None

    def _claim(self, pair: PairId, media_id: str) -> Media | None:
        """A presigned upload of the pair made a media item like `upload` makes one (the same checks; a
        refused file is deleted), its pending object then deleted; None when there is none."""
        pending = keys.media_upload_blob(pair, media_id)
        data = self._blobs.get(pending)
        if data is None:
            return None
        try:
            kept = self._checked(pair, data)
        except MediaRefused:
            self._blobs.delete(pending)
            raise
        media = self._record(pair, kept, media_id)
        try:
            self._keep(pair, media, kept.data)
        except Contended:  # a claim beside this one kept it first, from the same bytes
            return self._found(pair, media_id)
        self._blobs.delete(pending)
        log.info("media claimed", extra={"ai_user_id": pair.ai_user_id, "kind": media.kind, "bytes": media.size})
        return media

    def _checked(self, pair: PairId, data: bytes) -> Inspected:
        try:
            return self._inspect(data)
        except MediaProblem as problem:
            extra = {"ai_user_id": pair.ai_user_id, "rule": problem.rule, "bytes": len(data)}
            log.info("media refused", extra=extra)
            raise MediaRefused(problem.rule, str(problem)) from None

    def _record(self, pair: PairId, kept: Inspected, media_id: str | None = None) -> Media:
        now = self._clock.now()
        return Media(
            id=media_id or ids.media_id(now, self._random.random(), pair.ai_user_id),
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
        commit (Gone) and the bytes go again; bytes left by a crash lie under the pair's prefix, erased with it.
        A record of this id already there (Contended) owns these bytes: they stay."""
        blob = keys.media_blob(pair, media.id)
        self._blobs.put(blob, data, media.content_type)
        try:
            with self._storage.pair(pair) as uow:
                uow.media.add(media)
                uow.commit()
        except Contended:
            raise
        except BaseException:
            self._blobs.delete(blob)
            raise
