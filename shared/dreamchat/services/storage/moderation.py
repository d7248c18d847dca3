"""What running the service keeps: reports, escalations, the audit log, the crisis protocol's monthly counts.

Each report and escalation is one versioned item (acting on it goes over the version read: of two
operators acting at once, one wins and the other gets `Contended`), listed by status oldest first;
a report is also listed in its reporter's partition, an escalation open or taken over is named in its
pair's partition (so a chat turn and a heartbeat find it with one read)."""

from __future__ import annotations

from typing import Any

from dreamchat import keys
from dreamchat.domain.models import PairId
from dreamchat.domain.moderation import AuditEntry, Escalation, Report
from dreamchat.ports import Item, KeyRange
from dreamchat.services.storage.session import Session, Versioned, item, to_model, version_of


def _page(
    session: Session, pk: str, after: str | None, limit: int, *, prefix: str = "", newest: bool = False
) -> tuple[list[Item], str | None]:
    """Up to `limit` entries of a time-ordered list after the sort key `after` (before it, `newest`
    first), and the key the next page starts after (None on the last page)."""
    if after is None:
        span = KeyRange(prefix=prefix) if prefix else KeyRange()
    elif newest:
        span = KeyRange(start=prefix or None, end=prefix + after)
    else:
        span = KeyRange(start=prefix + after, end=(prefix + "\uffff") if prefix else None)
    found = session.store.query(pk, span, limit=limit + 2, descending=newest).items
    found = [each for each in found if each["sk"] != prefix + (after or "")]
    shown = found[:limit]
    more = len(found) > limit
    return shown, (shown[-1]["sk"][len(prefix) :] if more and shown else None)


class Reports:
    def __init__(self, session: Session) -> None:
        self._session = session

    def get(self, report_id: str) -> Versioned[Report] | None:
        found = self._session.get(keys.report(report_id))
        return Versioned(to_model(Report, found), version_of(found)) if found else None

    def add(self, report: Report) -> None:
        self._session.put_over(item(keys.report(report.id), report.model_dump()), None)
        self._list(report)
        mine = keys.reports_of(report.account_id, report.created_at, report.id)
        self._session.put(item(mine, {"report_id": report.id, "status": report.status}))

    def save(self, report: Report, over: Versioned[Report]) -> None:
        """The report changed (resolved or dismissed), over the version read: acting twice loses."""
        self._session.put_over(item(keys.report(report.id), report.model_dump()), over)
        if over.entity.status != report.status:
            self._session.delete(keys.report_listing(over.entity.status, report.created_at, report.id))
            self._list(report)
        mine = keys.reports_of(report.account_id, report.created_at, report.id)
        self._session.put(item(mine, {"report_id": report.id, "status": report.status}))

    def listed(self, status: str, after: str | None, limit: int) -> tuple[list[Report], str | None]:
        """A page of one status's reports, oldest first."""
        found, next_after = _page(self._session, f"{keys.REPORTS_PK}#{status}", after, limit)
        return self._load(found), next_after

    def of_account(self, account_id: str, after: str | None, limit: int) -> tuple[list[Report], str | None]:
        """A page of one person's reports, newest first."""
        found, next_after = _page(
            self._session, keys.account_pk(account_id), after, limit, prefix=keys.REPORT_PREFIX, newest=True
        )
        return self._load(found), next_after

    def count(self, status: str) -> int:
        """How many reports have this status (their list's entries counted, no report loaded)."""
        return len(self._session.query(f"{keys.REPORTS_PK}#{status}"))

    def open_count(self, account_id: str) -> int:
        found = self._session.query(keys.account_pk(account_id), KeyRange(prefix=keys.REPORT_PREFIX))
        return sum(1 for each in found if each.get("status") == "open")

    def _list(self, report: Report) -> None:
        listing = keys.report_listing(report.status, report.created_at, report.id)
        self._session.put(item(listing, {"report_id": report.id}))

    def _load(self, pointers: list[Item]) -> list[Report]:
        loaded = [self._session.get(keys.report(p["report_id"])) for p in pointers]
        return [to_model(Report, found) for found in loaded if found is not None]


