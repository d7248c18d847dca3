"""Attacks on healing and supersession (issue 28): erasure while work is owed or a redo is in flight,
two healers racing one owed item, a person's edit landing between a redo's read and its commit.

A forgotten friendship is a generation that ended: a redo computed in it must land nothing in the
next one (nor leave its owed records behind), and of two healers only one redo is stored.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import datetime

import pytest

from dreamchat import keys
from dreamchat.domain.models import MidTermMemory, PairId
from dreamchat.domain.supersession import RelatedPoint
from dreamchat.llm.contracts import CompressOutput, ExtractedMemory, ExtractOutput, Supersedes
from dreamchat.llm.errors import LLMUnavailable
from dreamchat.llm.memory_models import FallbackMemoryModels
from dreamchat.services.container import Services, build_services
from dreamchat.services.storage.unit_of_work import Storage
from tests.services.conftest import answer_to
from tests.services.test_pair_generations import forget_and_befriend_again, friends_with_a_public_ai_user, pair_rows
from tests.services.test_supersession import TAGS, ZONE, OfflineFacts

pytestmark = pytest.mark.every_store

OLD, NEW = "我住在北京", "我搬到上海了"


class Held:
    """A model whose tasks in `down` fail; while `holding`, each call waits for `release` (in flight)."""

    def __init__(self) -> None:
        self.down: set[str] = set()
        self.holding = False
        self.called = threading.Event()
        self.release = threading.Event()
        self.calls = 0

    def _call(self, task: str) -> None:
        if task in self.down:
            raise LLMUnavailable("down")
        self.calls += 1
        if self.holding:
            self.called.set()
            assert self.release.wait(20)

    def compress(self, conversations, now: datetime) -> CompressOutput:  # noqa: ANN001
        self._call("compress")
        said = "。".join(c.content for c in conversations if c.role == "user")
        return CompressOutput.model_validate({"summary": f"模型：{said}", "emotion_tags": TAGS})

    def extract(self, mids: list[MidTermMemory], now: datetime, related: Sequence[RelatedPoint] = ()) -> ExtractOutput:
        self._call("extract")
        marks = [Supersedes(id=p.key, key_point=0) for p in related if p.text.endswith(OLD)]
        memories = [
            ExtractedMemory(
                title=m.summary[:12],
                key_points=[m.summary],
                detail_content=m.summary,
                source_mid_ids=[m.id],
                supersedes=marks,
            )
            for m in mids
        ]
        return ExtractOutput(memories=memories)

    def judge_core(self, new_items, existing, now):  # noqa: ANN001, ANN201
        return OfflineFacts().judge_core(new_items, existing, now)


def services_with(runtime, model: Held) -> Services:
    return build_services(
        runtime, memory_models=FallbackMemoryModels(model, OfflineFacts(), attempts=1, sleep=lambda _: None)
    )


def tell(services: Services, pair: PairId, clock, text: str, *, extract: bool = True) -> None:
    services.topics.record(pair, "user", text)
    services.topics.record(pair, "assistant", answer_to(text))
    services.compression.compress_now(pair)
    if extract:
        clock.advance(hours=25)
        services.extractor.extract(pair, ZONE, force=True)


def owed(runtime, pair: PairId) -> list:
    with Storage(runtime.store).pair(pair.seen_in(None)) as uow:
        return [read.entity for read in uow.owed.all()]


def in_flight(model: Held, work) -> tuple[threading.Thread, list]:
    """`work` run in a thread until the model is called (and held)."""
    outcome: list = []
    model.holding = True
    thread = threading.Thread(target=lambda: outcome.append(work()))
    thread.start()
    assert model.called.wait(20)
    return thread, outcome


def a_degraded_move(runtime, clock) -> tuple[Services, Held, PairId]:
    """Beijing extracted by the model; the move to Shanghai extracted offline (owed)."""
    model = Held()
    services = services_with(runtime, model)
    pair, _ = friends_with_a_public_ai_user(services)
    tell(services, pair, clock, OLD)
    model.down = {"extract"}
    tell(services, pair, clock, NEW)
    assert [w.kind for w in owed(runtime, pair)] == ["extract"]
    model.down = set()
    return services, model, pair


def test_the_owed_records_of_a_forgotten_pair_go_with_it_and_the_next_sweep_sends_nothing(runtime, clock) -> None:
    services, _, pair = a_degraded_move(runtime, clock)
    services.ai_users.unfriend(pair.account_id, pair.ai_user_id, forget=True)
    assert owed(runtime, pair) == [] and services.healing.owed() == 0
    services.ai_users.befriend(pair.account_id, pair.ai_user_id)
    fresh = services.ai_users.companion(pair.account_id, pair.ai_user_id)[0]
    clock.advance(days=1)
    assert services.extraction.sweep().healing == 0
    assert services.healing.heal(fresh, force=True) == []
    assert pair_rows(runtime.store, fresh) == []


def test_a_redone_extraction_in_flight_lands_nothing_after_forget_and_befriend(runtime, clock) -> None:
    services, model, pair = a_degraded_move(runtime, clock)
    thread, outcome = in_flight(model, lambda: services.healing.heal(pair, force=True))

    fresh = forget_and_befriend_again(services, pair)
    model.release.set()
    thread.join(20)

    assert not thread.is_alive() and len(outcome) == 1  # Gone is the end of the pair's healing, no error
    assert pair_rows(runtime.store, fresh) == [] and owed(runtime, fresh) == []
    assert runtime.blobs.list(keys.pair_blob_prefix(fresh)) == []


def test_a_redone_summary_in_flight_lands_nothing_after_forget_and_befriend(runtime, clock) -> None:
    model = Held()
    services = services_with(runtime, model)
    pair, _ = friends_with_a_public_ai_user(services)
    model.down = {"compress"}
    tell(services, pair, clock, "我的秘密是银行卡密码", extract=False)
    assert [w.kind for w in owed(runtime, pair)] == ["compress"]
    model.down = set()
    thread, outcome = in_flight(model, lambda: services.healing.heal(pair, force=True))

    fresh = forget_and_befriend_again(services, pair)
    model.release.set()
    thread.join(20)

    assert len(outcome) == 1 and pair_rows(runtime.store, fresh) == []
    assert services.repo.mid_terms(fresh) == []


def test_a_supersession_mark_racing_a_forget_lands_nothing(runtime, clock) -> None:
    model = Held()
    services = services_with(runtime, model)
    pair, _ = friends_with_a_public_ai_user(services)
    tell(services, pair, clock, OLD)
    services.topics.record(pair, "user", NEW)
    services.compression.compress_now(pair)
    clock.advance(hours=25)
    errors: list = []

    def extract() -> object:
        try:
            return services.extractor.extract(pair, ZONE, force=True)
        except Exception as error:  # noqa: BLE001 - the generation ended: Gone, nothing written
            errors.append(error)
            return error

    thread, _ = in_flight(model, extract)
    fresh = forget_and_befriend_again(services, pair)
    model.release.set()
    thread.join(20)

    assert [type(e).__name__ for e in errors] == ["Gone"]
    assert pair_rows(runtime.store, fresh) == [] and runtime.blobs.list(keys.pair_blob_prefix(fresh)) == []


def test_two_healers_racing_one_owed_extraction_store_one_redo(runtime, clock) -> None:
    """Forced (`POST /extract` beside a worker), the second healer redoes the item too: only the
    commit that lands first is stored, the other is contended; one entry, one mark, nothing owed."""
    services, model, pair = a_degraded_move(runtime, clock)
    first, outcome = in_flight(model, lambda: services.healing.heal(pair, force=True))
    model.holding = False
    second = services.healing.heal(pair, force=True)
    model.release.set()
    first.join(20)

    assert [h.outcome for h in second] == ["healed"] and [h.outcome for h in outcome[0]] == ["contended"]
    old, new = sorted(services.repo.long_index(pair), key=lambda e: e.created_at)
    assert not new.degraded and new.key_points == [f"模型：{NEW}"]
    assert [(s.point, s.superseded_by) for s in old.superseded] == [(0, f"{new.id}#000")]
    details = [k for k in runtime.blobs.list(keys.pair_blob_prefix(pair)) if "long_term_details" in k]
    assert len(details) == 2 and owed(runtime, pair) == []
    assert services.repo.mid_terms(pair) and all(m.extracted_to_long for m in services.repo.mid_terms(pair))


def test_a_sweeps_worker_and_extract_now_racing_heal_once(runtime, clock) -> None:
    """Not forced, a healer skips an item another one is attempting (its back-off moved on)."""
    services, model, pair = a_degraded_move(runtime, clock)
    clock.advance(days=1)  # the back-off has passed
    first, outcome = in_flight(model, lambda: services.healing.heal(pair))
    model.holding = False
    second = services.healing.heal(pair)
    model.release.set()
    first.join(20)

    assert second == [] and [h.outcome for h in outcome[0]] == ["healed"]
    assert owed(runtime, pair) == []


def test_a_persons_edit_between_the_redos_read_and_its_commit_wins(runtime, clock) -> None:
    services, model, pair = a_degraded_move(runtime, clock)
    offline = max(services.repo.long_index(pair), key=lambda e: e.created_at)
    thread, outcome = in_flight(model, lambda: services.healing.heal(pair, force=True))
    services.memory_editor.long_term(pair, offline.id, False, {"key_points": ["我现在在上海工作"]})
    model.release.set()
    thread.join(20)

    assert [h.outcome for h in outcome[0]] == ["contended"]
    edited = next(e for e in services.repo.long_index(pair) if e.id == offline.id)
    assert edited.key_points == ["我现在在上海工作"] and not edited.degraded
    # the next attempt sees the person's version: the redo is cancelled, their words stand
    clock.advance(days=1)
    assert [h.outcome for h in services.healing.heal(pair, force=True)] == ["cancelled"]
    assert next(e for e in services.repo.long_index(pair) if e.id == offline.id).key_points == ["我现在在上海工作"]
    assert owed(runtime, pair) == []


def test_the_ai_users_deletion_mid_redo_lands_nothing_and_leaves_nothing_owed(runtime, clock) -> None:
    services, model, pair = a_degraded_move(runtime, clock)
    thread, outcome = in_flight(model, lambda: services.healing.heal(pair, force=True))
    owner = services.ai_users.companion(pair.account_id, pair.ai_user_id)[1].owner_id
    services.ai_users.delete(owner, pair.ai_user_id)
    model.release.set()
    thread.join(20)

    assert len(outcome) == 1 and pair_rows(runtime.store, pair) == []
    assert services.healing.owed() == 0 and runtime.blobs.list(keys.pair_blob_prefix(pair)) == []


def test_a_persons_edit_of_a_summary_while_its_redo_waits_on_the_model_wins(runtime, clock) -> None:
    model = Held()
    services = services_with(runtime, model)
    pair, _ = friends_with_a_public_ai_user(services)
    model.down = {"compress"}
    tell(services, pair, clock, "周末和朋友去爬了山", extract=False)
    [mid] = services.repo.mid_terms(pair)
    model.down = set()
    thread, outcome = in_flight(model, lambda: services.healing.heal(pair, force=True))
    services.memory_editor.mid_term(pair, mid.id, False, {"summary": "周末和大学同学去爬了香山"})
    model.release.set()
    thread.join(20)

    assert [h.outcome for h in outcome[0]] == ["contended"]
    clock.advance(days=1)
    assert [h.outcome for h in services.healing.heal(pair, force=True)] == ["cancelled"]
    [kept] = services.repo.mid_terms(pair)
    assert kept.summary == "周末和大学同学去爬了香山" and not kept.degraded and owed(runtime, pair) == []
    assert services.extractor.extract(pair, ZONE, force=True).long_term  # and it is extracted as theirs
    assert [e.key_points for e in services.repo.long_index(pair)] == [["周末和大学同学去爬了香山"]]
