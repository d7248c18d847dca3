"""A pair's media records (photos, voice notes) as a repository of `Media`; their bytes are in the blob
store under `keys.media_blob`, written and erased by the media service."""

from __future__ import annotations

from dreamchat import keys
from dreamchat.domain.media import Media
from dreamchat.domain.models import PairId
from dreamchat.ports import KeyRange
from dreamchat.services.storage.session import Session, Versioned, item, to_model, version_of


class MediaItems:
    def __init__(self, session: Session, pair: PairId) -> None:
        self._session = session
        self._pk = keys.media_pk(pair)

    def get(self, media_id: str) -> Versioned[Media] | None:
        found = self._session.get(self._key(media_id))
        return Versioned(to_model(Media, found), version_of(found)) if found else None

    def add(self, media: Media) -> None:
        """A new record; the commit fails (Contended) if one with its id exists."""
        self._session.put(item(self._key(media.id), {**media.model_dump(), "version": 1}), if_absent=True)

    def save(self, media: Media, over: Versioned[Media]) -> None:
        """The record changed (its words, the message that carries it), over the version read."""
        self._session.put_over(item(self._key(media.id), media.model_dump()), over)

    def remove(self, media_id: str) -> None:
        self._session.delete(self._key(media_id))

    def all(self) -> list[Media]:
        """Every record of the pair, oldest first (ids sort by time)."""
        return [to_model(Media, found) for found in self._session.query(self._pk, KeyRange(prefix=keys.MEDIA_PREFIX))]

    def _key(self, media_id: str) -> tuple[str, str]:
        return self._pk, keys.media(media_id)
