"""Character cards in and out: a card (JSON, or a PNG carrying it) becomes a new AI user of the
caller's; an AI user the caller owns goes out as a V2 card (JSON or PNG).

An import is all or nothing. Everything is read, checked and made before anything is stored: the
PNG's chunks, the card's JSON and fields, the shrunk picture, the AI user itself. Then the blobs go
under the new AI user's id (its avatar, the card's data verbatim) and the AI user in one transaction;
if that fails, the blobs are deleted again. A crash in between leaves blobs under an id nobody was
ever given.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any
from zoneinfo import available_timezones

from pydantic import ValidationError

from dreamchat import keys
from dreamchat.domain.cards import (
    Card,
    CardProblem,
    CardProfile,
    Cut,
    ImportedCard,
    avatar_colour,
    export_card,
    import_card,
    parse_card,
    parse_json,
    stored_card,
)
from dreamchat.domain.models import AIUser
from dreamchat.domain.png_text import PngProblem, is_png, read_png_text, solid_png, with_text
from dreamchat.errors import Invalid, NotFound
from dreamchat.ports import AvatarImages, BlobStore, ImageProblem
from dreamchat.services.ai_users import AIUserService, new_ai_user_id
from dreamchat.services.limits import unlimited

AVATAR_PATH = "/api/ai-users/{ai_user_id}/avatar/{token}"  # served by dreamchat.api.routers.cards.avatar
CARD_PICTURE = (400, 600)  # the card picture of an AI user without an uploaded avatar (SillyTavern's shape)
_OUR_AVATAR = re.compile(r"^/api/ai-users/(?P<ai_user_id>[A-Za-z0-9_-]{1,64})/avatar/(?P<token>[0-9a-f]{32})$")
_TOKEN = re.compile(r"^[0-9a-f]{32}$")
_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_CHUNKS = ("ccv3", "chara")  # V3 first, as its spec asks when a PNG carries both
_NOT_FOUND = "AI user not found"


@dataclass(frozen=True)
class Preview:
    """What an import would create: the AI user's fields, its avatar picture, what was cut or is kept unused."""

    spec: str
    fields: dict[str, Any]
    avatar_png: bytes | None
    cuts: list[Cut]
    unused: list[str]
    stored: dict[str, Any]