class Escalations:
    def __init__(self, session: Session) -> None:
        self._session = session

    def get(self, escalation_id: str) -> Versioned[Escalation] | None:
        found = self._session.get(keys.escalation(escalation_id))
        return Versioned(to_model(Escalation, found), version_of(found)) if found else None

    def of_pair(self, pair: PairId) -> Versioned[Escalation] | None:
        """The pair's escalation while it is open or taken over; None when there is none."""
        pointer = self._session.get(keys.pair_escalation(pair))
        return self.get(pointer["escalation_id"]) if pointer else None

    def add(self, escalation: Escalation) -> None:
        """A new escalation; only if the pair has none open (of two crisis messages at once, one opens
        it, the other loses the race and joins it)."""
        self._session.put_over(item(keys.escalation(escalation.id), escalation.model_dump()), None)
        self._list(escalation)
        pair = PairId(account_id=escalation.account_id, ai_user_id=escalation.ai_user_id)
        self._session.put(item(keys.pair_escalation(pair), {"escalation_id": escalation.id}), if_absent=True)

    def save(self, escalation: Escalation, over: Versioned[Escalation]) -> None:
        """Over the version read; a closed escalation leaves its pair (a later crisis opens a new one)."""
        self._session.put_over(item(keys.escalation(escalation.id), escalation.model_dump()), over)
        if over.entity.status != escalation.status:
            self._session.delete(keys.escalation_listing(over.entity.status, escalation.opened_at, escalation.id))
            self._list(escalation)
        if escalation.status == "closed":
            pair = PairId(account_id=escalation.account_id, ai_user_id=escalation.ai_user_id)
            self._session.delete(keys.pair_escalation(pair))

    def listed(self, status: str, after: str | None, limit: int) -> tuple[list[Escalation], str | None]:
        """A page of one status's escalations, oldest first."""
        found, next_after = _page(self._session, f"{keys.ESCALATIONS_PK}#{status}", after, limit)
        loaded = [self._session.get(keys.escalation(p["escalation_id"])) for p in found]
        return [to_model(Escalation, each) for each in loaded if each is not None], next_after

    def _list(self, escalation: Escalation) -> None:
        listing = keys.escalation_listing(escalation.status, escalation.opened_at, escalation.id)
        self._session.put(item(listing, {"escalation_id": escalation.id}))


class AuditLog:
    def __init__(self, session: Session) -> None:
        self._session = session

    def add(self, entry: AuditEntry) -> None:
        self._session.put(item(keys.audit_entry(entry.at, entry.id), entry.model_dump()), if_absent=True)

    def page(self, before: str | None, limit: int) -> tuple[list[AuditEntry], str | None]:
        """A page of the log, newest first, from before the sort key `before`."""
        found, next_before = _page(self._session, keys.AUDIT_PK, before, limit, newest=True)
        return [to_model(AuditEntry, each) for each in found], next_before


class CrisisCounts:
    """Per month, how often the crisis protocol fired, help lines were shown, escalations were opened
    and taken over: numbers only (SB 243's annual report)."""

    def __init__(self, session: Session) -> None:
        self._session = session

    _key = staticmethod(keys.crisis_counts)

    def get(self, month: str) -> Versioned[dict[str, int]]:
        found = self._session.get(self._key(month))
        if found is None:
            return Versioned({})
        counts: dict[str, Any] = found.get("counts", {})
        return Versioned({name: int(value) for name, value in counts.items()}, version_of(found))

    def save(self, month: str, counts: dict[str, int], over: Versioned[dict[str, int]]) -> None:
        self._session.put_over(item(self._key(month), {"counts": counts}), over)


class RatingCounts(CrisisCounts):
    """Per month, the 👍 and 👎 people gave the AI's messages (net of changed minds): numbers only."""

    _key = staticmethod(keys.rating_counts)
