"""Where to send a person in crisis: the help-line table, per locale.

`resources_for` picks a locale's entries, falls back by language, and always ends with the generic
entry (in the person's language when the table has one: "*-zh" for Chinese, else "*"); `parse_resources` reads a table (JSON-shaped: the shipped `dreamchat/data/help_lines.json`, or an
operator's `DREAMCHAT_CRISIS_RESOURCES`) and says what is wrong with a malformed one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class CrisisResource:
    """A line a person in crisis can reach. `source`: where the number was checked, and when."""

    name: str
    phone: str
    url: str
    hours: str
    source: str


def resources_for(locale: str, table: Mapping[str, Sequence[CrisisResource]]) -> list[CrisisResource]:
    """The entries for `locale` (zh-CN, zh_cn: case and separator do not matter), else those of the
    closest locale of the same language (zh-TW without its own entries gets zh-CN's, en-GB en-US's:
    a line in another country may not connect, so each name says its country, and the generic entry
    follows), then always the generic entries, without repeats: those of the language ("*-zh") when the
    table has them (a Chinese card must not end in an English line), else the "*" ones."""
    wanted = _subtags(locale)
    closest = _closest(wanted, table)
    chosen = table[closest] if closest else ()
    generic = table.get(f"*-{wanted[0]}") or table.get("*", ())
    return list(dict.fromkeys([*chosen, *generic]))


def _subtags(locale: str) -> tuple[str, ...]:
    return tuple(locale.strip().replace("_", "-").casefold().split("-"))


def _closest(wanted: tuple[str, ...], table: Mapping[str, Sequence[CrisisResource]]) -> str | None:
    """The key equal to `wanted`, else the one of its language sharing most subtags (the first of equals)."""
    same_language = [key for key in table if not key.startswith("*") and _subtags(key)[0] == wanted[0]]
    ranked = sorted(same_language, key=lambda key: (_subtags(key) != wanted, -len(set(_subtags(key)) & set(wanted))))
    return ranked[0] if ranked else None


# "*": the generic entries; "*-zh": the generic entries in one language
_LOCALE = re.compile(r"\*(?:-[a-z]{2,3})?|[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*")
_FIELDS = ("name", "phone", "url", "hours", "source")
_REQUIRED = ("name", "source")  # a number nobody can trace back cannot be checked again


def parse_resources(raw: Mapping[str, object]) -> dict[str, tuple[CrisisResource, ...]]:
    """An operator's table, JSON-shaped: {"zh-CN": [{"name", "phone", "url", "hours", "source"}, ...],
    "*": [...], "*-zh": [...]}. `name` and `source` are required, the other fields default to "". The "*" entries are
    required too: they are what a person of any other locale sees. Raises ValueError saying what is wrong."""
    if not isinstance(raw, Mapping):
        raise ValueError(f"crisis resources must be an object of locale -> list of resources, not {type(raw).__name__}")
    table = {_checked_locale(locale): _parsed_entries(str(locale), entries) for locale, entries in raw.items()}
    if "*" not in table:
        raise ValueError('crisis resources need a "*" entry: what every other locale sees (the local emergency number)')
    return table


def is_locale(text: str) -> bool:
    """Whether the text is a locale tag such as zh-CN, en_US or en (what a person may choose)."""
    return not text.startswith("*") and _LOCALE.fullmatch(text) is not None


def _checked_locale(locale: object) -> str:
    if not isinstance(locale, str) or not _LOCALE.fullmatch(locale):
        raise ValueError(f'crisis resources: {locale!r} is not a locale (like "zh-CN", "en" or "*")')
    return locale


def _parsed_entries(locale: str, entries: object) -> tuple[CrisisResource, ...]:
    if not isinstance(entries, list) or not entries:
        raise ValueError(
            f"crisis resources for {locale}: give a list of at least one resource, or leave the locale out"
        )
    return tuple(
        _parsed_entry(f"crisis resources for {locale}, entry {i + 1}", entry) for i, entry in enumerate(entries)
    )


def _parsed_entry(where: str, entry: object) -> CrisisResource:
    if not isinstance(entry, Mapping):
        raise ValueError(f"{where}: must be an object with {', '.join(_FIELDS)}")
    unknown = sorted(str(key) for key in entry if key not in _FIELDS)
    if unknown:
        raise ValueError(f"{where}: unknown field(s) {', '.join(unknown)} (known: {', '.join(_FIELDS)})")
    values = {field: entry.get(field, "") for field in _FIELDS}
    for field, value in values.items():
        if not isinstance(value, str):
            raise ValueError(f"{where}: {field} must be a string, not {type(value).__name__}")
    missing = [field for field in _REQUIRED if not str(values[field]).strip()]
    if missing:
        raise ValueError(f"{where}: {' and '.join(missing)} must not be empty")
    return CrisisResource(**{field: str(value).strip() for field, value in values.items()})
