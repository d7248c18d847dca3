"""The person's 关于我 (what every AI friend knows of them from the start), locale (whose help lines
a crisis shows) and time zone (the clock every pair of theirs lives by)."""

from __future__ import annotations

from dreamchat import keys
from dreamchat.services.memory_repo import MemoryRepository
from dreamchat.services.zones import person_zone, set_person_zone


class Profiles:
    def __init__(self, repo: MemoryRepository) -> None:
        self._repo = repo

    def about_me(self, account_id: str) -> str:
        return self._repo.about.get(account_id)

    def set_about_me(self, account_id: str, about_me: str) -> str:
        """Write it (surrounding spaces dropped; empty clears it) and return what was kept."""
        about = about_me.strip()
        self._repo.about.set(account_id, about)
        return about

    def locale(self, account_id: str) -> str | None:
        """The locale the person chose (validated when set), or None: the server's."""
        found = self._repo.store.get(*keys.person_locale(account_id))
        return str(found["locale"]) if found and found.get("locale") else None

    def set_locale(self, account_id: str, locale: str | None) -> None:
        """Set it (a locale tag such as en-US, validated by the caller); None goes back to the server's."""
        pk, sk = keys.person_locale(account_id)
        if locale is None:
            self._repo.store.delete(pk, sk)
        else:
            self._repo.store.put({"pk": pk, "sk": sk, "locale": locale})

    def zone(self, account_id: str) -> str | None:
        """The zone the person set, or None: each AI user's."""
        return person_zone(self._repo.store, account_id)

    def set_zone(self, account_id: str, zone: str | None) -> None:
        """Set it (an IANA name, validated by the caller); None goes back to each AI user's."""
        set_person_zone(self._repo.store, account_id, zone)
