"""The person's 关于我 (what every AI friend knows of them from the start), nickname (what every AI friend
calls them), time zone (whose clock
their chats follow) and locale (whose help lines a crisis shows)."""

from __future__ import annotations

from dreamchat.services.storage.unit_of_work import Storage
from dreamchat.services.zones import chosen_zone, set_chosen_zone


class ProfileService:
    def __init__(self, storage: Storage) -> None:
        self._storage = storage

    def about_me(self, account_id: str) -> str:
        with self._storage.begin() as uow:
            return uow.about.get(account_id)

    def set_about_me(self, account_id: str, about_me: str) -> str:
        """Write it (surrounding spaces dropped; empty clears it) and return what was kept."""
        about = about_me.strip()
        with self._storage.begin() as uow:
            uow.about.save(account_id, about)
            uow.commit()
        return about

    def nickname(self, account_id: str) -> str | None:
        """What the person wants to be called (`{{user}}` in a card, the name line of every chat prompt), or None."""
        with self._storage.begin() as uow:
            return uow.nicknames.get(account_id)

    def set_nickname(self, account_id: str, nickname: str | None) -> None:
        """Set it (validated by the caller); None or empty forgets it."""
        with self._storage.begin() as uow:
            uow.nicknames.save(account_id, nickname or None)
            uow.commit()

    def timezone(self, account_id: str) -> str | None:
        """The zone the person set, or None: each AI user's."""
        return chosen_zone(self._storage, account_id)

    def set_timezone(self, account_id: str, zone: str | None) -> None:
        """Set it (an IANA name, validated by the caller); None goes back to each AI user's."""
        set_chosen_zone(self._storage, account_id, zone)

    def locale(self, account_id: str) -> str | None:
        """The locale the person chose (validated when set), or None: the server's."""
        with self._storage.begin() as uow:
            return uow.locales.get(account_id)

    def set_locale(self, account_id: str, locale: str | None) -> None:
        """Set it (a locale tag such as en-US, validated by the caller); None goes back to the server's."""
        with self._storage.begin() as uow:
            uow.locales.save(account_id, locale)
            uow.commit()
