"""The one place a pair's time zone is resolved: the person's own zone, else the AI user's."""

from __future__ import annotations

from dreamchat import keys
from dreamchat.domain.clock import pair_zone
from dreamchat.domain.models import AIUser, PairId
from dreamchat.ports import ItemStore


def person_zone(store: ItemStore, account_id: str) -> str | None:
    """The zone the person set (their device's, sent by the client), or None."""
    found = store.get(*keys.person_zone(account_id))
    return str(found["timezone"]) if found and found.get("timezone") else None


def set_person_zone(store: ItemStore, account_id: str, zone: str | None) -> None:
    """Set the person's zone (an IANA name, validated by the caller); None goes back to the AI user's."""
    if zone is None:
        store.delete(*keys.person_zone(account_id))
        return
    pk, sk = keys.person_zone(account_id)
    store.put({"pk": pk, "sk": sk, "timezone": zone})


def zone_for(store: ItemStore, account_id: str, ai_user: AIUser) -> str:
    """The clock of the pair (account, ai_user)."""
    return pair_zone(person_zone(store, account_id), ai_user.timezone)


def zone_of(store: ItemStore, pair: PairId, default: str) -> str:
    """The pair's time zone when its AI user is not at hand: the person's own, else the stored AI
    user's (`default` when neither is known)."""
    found = store.get(*keys.ai_user(pair.ai_user_id))
    ai_zone = str(found.get("timezone") or default) if found else default
    return pair_zone(person_zone(store, pair.account_id), ai_zone)
