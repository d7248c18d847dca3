"""Character cards, the ecosystem's exchange format for characters (SillyTavern, chub): read one
into what an AI user holds, and write an AI user back out as a V2 card.

Read: V1 (the fields at the top level), V2 (`chara_card_v2`) and V3 (`chara_card_v3`), the fields
under `data`. What has a clean place is used: the name; description, personality and scenario laid
out as base_soul; the first message as the greeting; the tags; whether its tags or texts make the character
the person's romantic or intimate partner (`romance`, by `dreamchat.domain.romance.romantic`). `{{char}}` and `{{user}}` (and V1's
`<BOT>`, `<USER>`) are resolved in what is used, `{{// ...}}` comments dropped. The card's whole
`data` object is kept verbatim beside the AI user, so nothing is lost: example dialogues, the
lorebook, alternate greetings, the card's own system prompt and post-history instructions, creator
notes, unknown fields and `extensions`. Those are not used: the chat prompt is ours (the safety rules
must not be replaced by a card), and there is no lorebook engine; our memory is per person.

Write: a V2 card with every V2 field. A field still as it was imported goes back out as the card
had it (macros and all); one the owner changed goes out as it is now. Our own settings travel in
`data.extensions.dreamchat`, with the card's fields V2 has no place for (V3's nickname, assets, ...)
under `card_fields`, which an import folds back into `data`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from dreamchat.domain import bounds, strict_json
from dreamchat.domain.discover import CATEGORIES, DEFAULT_CATEGORY, CharacterCategory, card_category
from dreamchat.domain.personas import first_problem
from dreamchat.domain.romance import romantic
from dreamchat.domain.text import is_blank
from dreamchat.domain.voice import VOICE_REPLIES

Spec = Literal["chara_card_v1", "chara_card_v2", "chara_card_v3"]

OURS = "dreamchat"  # our key in `extensions`
_VOICE = re.compile(bounds.VOICE_ID)
EXPORT_VERSION = 1

TEXT_FIELDS = (
    "name",
    "description",
    "personality",
    "scenario",
    "first_mes",
    "mes_example",
    "creator_notes",
    "system_prompt",
    "post_history_instructions",
    "creator",
    "character_version",
)
LIST_FIELDS = ("alternate_greetings", "tags")
V2_FIELDS = (*TEXT_FIELDS, *LIST_FIELDS, "character_book", "extensions")
V1_FIELDS = ("name", "description", "personality", "scenario", "first_mes", "mes_example")
USED = ("name", "description", "personality", "scenario", "first_mes", "tags")
# V3's own fields, checked for their type like the V2 ones (kept verbatim all the same)
_V3_TEXT = ("nickname",)
_V3_LISTS = ("group_only_greetings", "source")
_V3_NUMBERS = ("creation_date", "modification_date")

_SOUL_SECTIONS = (("description", ""), ("personality", "【性格】"), ("scenario", "【场景】"))
_CHAR = re.compile(r"\{\{\s*char\s*\}\}|<\s*(?:bot|char)\s*>", re.IGNORECASE)
_USER = re.compile(r"\{\{\s*user\s*\}\}|<\s*user\s*>", re.IGNORECASE)
_COMMENT = re.compile(r"\{\{\s*(?://|comment\s*:)[^{}]*\}\}", re.IGNORECASE)
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_BREAKS = "\n。！？!?.…"
# the card's field each field of an AI user is taken from, as a problem with it names it
_TAKEN_FROM = {"name": "name", "greeting": "first_mes"}
# {{user}} is whoever befriends the AI: kept as the macro when a card is imported, and said as each person's
# nickname when a prompt or a greeting is made (`person_named`); without one, the persona speaks of them as
# our prompts do, the greeting to them
USER_MACRO = "{{user}}"
_USER_WORDS = {True: ("对方", "你"), False: ("the user", "you")}


class CardProblem(ValueError):
    """The document is not a card that can be imported; the message says what is wrong, and where."""


@dataclass(frozen=True)
class Card:
    """A card as read: its spec and its `data` object, verbatim (V1: the top-level object)."""

    spec: Spec
    spec_version: str
    data: dict[str, Any]

    def text(self, name: str) -> str:
        value = self.data.get(name)
        return value if isinstance(value, str) else ""

    def texts(self, name: str) -> list[str]:
        value = self.data.get(name)
        return list(value) if isinstance(value, list) else []

    def path(self, name: str) -> str:
        """Where the field `name` sits in the document: under `data` (V1: at the top)."""
        return name if self.spec == "chara_card_v1" else f"data.{name}"

    def ours(self) -> dict[str, Any]:
        extensions = self.data.get("extensions")
        block = extensions.get(OURS) if isinstance(extensions, dict) else None
        return block if isinstance(block, dict) else {}


@dataclass(frozen=True)
class Cut:
    """A field longer than the AI user holds: `original` characters (tags: entries), `kept` kept."""

    field: str
    original: int
    kept: int


@dataclass(frozen=True)
class ImportedCard:
    """What an AI user takes from a card, what was cut to fit, and which kept fields it does not use."""

    name: str
    base_soul: str
    greeting: str
    tags: list[str]
    cuts: list[Cut] = field(default_factory=list)
    unused: list[str] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)  # ours, from an exported card: timezone, ...
    romance: bool = False  # a romantic or intimate partner (closed to minors' mode)
    category: CharacterCategory = (
        DEFAULT_CATEGORY  # ours if the card is, else `dreamchat.domain.discover.card_category`
    )


@dataclass(frozen=True)
class CardProfile:
    """An AI user as a card is written from it (`avatar`: an emoji or a link, "" for an uploaded image)."""

    name: str
    base_soul: str
    greeting: str
    tags: list[str]
    timezone: str
    night_owl: bool
    model: str
    avatar: str = ""
    romance: bool = False
    category: CharacterCategory = DEFAULT_CATEGORY
    voice: str | None = None
    voice_replies: str = "never"


def parse_json(raw: bytes) -> object:
    """A card's JSON text, read as every upload is (`dreamchat.domain.strict_json`): UTF-8, standard JSON
    only (no NaN or Infinity, no huge number), nested at most `strict_json.MAX_DEPTH` deep."""
    try:
        return strict_json.loads(raw)
    except strict_json.JsonProblem as problem:
        raise CardProblem(f"the card {problem}") from problem


def parse_card(document: object) -> Card:
    """The card in a parsed JSON document, its fields checked for their types; CardProblem otherwise."""
    if not isinstance(document, dict):
        raise CardProblem(f"a character card is a JSON object, not {_kind(document)}")
    spec = document.get("spec")
    if spec is None:
        if "name" not in document:
            raise CardProblem("not a character card: no spec (chara_card_v2 or chara_card_v3) and no name")
        return _checked(Card("chara_card_v1", "1.0", dict(document)), "")
    if spec not in ("chara_card_v2", "chara_card_v3"):
        shown = repr(spec) if isinstance(spec, str) else _kind(spec)
        raise CardProblem(f"unsupported card spec {shown[:60]}: chara_card_v2 and chara_card_v3 can be imported")
    data = document.get("data")
    if not isinstance(data, dict):
        raise CardProblem(f"data must be an object holding the character's fields, not {_kind(data)}")
    version = document.get("spec_version")
    return _checked(Card(spec, version if isinstance(version, str) else "", _folded(data)), "data.")


def import_card(card: Card) -> ImportedCard:
    """What the AI user takes from `card`: resolved, laid out and cut to the AI user's limits; CardProblem
    (naming the card's field) for a name that shows nothing or a greeting that claims to be human."""
    name_text = " ".join(card.text("name").split())
    name = cut(name_text, bounds.NAME_CHARS)
    char = " ".join(card.text("nickname").split()) or name
    cuts = [Cut("name", len(name_text), len(name))] if name != name_text else []
    sections = [
        (section, label, resolve_macros(card.text(section), char, USER_MACRO).strip())
        for section, label in _SOUL_SECTIONS
    ]
    base_soul, soul_cuts = compose_soul(sections, bounds.BASE_SOUL_CHARS)
    greeting_text = resolve_macros(card.text("first_mes"), char, USER_MACRO).strip()
    greeting = cut(greeting_text, bounds.GREETING_CHARS)
    if greeting != greeting_text:
        soul_cuts.append(Cut("first_mes", len(greeting_text), len(greeting)))
    found = first_problem({"name": name, "greeting": greeting})
    if found is not None:
        raise CardProblem(f"{card.path(_TAKEN_FROM[found[0]])}: {found[1]}")
    tags, tag_cut = _tags(card.texts("tags"))
    settings = _settings(card.ours())
    partner = romantic(card.texts("tags"), [card.text(f) for f in USED[:5]]) or settings.pop("romance", False)
    category = settings.pop("category", None) or card_category(tags, partner)
    return ImportedCard(
        name=name,
        base_soul=base_soul,
        greeting=greeting,
        tags=tags,
        cuts=cuts + soul_cuts + tag_cut,
        unused=unused_fields(card.data),
        settings=settings,
        romance=partner,
        category=category,
    )


def stored_card(card: Card, imported: ImportedCard) -> dict[str, Any]:
    """The document kept beside the AI user: the card's data verbatim and what the AI user took from it."""
    return {
        "format": 1,
        "spec": card.spec,
        "spec_version": card.spec_version,
        "data": card.data,
        "imported_as": {
            "name": imported.name,
            "base_soul": imported.base_soul,
            "greeting": imported.greeting,
            "tags": imported.tags,
        },
    }


def export_card(profile: CardProfile, stored: dict[str, Any] | None = None) -> dict[str, Any]:
    """A V2 card of the AI user (every V2 field), with the kept fields of the card it came from."""
    original = stored.get("data", {}) if stored else {}
    imported_as = stored.get("imported_as", {}) if stored else {}

    def kept(name: str, default: Any) -> Any:
        value = original.get(name)
        return value if isinstance(value, type(default)) else default

    def unchanged(name: str, value: Any) -> bool:
        return bool(stored) and imported_as.get(name) == value

    soul_kept = unchanged("base_soul", profile.base_soul)
    data: dict[str, Any] = {
        "name": kept("name", "") if unchanged("name", profile.name) else profile.name,
        "description": kept("description", "") if soul_kept else profile.base_soul,
        "personality": kept("personality", "") if soul_kept else "",
        "scenario": kept("scenario", "") if soul_kept else "",
        "first_mes": kept("first_mes", "") if unchanged("greeting", profile.greeting) else profile.greeting,
        "mes_example": kept("mes_example", ""),
        "creator_notes": kept("creator_notes", ""),
        "system_prompt": kept("system_prompt", ""),
        "post_history_instructions": kept("post_history_instructions", ""),
        "alternate_greetings": kept("alternate_greetings", []),
        "tags": kept("tags", []) if unchanged("tags", profile.tags) else list(profile.tags),
        "creator": kept("creator", ""),
        "character_version": kept("character_version", ""),
        "extensions": {**_without_ours(kept("extensions", {})), OURS: _our_block(profile, original)},
    }
    if isinstance(original.get("character_book"), dict):
        data["character_book"] = original["character_book"]
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": data, **{f: data[f] for f in V1_FIELDS}}


def unused_fields(data: dict[str, Any]) -> list[str]:
    """The card's fields that hold something but have no place in an AI user (kept, not used)."""
    found = [name for name, value in data.items() if name not in (*USED, "extensions") and _holds(value)]
    extensions = data.get("extensions")
    if isinstance(extensions, dict) and _without_ours(extensions):
        found.append("extensions")
    return found


def resolve_macros(text: str, char: str, user: str) -> str:
    """`{{char}}` is the character (V3: its nickname), `{{user}}` the person; comments are dropped."""
    text = _COMMENT.sub("", text)
    text = _CHAR.sub(lambda _: char, text)
    return _USER.sub(lambda _: user, text)


def person_named(text: str, nickname: str | None, *, to_them: bool = False) -> str:
    """`{{user}}` in a persona or a greeting as this person: the nickname they chose, else how our prompts
    speak of them (对方), or, in a greeting, to them (你); "the user" and "you" in a text without Chinese."""
    if not _USER.search(text):
        return text
    word = nickname or _USER_WORDS[bool(_CJK.search(text))][1 if to_them else 0]
    return _USER.sub(lambda _: word, text)


def compose_soul(sections: Sequence[tuple[str, str, str]], limit: int) -> tuple[str, list[Cut]]:
    """base_soul from (field, label, text) sections: the description first, then 【性格】 and 【场景】,
    a blank line between. Too long together, each gets a fair share of `limit` (a short section is
    kept whole, the longer ones share what is left) and is cut at a sentence end where one is near."""
    present = [(name, label, text) for name, label, text in sections if text]
    overhead = sum(len(label) for _, label, _ in present) + 2 * max(len(present) - 1, 0)
    shares = _fair_shares([len(text) for _, _, text in present], limit - overhead)
    parts, cuts = [], []
    for (name, label, text), share in zip(present, shares, strict=True):
        kept = cut(text, share)
        if kept != text:
            cuts.append(Cut(name, len(text), len(kept)))
        parts.append(label + kept)
    return "\n\n".join(parts), cuts


def cut(text: str, limit: int) -> str:
    """`text` in at most `limit` characters: whole if it fits, else up to a sentence or line end in
    its last 40 % (or plain), with "…" after."""
    if len(text) <= limit:
        return text
    if limit <= 1:
        return "…"[:limit]
    head = text[: limit - 1]
    end = max(head.rfind(mark) for mark in _BREAKS)
    if end >= 0.6 * limit:
        head = head[: end + 1]
    return head.rstrip() + "…"


def avatar_colour(name: str) -> tuple[int, int, int]:
    """The card picture's colour for an AI user without an image: one of the web client's avatar colours."""
    palette = ((0x7C, 0x6C, 0xF2), (0xF0, 0x71, 0x9A), (0x2F, 0xB6, 0xA3), (0xF5, 0x9E, 0x0B))
    return palette[sum(map(ord, name)) % len(palette)]


def _checked(card: Card, where: str) -> Card:
    data = card.data
    for name in (*TEXT_FIELDS, *_V3_TEXT):
        if data.get(name) is not None and not isinstance(data[name], str):
            raise CardProblem(f"{where}{name} must be text, not {_kind(data[name])}")
    for name in (*LIST_FIELDS, *_V3_LISTS):
        _check_texts(data.get(name), f"{where}{name}")
    for name in _V3_NUMBERS:
        value = data.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            raise CardProblem(f"{where}{name} must be a number, not {_kind(value)}")
    for name in ("extensions", "character_book", "creator_notes_multilingual"):
        if data.get(name) is not None and not isinstance(data[name], dict):
            raise CardProblem(f"{where}{name} must be an object, not {_kind(data[name])}")
    _check_book(data.get("character_book"), f"{where}character_book")
    _check_assets(data.get("assets"), f"{where}assets")
    if is_blank(card.text("name")):
        raise CardProblem(f"the card has no name ({where}name is empty)")
    _settings(card.ours(), f"{where}extensions.{OURS}")
    return card


def _check_texts(value: object, where: str) -> None:
    if value is None:
        return
    if not isinstance(value, list):
        raise CardProblem(f"{where} must be a list of texts, not {_kind(value)}")
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise CardProblem(f"{where}[{index}] must be text, not {_kind(item)}")


def _check_book(book: object, where: str) -> None:
    if not isinstance(book, dict) or book.get("entries") is None:
        return
    entries = book["entries"]
    if not isinstance(entries, list):
        raise CardProblem(f"{where}.entries must be a list, not {_kind(entries)}")
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise CardProblem(f"{where}.entries[{index}] must be an object, not {_kind(entry)}")


def _check_assets(assets: object, where: str) -> None:
    if assets is None:
        return
    if not isinstance(assets, list) or not all(isinstance(asset, dict) for asset in assets):
        raise CardProblem(f"{where} must be a list of objects")


def _settings(block: dict[str, Any], where: str = f"data.extensions.{OURS}") -> dict[str, Any]:
    """Our settings from a card we exported; a value of the wrong type is refused like any field."""
    wanted: dict[str, tuple[type, str]] = {
        "timezone": (str, "text"),
        "night_owl": (bool, "true or false"),
        "romance": (bool, "true or false"),
        "model": (str, "chat or reasoner"),
        "avatar": (str, "text"),
        "category": (str, " or ".join(CATEGORIES)),
        "voice": (str, "a voice id"),
        "voice_replies": (str, " or ".join(VOICE_REPLIES)),
    }
    settings = {}
    for name, (kind, expected) in wanted.items():
        value = block.get(name)
        if value is None:
            continue
        if (
            not isinstance(value, kind)
            or (name == "model" and value not in ("chat", "reasoner"))
            or (name == "category" and value not in CATEGORIES)
            or (name == "voice_replies" and value not in VOICE_REPLIES)
            or (name == "voice" and not (_VOICE.match(str(value)) and len(str(value)) <= bounds.VOICE_CHARS))
        ):
            raise CardProblem(f"{where}.{name} must be {expected}")
        if name == "avatar" and len(str(value)) > bounds.AVATAR_CHARS:
            raise CardProblem(f"{where}.avatar is longer than {bounds.AVATAR_CHARS} characters")
        settings[name] = value
    return settings


def _tags(values: list[str]) -> tuple[list[str], list[Cut]]:
    """Tags as an AI user keeps them: trimmed, without blanks or repeats (case-insensitive), `bounds.TAGS`
    of at most `bounds.TAG_CHARS` characters."""
    tags: list[str] = []
    seen: set[str] = set()
    for value in values:
        tag = " ".join(value.split())[: bounds.TAG_CHARS]
        if tag and not is_blank(tag) and tag.casefold() not in seen:
            seen.add(tag.casefold())
            tags.append(tag)
    kept = tags[: bounds.TAGS]
    shortened = any(len(" ".join(v.split())) > bounds.TAG_CHARS for v in values)
    return kept, [Cut("tags", len(tags), len(kept))] if len(kept) < len(tags) or shortened else []


def _fair_shares(lengths: list[int], budget: int) -> list[int]:
    shares = [0] * len(lengths)
    left = max(budget, 0)
    for position, index in enumerate(sorted(range(len(lengths)), key=lengths.__getitem__)):
        shares[index] = min(lengths[index], left // (len(lengths) - position))
        left -= shares[index]
    return shares


def _folded(data: dict[str, Any]) -> dict[str, Any]:
    """`data` with the fields our own export moved to `extensions.dreamchat.card_fields` back in place."""
    extensions = data.get("extensions")
    block = extensions.get(OURS) if isinstance(extensions, dict) else None
    moved = block.get("card_fields") if isinstance(block, dict) else None
    if not isinstance(moved, dict):
        return dict(data)
    return {**{k: v for k, v in moved.items() if k not in V2_FIELDS}, **data}


def _our_block(profile: CardProfile, original: dict[str, Any]) -> dict[str, Any]:
    block: dict[str, Any] = {
        "version": EXPORT_VERSION,
        "timezone": profile.timezone,
        "night_owl": profile.night_owl,
        "model": profile.model,
    }
    if profile.romance:
        block["romance"] = True
    if profile.category != DEFAULT_CATEGORY:
        block["category"] = profile.category
    if profile.avatar:
        block["avatar"] = profile.avatar
    if profile.voice:
        block["voice"] = profile.voice
    if profile.voice_replies != "never":
        block["voice_replies"] = profile.voice_replies
    extra = {k: v for k, v in original.items() if k not in V2_FIELDS}
    if extra:
        block["card_fields"] = extra
    return block


def _without_ours(extensions: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in extensions.items() if k != OURS}


def _holds(value: object) -> bool:
    return value not in (None, "", [], {}) and not (isinstance(value, str) and is_blank(value))


def _kind(value: object) -> str:
    kinds = {bool: "true or false", int: "a number", float: "a number", str: "text", list: "a list", dict: "an object"}
    return "null" if value is None else kinds.get(type(value), type(value).__name__)
