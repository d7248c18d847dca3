"""What running the service keeps, on every store: lists in time order a page at a time, acting over the
version read, one open escalation per pair, and the monthly counts."""

from __future__ import annotations

import pytest

from dreamchat.domain.models import PairId
from dreamchat.domain.moderation import AuditEntry, Escalation, Report
from dreamchat.errors import Contended
from dreamchat.services.storage.unit_of_work import Storage

pytestmark = pytest.mark.every_store


def report(n: int, account: str = "acc1") -> Report:
    return Report(
        id=f"r{n:02d}",
        account_id=account,
        kind="ai_user",
        ai_user_id="ai_x",
        reason="…",
        created_at=1_800_000_000 + n,
        respond_by=1_800_259_200 + n,
    )


def add(storage: Storage, *found: Report) -> None:
    with storage.begin() as uow:
        for each in found:
            uow.reports.add(each)
        uow.commit()


def test_reports_page_oldest_first_by_status_and_newest_first_for_their_reporter(runtime):
    storage = Storage(runtime.store)
    add(storage, *(report(n) for n in range(5)), report(9, account="acc2"))
    with storage.begin() as uow:
        first, after = uow.reports.listed("open", None, 4)
        rest, end = uow.reports.listed("open", after, 4)
        mine, mine_after = uow.reports.of_account("acc1", None, 3)
        older, mine_end = uow.reports.of_account("acc1", mine_after, 3)
        assert uow.reports.open_count("acc1") == 5 and uow.reports.open_count("acc2") == 1
    assert [r.id for r in first] == ["r00", "r01", "r02", "r03"] and after is not None
    assert [r.id for r in rest] == ["r04", "r09"] and end is None
    assert [r.id for r in mine] == ["r04", "r03", "r02"] and [r.id for r in older] == ["r01", "r00"]
    assert mine_end is None


def test_a_report_acted_on_moves_lists_and_a_second_act_over_the_same_read_loses(runtime):
    storage = Storage(runtime.store)
    add(storage, report(1))
    with storage.begin() as first, storage.begin() as second:
        read_one, read_two = first.reports.get("r01"), second.reports.get("r01")
        first.reports.save(read_one.entity.model_copy(update={"status": "dismissed"}), read_one)
        first.commit()
        second.reports.save(read_two.entity.model_copy(update={"status": "resolved"}), read_two)
        with pytest.raises(Contended):
            second.commit()
    with storage.begin() as uow:
        assert uow.reports.listed("open", None, 10)[0] == []
        assert [r.status for r in uow.reports.listed("dismissed", None, 10)[0]] == ["dismissed"]
        assert uow.reports.open_count("acc1") == 0


def test_a_pair_has_one_escalation_open_and_a_closed_one_leaves_the_pair(runtime):
    storage = Storage(runtime.store)
    pair = PairId(account_id="acc1", ai_user_id="ai_x")

    def opened(escalation_id: str) -> Escalation:
        return Escalation(id=escalation_id, account_id="acc1", ai_user_id="ai_x", opened_at=1_800_000_000)

    with storage.begin() as uow:
        uow.escalations.add(opened("e1"))
        uow.commit()
    with storage.begin() as uow:
        uow.escalations.add(opened("e2"))
        with pytest.raises(Contended):
            uow.commit()
    with storage.begin() as uow:
        read = uow.escalations.of_pair(pair)
        assert read is not None and read.entity.id == "e1"
        uow.escalations.save(read.entity.model_copy(update={"status": "closed"}), read)
        uow.commit()
    with storage.begin() as uow:
        assert uow.escalations.of_pair(pair) is None
        assert [e.id for e in uow.escalations.listed("closed", None, 10)[0]] == ["e1"]
        assert uow.escalations.listed("open", None, 10)[0] == []


def test_the_audit_log_pages_newest_first_and_the_counts_go_over_their_version(runtime):
    storage = Storage(runtime.store)
    with storage.begin() as uow:
        for n in range(3):
            entry = AuditEntry(id=f"a{n}", at=1_800_000_000 + n, operator_id="op", operator="ops", action="x")
            uow.audit.add(entry)
        uow.commit()
    with storage.begin() as uow:
        page, before = uow.audit.page(None, 2)
        rest, end = uow.audit.page(before, 2)
    assert [e.id for e in page] == ["a2", "a1"] and [e.id for e in rest] == ["a0"] and end is None
    with storage.begin() as uow:
        read = uow.crisis_counts.get("2026-12")
        assert read.entity == {}
        uow.crisis_counts.save("2026-12", {"protocol_fired": 1}, read)
        uow.commit()
    with storage.begin() as first, storage.begin() as second:
        one, two = first.crisis_counts.get("2026-12"), second.crisis_counts.get("2026-12")
        first.crisis_counts.save("2026-12", {"protocol_fired": 2}, one)
        first.commit()
        second.crisis_counts.save("2026-12", {"protocol_fired": 2}, two)
        with pytest.raises(Contended):
            second.commit()
