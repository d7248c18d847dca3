"""A redone extraction and facts that changed (issues 28 items 1 and 2 together): the redo is shown the
pair's related key points as a fresh extraction is (never the redone entry's own, and the points only
its offline result made past are current again), the supersessions it names are marked in its commit,
and the marks that name the entry's earlier key points follow their text or go with it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import pytest

from dreamchat.domain.models import MidTermMemory, PairId
from dreamchat.domain.supersession import RelatedPoint
from dreamchat.llm.contracts import ExtractedMemory, ExtractOutput, Supersedes
from dreamchat.llm.errors import LLMUnavailable
from dreamchat.llm.memory_models import FallbackMemoryModels
from dreamchat.services.container import Services, build_services
from tests.services.conftest import answer_to
from tests.services.test_supersession import ZONE, OfflineFacts, ScriptedFacts, ai_of, as_current

PAIR = PairId(account_id="acc_redo", ai_user_id="ai_1")
OLD, NEW = "我住在北京", "我搬到上海了"


class Redoing(ScriptedFacts):
    """The ideal extractor of the labelled set while up; while `down`, the offline provider answers.
    `answers` scripts a summary's extraction: its key points and which of them replaces the shown
    point with the given text."""

    def __init__(self) -> None:
        super().__init__({})
        self.down = False
        self.answers: dict[str, tuple[list[str], dict[str, int]]] = {}

    def extract(self, mids: list[MidTermMemory], now: datetime, related: Sequence[RelatedPoint] = ()) -> ExtractOutput:
        if self.down:
            raise LLMUnavailable("down")
        self.shown.append(list(related))
        return ExtractOutput(memories=[self._answer(mid, related) for mid in mids])

    def _answer(self, mid: MidTermMemory, related: Sequence[RelatedPoint]) -> ExtractedMemory:
        points, replaces = self.answers.get(mid.summary, ([mid.summary], {}))
        marks = [Supersedes(id=p.key, key_point=replaces[p.text]) for p in related if p.text in replaces]
        return ExtractedMemory(
            title=mid.summary[:12],
            key_points=points,
            detail_content=mid.summary,
            source_mid_ids=[mid.id],
            supersedes=marks,
        )


def services_with(runtime, models: Redoing) -> Services:
    fallback = FallbackMemoryModels(models, OfflineFacts(), attempts=1, sleep=lambda _: None)
    return build_services(runtime, memory_models=fallback)


def tell(services: Services, clock, text: str) -> None:
    services.topics.record(PAIR, "user", text)
    services.topics.record(PAIR, "assistant", answer_to(text))
    services.compression.compress_now(PAIR)
    clock.advance(hours=25)
    services.extractor.extract(PAIR, ZONE, force=True)
    clock.advance(days=30)


def the_move(runtime, clock, answer: tuple[list[str], dict[str, int]]) -> tuple[Services, Redoing]:
    """Beijing extracted by the model; the move to Shanghai extracted offline during an outage (the
    offline rule marks Beijing past by the offline point); then the model is back and the redo answers
    `answer`."""
    models = Redoing()
    services = services_with(runtime, models)
    tell(services, clock, OLD)
    models.down = True
    tell(services, clock, NEW)
    old, offline = entries(services)
    assert offline.degraded and old.superseded[0].superseded_by == f"{offline.id}#000"
    models.down = False
    models.answers[NEW] = answer
    [healed] = services.healing.heal(PAIR, force=True)
    assert (healed.kind, healed.outcome) == ("extract", "healed")
    return services, models


def entries(services: Services) -> list:
    return sorted(services.repo.long_index(PAIR), key=lambda e: e.created_at)


def context(services: Services) -> str:
    return "\n".join(m["content"] for m in services.context.context(PAIR, ai_of(PAIR), "我现在住在哪？", "").messages)


@pytest.mark.every_store
def test_the_redo_is_shown_the_related_points_and_marks_what_it_names_in_its_commit(runtime, clock) -> None:
    services, models = the_move(runtime, clock, (["周末去了外滩", "对方搬到上海了"], {OLD: 1}))
    old, new = entries(services)
    # shown Beijing again (only the offline result had made it past), never its own offline point
    assert [p.text for p in models.shown[-1]] == [OLD]
    assert not new.degraded and new.key_points == ["周末去了外滩", "对方搬到上海了"]
    assert [(s.point, s.superseded_by) for s in old.superseded] == [(0, f"{new.id}#001")]  # not the Bund
    text = context(services)
    assert f"以前：{OLD}；" in text and "起：对方搬到上海了" in text and "起：周末去了外滩" not in text
    assert as_current(text, OLD) == []


def test_a_redo_that_names_nothing_leaves_no_mark_on_a_point_its_offline_result_had(runtime, clock) -> None:
    services, _ = the_move(runtime, clock, (["对方说起了上海的天气"], {}))
    old, _new = entries(services)
    assert old.superseded == []  # the model saw Beijing and named nothing: the old fact holds
    assert "以前：" not in context(services)


def test_a_point_the_redo_keeps_word_for_word_keeps_its_mark_at_its_new_number(runtime, clock) -> None:
    services, _ = the_move(runtime, clock, (["周末去了外滩", NEW], {}))
    old, new = entries(services)
    assert [(s.point, s.superseded_by) for s in old.superseded] == [(0, f"{new.id}#001")]
    assert f"起：{NEW}" in context(services) and "起：周末去了外滩" not in context(services)


def test_an_update_the_offline_rule_missed_is_marked_by_the_redo(runtime, clock) -> None:
    old_fact, new_fact = "我在广州租了个小房子，一个人住", "离开广州了，现在在厦门安顿下来"
    models = Redoing()
    services = services_with(runtime, models)
    tell(services, clock, old_fact)
    models.down = True
    tell(services, clock, new_fact)
    assert all(e.superseded == [] for e in entries(services))  # offline: not a clear same-slot update
    models.down = False
    models.answers[new_fact] = ([new_fact], {old_fact: 0})
    services.healing.heal(PAIR, force=True)
    old, new = entries(services)
    assert [(s.point, s.superseded_by) for s in old.superseded] == [(0, f"{new.id}#000")]
    assert as_current(context(services), old_fact) == []


def test_a_supersession_the_person_undid_is_not_marked_again_by_the_redo(runtime, clock) -> None:
    """Found by an attack: the person undoes the offline result's mark (Beijing is not past); the redo
    of the same summaries, shown Beijing as current again, named it and marked it back."""
    models = Redoing()
    services = services_with(runtime, models)
    tell(services, clock, OLD)
    models.down = True
    tell(services, clock, NEW)
    old, offline = entries(services)
    assert old.superseded
    services.memory_editor.long_term(PAIR, old.id, False, {"undo_supersede": [0]})
    models.down = False
    models.answers[NEW] = ([NEW], {OLD: 0})
    [healed] = services.healing.heal(PAIR, force=True)
    assert healed.outcome == "healed"
    old, new = entries(services)
    assert not new.degraded and old.superseded == []  # the person's word stands
    assert OLD in context(services) and "以前：" not in context(services)
