"""Supersession rules, pure: what a model's proposals may name, what holds now at the end of a chain,
a person's edit, the offline same-slot rule, the export's references."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from dreamchat.domain.fact_slots import same_slot_update, slot_of
from dreamchat.domain.memory_export import DocumentProblem, ExportedLongTerm, MemoryDocument, check, reissue
from dreamchat.domain.models import LongTermIndex, Supersession
from dreamchat.domain.supersession import (
    Now,
    accepted,
    carried,
    points_into,
    renumbered,
    replacements,
    repointed,
    shown,
    since,
    superseding,
    undo_problem,
    undone,
)
from dreamchat.llm.chat_context import as_past
from dreamchat.services.storage.session import to_model


def entry(entry_id: str, *points: str, created_at: int = 100, marks: tuple[Supersession, ...] = ()) -> LongTermIndex:
    return LongTermIndex(
        id=entry_id,
        title=entry_id,
        key_points=list(points),
        detail_file=f"{entry_id}.json",
        created_at=created_at,
        superseded=list(marks),
    )


def mark(point: int, by: str, at: int = 200) -> Supersession:
    return Supersession(point=point, superseded_by=by, at=at)


POINTS = shown([("long_a#000", "我住在北京", 1), ("long_a#001", "我在腾讯工作", 1)])


def test_only_shown_ids_and_the_new_memorys_own_key_points_are_accepted() -> None:
    proposals = [("k1", 0), ("k3", 0), ("long_a#001", 0), ("k2", 4), ("k2", -1), ("k1", 1), (" k2 ", 1)]
    found = accepted(proposals, POINTS, key_points=2)
    assert [(p.ref, n) for p, n in found.kept] == [("long_a#000", 0), ("long_a#001", 1)]
    assert found.dropped == 5  # an unknown id, a stored reference, two numbers out of range, a repeat


def test_nothing_shown_accepts_nothing() -> None:
    assert accepted([("k1", 0)], [], key_points=3).kept == []


def test_what_holds_now_is_the_end_of_the_chain() -> None:
    a = entry("long_a", "我住在北京", marks=(mark(0, "long_b#000", 200),))
    b = entry("long_b", "我搬到上海了", marks=(mark(0, "long_c#000", 300),))
    c = entry("long_c", "我搬到深圳了")
    assert replacements([a, b, c]) == {"long_a#000": Now("我搬到深圳了", 300), "long_b#000": Now("我搬到深圳了", 300)}


def test_a_supersession_whose_new_point_is_gone_holds_nothing() -> None:
    a = entry("long_a", "我住在北京", marks=(mark(0, "long_b#000"),))
    assert replacements([a]) == {}
    assert replacements([a, entry("long_b")]) == {}  # the memory is there, the point is not


def test_a_cycle_leaves_its_points_current() -> None:
    a = entry("long_a", "甲", marks=(mark(0, "long_b#000"),))
    b = entry("long_b", "乙", marks=(mark(0, "long_a#000"),))
    assert replacements([a, b]) == {}
    assert replacements([entry("long_s", "丙", marks=(mark(0, "long_s#000"),))]) == {}


def test_marking_again_replaces_the_points_mark_and_undoing_clears_it() -> None:
    a = superseding(superseding(entry("long_a", "x", "y"), 1, "long_b#000", 5), 1, "long_c#000", 6)
    assert a.superseded == [mark(1, "long_c#000", 6)]
    assert undone(a, [1]).superseded == [] and undone(a, [0]).superseded == a.superseded


def test_an_undo_may_name_any_key_point_the_entry_has_however_many_it_has() -> None:
    many = entry("l1", *(f"p{n}" for n in range(40)))
    assert undo_problem(many, [0, 20, 39, 39]) is None
    assert undo_problem(many, range(40)) is None
    assert undo_problem(many, [40]) == "the memory has no key point 40 (it has 40)"
    assert undo_problem(many, [-1, 3]) == "the memory has no key point -1 (it has 40)"
    assert undo_problem(entry("l2", "a"), [1]) == "the memory has no key point 1 (it has 1)"


def test_an_edit_keeps_a_mark_on_its_points_text_and_drops_it_when_the_text_is_rewritten() -> None:
    a = entry("long_a", "我住在北京", "喜欢猫", marks=(mark(0, "long_b#000"),))
    assert carried(a, ["喜欢猫", "我住在北京"]) == [mark(1, "long_b#000")]
    assert carried(a, ["我住在北京朝阳区", "喜欢猫"]) == []


def test_points_are_renumbered_by_their_text_equal_texts_in_their_order() -> None:
    assert renumbered(["a", "b", "a", "c"], ["c", "a", "x", "a"]) == {0: 1, 2: 3, 3: 0}
    assert renumbered(["a"], []) == {} and renumbered([], ["a"]) == {}
    twice = entry("long_a", "x", "x", marks=(mark(0, "long_b#000"), mark(1, "long_c#000")))
    assert carried(twice, ["x"]) == [mark(0, "long_b#000")]  # one point, one mark: never two


def test_marks_naming_a_changed_entrys_points_follow_their_text_or_go() -> None:
    old = entry("long_a", "我住在北京", "在腾讯工作", "喜欢猫")
    old = old.model_copy(update={"superseded": [mark(0, "long_b#000"), mark(1, "long_b#001"), mark(2, "long_c#000")]})
    new = entry("long_b", "我搬到上海了", "去了字节")
    after = ["周末去了外滩", "我搬到上海了"]  # "去了字节" rewritten away, Shanghai now second
    moved = repointed(old, "long_b", renumbered(new.key_points, after))
    assert moved.superseded == [mark(0, "long_b#001"), mark(2, "long_c#000")]  # another entry's mark stays
    assert points_into(old, "long_b") and not points_into(moved, "long_x")
    # before following, the stale numbers named the wrong facts: the Bund for Beijing, Shanghai for Tencent
    b_after = entry("long_b", *after)
    c = entry("long_c", "我养了狗")
    assert replacements([old, b_after, c])["long_a#000"].text == "周末去了外滩"
    now = replacements([moved, b_after, c])
    assert now["long_a#000"].text == "我搬到上海了" and "long_a#001" not in now


def test_a_mark_naming_a_point_number_that_is_gone_holds_nothing() -> None:
    old = entry("long_a", "我住在北京", marks=(mark(0, "long_b#003"),))
    assert replacements([old, entry("long_b", "我搬到上海了")]) == {}


def test_a_new_fact_holds_from_the_message_it_was_drawn_from() -> None:
    at = datetime(2026, 6, 12, 9, tzinfo=UTC)
    new = entry("long_b", "我搬到上海了", created_at=5).model_copy(
        update={"sources": [f"m{int(at.timestamp() * 1_000_000):016d}abcdef"]}
    )
    assert since(new, 0) == int(at.timestamp())
    assert since(entry("long_c", "x", created_at=5), 0) == 5


def test_the_past_is_said_with_what_holds_now_and_since_when() -> None:
    since_june = datetime(2026, 6, 12, tzinfo=UTC)
    assert as_past("我住在北京", "我搬到上海了", since_june) == "以前：我住在北京；2026年6月12日起：我搬到上海了"


def test_an_entry_stored_before_supersession_loads_with_none() -> None:
    stored = {"pk": "p", "sk": "s", "version": 3, "core_judged": True, **entry("long_a", "x").model_dump()}
    del stored["superseded"]
    assert to_model(LongTermIndex, stored).superseded == []


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("我住在北京", "我搬到上海了"),
        ("用户：我在腾讯工作。", "用户：我跳槽到字节了"),
        ("我男朋友叫小明", "我和小明分手了"),
        ("我最喜欢的颜色是蓝色", "我现在最喜欢的颜色是绿色了"),
        ("I live in Boston", "I've moved to Seattle!"),
        ("I work at Google", "I just started a new job at Stripe"),
        ("I'm single", "I started dating Alex"),
        ("My favorite band is Coldplay", "My favourite band is now Muse"),
    ],
)
def test_clear_same_slot_updates_are_caught(old: str, new: str) -> None:
    assert same_slot_update(old, new)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("我住在北京", "我还住在北京"),  # the same value
        ("我妈妈住在杭州", "我住在上海"),  # not the person
        ("我住在北京", "我打算搬到上海"),  # a plan
        ("我住在北京", "我在上海工作"),  # another slot
        ("我最喜欢的颜色是蓝色", "我最喜欢的水果是芒果"),  # another kind of favourite
        ("我喜欢喝咖啡", "我喜欢喝茶"),  # liking one thing does not stop liking another
        ("I live in Boston", "I used to live in Denver"),
        ("I work at Google", "My brother works at Meta"),
        ("AI：我住在北京", "我搬到上海了"),  # the AI's words are no fact of the person's
    ],
)
def test_what_is_no_clear_update_is_left_alone(old: str, new: str) -> None:
    assert not same_slot_update(old, new)


def test_a_negated_statement_fills_no_slot() -> None:
    assert slot_of("我不住在北京了") is None and slot_of("I don't work at Google") is None


def document(*entries: LongTermIndex) -> MemoryDocument:
    return MemoryDocument.model_validate(
        {
            "format": "dreamchat.memory",
            "version": 1,
            "exported_at": 0,
            "ai_user": {"id": "ai_1", "name": "小梦"},
            "long_term": [ExportedLongTerm(index=e) for e in entries],
        }
    )


def test_an_import_moves_a_supersession_to_the_new_ids_and_drops_one_naming_another_document() -> None:
    old = entry("long_0000000100_aaaaaa", "我住在北京", marks=(mark(0, "long_0000000200_bbbbbb#000"),))
    stray = entry("long_0000000150_cccccc", "x", marks=(mark(0, "long_elsewhere#000"),))
    new = entry("long_0000000200_bbbbbb", "我搬到上海了", created_at=200)
    moved = {e.index.title: e.index for e in reissue(document(old, stray, new), lambda: 0.5).long_term}
    assert moved[old.id].superseded == [mark(0, f"{moved[new.id].id}#000")]
    assert moved[stray.id].superseded == []


def test_an_import_refuses_a_supersession_of_a_point_the_entry_lacks() -> None:
    with pytest.raises(DocumentProblem, match="superseded"):
        check(document(entry("long_a", "x", marks=(mark(3, "long_b#000"),)), entry("long_b", "y")))
