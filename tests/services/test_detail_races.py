"""A person's edit of a long-term memory's detail document landing just after the model's commit
(a redo's or a fresh extraction's), before anything else it does: the index entry and the document
both stay the person's, and no document is left behind that no entry names."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from dreamchat import keys
from dreamchat.domain.models import PairId
from dreamchat.ports import Operation, Put
from dreamchat.services.container import Services
from dreamchat.services.memory_repo import detail_key
from dreamchat.services.storage.unit_of_work import Storage
from tests.services.test_healing_attacks import Held, a_degraded_move, in_flight, services_with, tell
from tests.services.test_pair_generations import friends_with_a_public_ai_user
from tests.services.test_supersession import ZONE

pytestmark = pytest.mark.every_store

THEIRS = "这是我自己写的：我搬去上海是为了离家人近一点"


def after_the_models_commit(monkeypatch, runtime, edit: Callable[[], None]) -> list[bool]:
    """`edit` run once, right after the next transaction that writes a long-term index entry."""
    transact, ran = runtime.store.transact, []

    def hooked(operations: list[Operation]) -> None:
        transact(operations)
        long = [op for op in operations if isinstance(op, Put) and op.item["sk"].startswith(keys.LONG_PREFIX)]
        if long and not ran:
            ran.append(True)
            edit()

    monkeypatch.setattr(runtime.store, "transact", hooked)
    return ran


def assert_theirs(services: Services, runtime, pair: PairId, entry_id: str) -> None:
    index = services.repo.long_index(pair)
    entry = next(e for e in index if e.id == entry_id)
    assert services.views.detail(pair, entry.detail_file).detail_content == THEIRS
    assert services.repo.detail(pair, entry).detail_content == THEIRS and entry.detail_revision
    details = [k for k in runtime.blobs.list(keys.pair_blob_prefix(pair)) if "/long_term_details/" in k]
    assert len(details) == len(index)  # one document per entry: no orphan


def test_an_edit_just_after_a_redos_commit_keeps_the_persons_document(monkeypatch, runtime, clock) -> None:
    services, _, pair = a_degraded_move(runtime, clock)
    offline = max(services.repo.long_index(pair), key=lambda e: e.created_at)
    ran = after_the_models_commit(
        monkeypatch,
        runtime,
        lambda: services.memory_editor.long_term(pair, offline.id, False, {"detail_content": THEIRS}),
    )

    assert [h.outcome for h in services.healing.heal(pair, force=True)] == ["healed"]

    assert ran
    assert_theirs(services, runtime, pair, offline.id)


def test_an_edit_just_after_an_extractions_commit_keeps_the_persons_document(monkeypatch, runtime, clock) -> None:
    services = services_with(runtime, Held())
    pair, _ = friends_with_a_public_ai_user(services)
    tell(services, pair, clock, "我搬到上海了", extract=False)
    clock.advance(hours=25)

    def edit() -> None:
        [entry] = services.repo.long_index(pair)
        services.memory_editor.long_term(pair, entry.id, False, {"detail_content": THEIRS})

    ran = after_the_models_commit(monkeypatch, runtime, edit)
    [stored] = services.extractor.extract(pair, ZONE, force=True).long_term

    assert ran
    assert_theirs(services, runtime, pair, stored.id)


def test_an_edit_racing_an_edit_leaves_one_document(runtime, clock) -> None:
    services, _, pair = a_degraded_move(runtime, clock)
    entry = max(services.repo.long_index(pair), key=lambda e: e.created_at)
    services.memory_editor.long_term(pair, entry.id, False, {"detail_content": "先写的"})
    services.memory_editor.long_term(pair, entry.id, False, {"detail_content": THEIRS})
    assert_theirs(services, runtime, pair, entry.id)


def test_a_redo_that_loses_to_an_edit_deletes_its_own_document(runtime, clock) -> None:
    services, model, pair = a_degraded_move(runtime, clock)
    offline = max(services.repo.long_index(pair), key=lambda e: e.created_at)
    thread, outcome = in_flight(model, lambda: services.healing.heal(pair, force=True))
    services.memory_editor.long_term(pair, offline.id, False, {"detail_content": THEIRS})
    model.release.set()
    thread.join(20)

    assert [h.outcome for h in outcome[0]] == ["contended"]
    assert_theirs(services, runtime, pair, offline.id)


def test_an_entry_from_before_revisions_is_read_and_its_document_replaced(runtime, clock) -> None:
    services, _, pair = a_degraded_move(runtime, clock)
    entry = max(services.repo.long_index(pair), key=lambda e: e.created_at)
    old = entry.model_copy(update={"detail_revision": ""})  # as an entry stored before revisions names it
    runtime.blobs.put(detail_key(pair, old), runtime.blobs.get(detail_key(pair, entry)))
    runtime.blobs.delete(detail_key(pair, entry))
    with Storage(runtime.store).pair(pair) as uow:
        [read] = [r for r in uow.long_terms.all() if r.entity.id == entry.id]
        uow.long_terms.save(old, read, None)
        uow.commit()
    assert services.repo.detail(pair, old) is not None
    assert services.views.detail(pair, old.detail_file).title == entry.title

    services.memory_editor.long_term(pair, entry.id, False, {"detail_content": THEIRS})

    assert_theirs(services, runtime, pair, entry.id)
    assert runtime.blobs.get(keys.detail_file_blob(pair, old.detail_file)) is None
