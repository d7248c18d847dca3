"""The one place a pair's time zone is resolved: the person's own zone, else the AI user's."""

from __future__ import annotations

from dreamchat.domain.clock import pair_zone
from dreamchat.domain.models import AIUser, PairId
from dreamchat.services.storage.unit_of_work import Storage


def chosen_zone(storage: Storage, account_id: str) -> str | None:
    """The zone the person set (their device's, sent by the client), or None."""
    with storage.begin() as uow:
        return uow.zones.get(account_id)


def set_chosen_zone(storage: Storage, account_id: str, zone: str | None) -> None:
    """Set the person's zone (an IANA name, validated by the caller); None goes back to the AI user's."""
    with storage.begin() as uow:
        uow.zones.save(account_id, zone)
        uow.commit()


def zone_for(storage: Storage, account_id: str, ai_user: AIUser) -> str:
    """The clock of the pair (account, ai_user)."""
    return pair_zone(chosen_zone(storage, account_id), ai_user.timezone)


def zone_of(storage: Storage, pair: PairId, default: str) -> str:
    """The pair's time zone when its AI user is not at hand: the person's own, else the stored AI
    user's (`default` when neither is known)."""
    with storage.begin() as uow:
        ai_user = uow.ai_users.get(pair.ai_user_id)
        person = uow.zones.get(pair.account_id)
    return pair_zone(person, (ai_user.timezone or default) if ai_user else default)
