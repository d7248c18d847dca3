"""The person's conversation time as every store keeps it: the days round trip, and a write over the
version read loses to one that landed first (two turns at once never both show a notice)."""

from __future__ import annotations

import pytest

from dreamchat.domain.usage import Usage
from dreamchat.errors import Contended
from dreamchat.services.storage.unit_of_work import Storage

pytestmark = pytest.mark.every_store

KEPT = Usage(days={"2026-03-14": 600, "2026-03-15": 3 * 3600}, last_at=1_800_000_000, talk_at=1_799_999_000)


def test_the_conversation_time_round_trips(runtime):
    storage = Storage(runtime.store)
    with storage.begin() as uow:
        read = uow.conversation_time.get("acc1")
        assert read.entity == Usage()
        uow.conversation_time.save("acc1", KEPT.model_copy(update={"warned_on": "2026-03-15"}), read)
        uow.commit()
    with storage.begin() as uow:
        assert uow.conversation_time.get("acc1").entity == KEPT.model_copy(update={"warned_on": "2026-03-15"})
        assert uow.conversation_time.get("acc2").entity == Usage()


def test_a_write_over_a_stale_read_loses(runtime):
    storage = Storage(runtime.store)
    with storage.begin() as first, storage.begin() as second:
        one, two = first.conversation_time.get("acc1"), second.conversation_time.get("acc1")
        first.conversation_time.save("acc1", KEPT.model_copy(update={"disclosed_at": 1}), one)
        first.commit()
        second.conversation_time.save("acc1", KEPT.model_copy(update={"disclosed_at": 2}), two)
        with pytest.raises(Contended):
            second.commit()
    with storage.begin() as uow:
        assert uow.conversation_time.get("acc1").entity.disclosed_at == 1