class CardService:
    def __init__(
        self,
        ai_users: AIUserService,
        blobs: BlobStore,
        images: AvatarImages,
        default_timezone: str,
        spend: Callable[[str], None] = unlimited,
    ) -> None:
        self._ai_users = ai_users
        self._blobs = blobs
        self._images = images
        self._default_timezone = default_timezone
        self._spend = spend  # the account's card budget (DREAMCHAT_CARD_UPLOADS_PER_MINUTE)

    def preview(self, account_id: str, upload: bytes) -> Preview:
        """Everything an import checks and makes, stored nowhere; Invalid says what is wrong with the card,
        TooManyRequests past the account's card budget."""
        self._spend(account_id)
        return self._preview(upload)

    def _preview(self, upload: bytes) -> Preview:
        card, picture = _read(upload)
        try:
            imported = import_card(card)
        except CardProblem as problem:
            raise Invalid(str(problem)) from problem
        fields = self._fields(imported)
        png = None
        if picture is not None and "avatar" not in imported.settings:  # our export of an emoji avatar: keep the emoji
            try:
                png = self._images.avatar(picture)
            except ImageProblem as problem:
                raise Invalid(str(problem)) from problem
        return Preview(card.spec, fields, png, imported.cuts, imported.unused, stored_card(card, imported))

    def import_card(self, owner_id: str, upload: bytes) -> tuple[AIUser, Preview]:
        """A new private AI user of `owner_id` from the card, befriended at once (as `AIUserService.create`)."""
        preview = self.preview(owner_id, upload)
        ai_user_id = new_ai_user_id()
        fields = {**preview.fields, "from_card": True}
        written: list[str] = []
        try:
            if preview.avatar_png is not None:
                token = uuid.uuid4().hex
                written.append(keys.avatar_blob(ai_user_id, token))
                self._blobs.put(written[-1], preview.avatar_png, "image/png")
                fields["avatar"] = AVATAR_PATH.format(ai_user_id=ai_user_id, token=token)
            written.append(keys.card_blob(ai_user_id))
            self._blobs.put(written[-1], json.dumps(preview.stored, ensure_ascii=False).encode())
            ai_user = self._ai_users.create(owner_id, fields, ai_user_id=ai_user_id)
        except Exception:  # re-raised: the blobs of an AI user that was never stored go again
            for key in written:
                with contextlib.suppress(Exception):  # the first failure is the one to report
                    self._blobs.delete(key)
            raise
        return ai_user, preview

    def export(self, account_id: str, ai_user_id: str) -> dict[str, Any]:
        """The AI user as a V2 card; only its owner may take one (anyone else: NotFound)."""
        ai_user = self._owned(account_id, ai_user_id)
        return export_card(self._profile(ai_user), self._stored(ai_user))

    def export_png(self, account_id: str, ai_user_id: str) -> tuple[str, bytes]:
        """The card's name, and the card in a PNG: the uploaded avatar (or a picture of one colour) with a
        `chara` tEXt chunk."""
        ai_user = self._owned(account_id, ai_user_id)
        card = export_card(self._profile(ai_user), self._stored(ai_user))
        picture = self._uploaded_avatar(ai_user) or solid_png(*CARD_PICTURE, avatar_colour(ai_user.name))
        encoded = base64.b64encode(json.dumps(card, ensure_ascii=False).encode())
        return card["data"]["name"], with_text(picture, "chara", encoded)

    def avatar(self, ai_user_id: str, token: str) -> bytes:
        """An uploaded avatar picture; its URL names a random token, so it is served without a login."""
        picture = None
        if _ID.match(ai_user_id) and _TOKEN.match(token):
            picture = self._blobs.get(keys.avatar_blob(ai_user_id, token))
        if picture is None:
            raise NotFound("no such avatar")
        return picture

    def _fields(self, imported: ImportedCard) -> dict[str, Any]:
        settings = imported.settings
        fields: dict[str, Any] = {
            "name": imported.name,
            "base_soul": imported.base_soul,
            "greeting": imported.greeting,
            "tags": imported.tags,
            "timezone": settings.get("timezone", self._default_timezone),
            "night_owl": settings.get("night_owl", False),
            "model": settings.get("model", "chat"),
            "avatar": settings.get("avatar", ""),
            "romance": imported.romance,
            "category": imported.category,
            "voice": settings.get("voice"),  # a card of ours keeps its voice; any other speaks in the default
            "voice_replies": settings.get("voice_replies", "never"),
        }
        if fields["timezone"] not in _zones():
            raise Invalid(f"data.extensions.dreamchat.timezone: unknown time zone {fields['timezone'][:64]!r}")
        try:
            AIUser(id="ai_preview", owner_id="", created_at=0, updated_at=0, **fields)
        except ValidationError as error:
            raise Invalid(f"the card does not fit an AI user: {error.errors()[0]['msg']}") from error
        return fields

    def _owned(self, account_id: str, ai_user_id: str) -> AIUser:
        ai_user = self._ai_users.visible(account_id, ai_user_id)
        if ai_user.owner_id != account_id:
            raise NotFound(_NOT_FOUND)
        return ai_user

    def _profile(self, ai_user: AIUser) -> CardProfile:
        return CardProfile(
            name=ai_user.name,
            base_soul=ai_user.base_soul,
            greeting=ai_user.greeting,
            tags=ai_user.tags,
            timezone=ai_user.timezone,
            night_owl=ai_user.night_owl,
            model=ai_user.model,
            avatar="" if self._avatar_token(ai_user) else ai_user.avatar,
            romance=ai_user.romance,
            category=ai_user.category,
            voice=ai_user.voice,
            voice_replies=ai_user.voice_replies,
        )

    def _stored(self, ai_user: AIUser) -> dict[str, Any] | None:
        raw = self._blobs.get(keys.card_blob(ai_user.id)) if ai_user.from_card else None
        stored = json.loads(raw) if raw else None
        return stored if isinstance(stored, dict) else None

    def _uploaded_avatar(self, ai_user: AIUser) -> bytes | None:
        token = self._avatar_token(ai_user)
        return self._blobs.get(keys.avatar_blob(ai_user.id, token)) if token else None

    @staticmethod
    def _avatar_token(ai_user: AIUser) -> str | None:
        found = _OUR_AVATAR.match(ai_user.avatar)
        return found["token"] if found and found["ai_user_id"] == ai_user.id else None


def _read(upload: bytes) -> tuple[Card, bytes | None]:
    """The card in an upload (a PNG with a card chunk, or JSON) and the PNG's picture, if any."""
    if not upload:
        raise Invalid("the upload is empty: send a character card as JSON or PNG")
    where, text, picture = "the card", upload, None
    if is_png(upload):
        where, text, picture = _card_chunk(upload)
    try:
        return parse_card(parse_json(text)), picture
    except CardProblem as problem:
        raise Invalid(f"{where}: {problem}" if picture is not None else str(problem)) from problem


def _card_chunk(png: bytes) -> tuple[str, bytes, bytes]:
    try:
        texts = read_png_text(png).texts
    except PngProblem as problem:
        raise Invalid(str(problem)) from problem
    chunk = next((name for name in _CHUNKS if name in texts), None)
    if chunk is None:
        raise Invalid("this PNG holds no character card (no tEXt chunk named chara or ccv3)")
    encoded = texts[chunk].strip()
    try:
        decoded = base64.b64decode(encoded + b"=" * (-len(encoded) % 4), validate=True)
    except binascii.Error as error:
        raise Invalid(f"the PNG's {chunk} chunk is not valid base64") from error
    return f"the PNG's {chunk} chunk", decoded, png


@cache
def _zones() -> frozenset[str]:
    return frozenset(available_timezones())
