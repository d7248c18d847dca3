"""Core-memory admission is enforced in code: importance, a monthly cap in the pair's time zone,
no near-duplicates; and the five that reach the context."""

from __future__ import annotations

from datetime import UTC, datetime
from itertools import count

import pytest

from dreamchat.domain.core_memory import (
    CONTEXT_LIMIT,
    MIN_IMPORTANCE,
    MONTHLY_CAP,
    RELATIONSHIP_ID,
    Candidate,
    admission_problem,
    for_context,
    judged_against,
    judged_this_month,
    relationship_change,
    relationship_entry,
    similarity,
    split,
)
from dreamchat.domain.models import CoreMemory

SHANGHAI = "Asia/Shanghai"
MID_MARCH = datetime(2026, 3, 15, 4, 0, tzinfo=UTC)
GOOD = Candidate(create=True, content="他的妈妈去年冬天去世了，他一直很想念她", importance=9)
_ids = count()


def core(content: str, created: datetime, importance: int = 9, source: str = "ai") -> CoreMemory:
    return CoreMemory(
        id=f"core_{next(_ids)}",
        content=content,
        importance=importance,
        created_at=int(created.timestamp()),
        source=source,
    )  # type: ignore[arg-type]


def two_this_month(created: datetime = datetime(2026, 3, 2, 4, 0, tzinfo=UTC)) -> list[CoreMemory]:
    return [core("他对猫毛严重过敏", created), core("他在准备考研，目标是北京的学校", created)]


# --- what the model chose -----------------------------------------------------------------


def test_a_candidate_the_model_wants_and_rates_highly_is_admitted() -> None:
    assert admission_problem(GOOD, [], MID_MARCH, SHANGHAI) is None


def test_nothing_is_admitted_when_the_model_chose_not_to_create_one() -> None:
    problem = admission_problem(Candidate(False, GOOD.content, 10), [], MID_MARCH, SHANGHAI)
    assert problem == "the model chose not to create one"


def test_a_blank_candidate_is_treated_as_no_candidate() -> None:
    assert admission_problem(Candidate(True, "   ", 10), [], MID_MARCH, SHANGHAI) == "the model chose not to create one"


@pytest.mark.parametrize("importance", [1, 5, 7])
def test_importance_below_eight_is_refused(importance: int) -> None:
    problem = admission_problem(Candidate(True, GOOD.content, importance), [], MID_MARCH, SHANGHAI)
    assert problem == f"importance {importance} is below 8"


@pytest.mark.parametrize("importance", [8, 10])
def test_importance_of_eight_or_more_is_enough(importance: int) -> None:
    assert MIN_IMPORTANCE == 8
    assert admission_problem(Candidate(True, GOOD.content, importance), [], MID_MARCH, SHANGHAI) is None


# --- the monthly cap ----------------------------------------------------------------------


def test_one_judged_memory_this_month_still_leaves_room_for_a_second() -> None:
    existing = two_this_month()[:1]
    assert admission_problem(GOOD, existing, MID_MARCH, SHANGHAI) is None


def test_two_judged_memories_this_month_fill_the_cap() -> None:
    assert MONTHLY_CAP == 2
    assert admission_problem(GOOD, two_this_month(), MID_MARCH, SHANGHAI) == "already 2 core memories this month"


def test_last_months_memories_do_not_count_against_this_month() -> None:
    february = two_this_month(datetime(2026, 2, 20, 4, 0, tzinfo=UTC))
    assert admission_problem(GOOD, february, MID_MARCH, SHANGHAI) is None


def test_the_same_month_of_another_year_does_not_count() -> None:
    a_year_ago = two_this_month(datetime(2025, 3, 10, 4, 0, tzinfo=UTC))
    assert admission_problem(GOOD, a_year_ago, MID_MARCH, SHANGHAI) is None


def test_the_month_turns_at_midnight_in_the_pairs_time_zone_not_in_utc() -> None:
    # 31 March 16:30 UTC is already 1 April 00:30 in Shanghai: March's two no longer count there.
    now = datetime(2026, 3, 31, 16, 30, tzinfo=UTC)
    march = two_this_month(datetime(2026, 3, 20, 4, 0, tzinfo=UTC))
    assert admission_problem(GOOD, march, now, SHANGHAI) is None
    assert admission_problem(GOOD, march, now, "UTC") == "already 2 core memories this month"


def test_a_memory_made_late_on_the_last_utc_day_belongs_to_the_next_local_month() -> None:
    april_in_shanghai = datetime(2026, 3, 31, 17, 0, tzinfo=UTC)
    existing = two_this_month(april_in_shanghai)
    assert judged_this_month(existing, datetime(2026, 4, 2, 4, 0, tzinfo=UTC), SHANGHAI) == 2
    assert judged_this_month(existing, datetime(2026, 3, 31, 12, 0, tzinfo=UTC), SHANGHAI) == 0


@pytest.mark.parametrize("source", ["relationship", "person"])
def test_relationship_changes_and_the_persons_own_entries_do_not_count_against_the_cap(source: str) -> None:
    existing = [
        core("关系等级变为 特别关心", MID_MARCH, source=source),
        core("我不喜欢被叫全名", MID_MARCH, source=source),
        core("我的生日是五月一日", MID_MARCH, source=source),
    ]
    assert judged_this_month(existing, MID_MARCH, SHANGHAI) == 0
    assert admission_problem(GOOD, existing, MID_MARCH, SHANGHAI) is None


# --- near-duplicates ----------------------------------------------------------------------


def test_a_near_duplicate_of_an_existing_core_memory_is_refused() -> None:
    existing = [core("他的妈妈去年冬天去世了，他一直很想念她。", datetime(2025, 12, 1, tzinfo=UTC))]
    assert admission_problem(GOOD, existing, MID_MARCH, SHANGHAI) == "a similar core memory exists"


def test_a_near_duplicate_of_something_the_person_wrote_is_refused_too() -> None:
    existing = [core("我妈妈去年冬天去世了，我一直很想念她", datetime(2025, 12, 1, tzinfo=UTC), source="person")]
    assert admission_problem(GOOD, existing, MID_MARCH, SHANGHAI) == "a similar core memory exists"


def test_an_unrelated_core_memory_is_no_duplicate() -> None:
    existing = [core("他对猫毛严重过敏", datetime(2025, 12, 1, tzinfo=UTC))]
    assert admission_problem(GOOD, existing, MID_MARCH, SHANGHAI) is None


def test_similarity_is_one_for_the_same_words_whatever_the_case_and_punctuation() -> None:
    assert similarity("Allergic to cats", "allergic to CATS!") == 1.0


def test_similarity_is_zero_for_texts_sharing_no_character_pair() -> None:
    assert similarity("他对猫过敏", "喜欢爬山") == 0.0


def test_similarity_of_single_characters_compares_the_characters() -> None:
    assert similarity("猫", "猫") == 1.0
    assert similarity("猫", "狗") == 0.0


def test_the_duplicate_threshold_lies_between_a_rewording_and_a_different_fact() -> None:
    assert similarity("他的妈妈去年去世了", "他妈妈去年去世了") >= 0.6
    assert similarity("他对猫过敏", "他对猫毛过敏") < 0.6


# --- what reaches the context -------------------------------------------------------------


def test_only_the_five_most_important_reach_the_context() -> None:
    memories = [core(f"事实{i}", MID_MARCH, importance=i) for i in range(1, 11)]
    chosen = for_context(memories)
    assert CONTEXT_LIMIT == 5
    assert [m.importance for m in chosen] == [10, 9, 8, 7, 6]


def test_among_equally_important_memories_the_most_recent_come_first() -> None:
    older = core("旧", datetime(2025, 1, 1, tzinfo=UTC), importance=9)
    newer = core("新", datetime(2026, 1, 1, tzinfo=UTC), importance=9)
    top = core("最重要", datetime(2024, 1, 1, tzinfo=UTC), importance=10)
    assert [m.content for m in for_context([older, top, newer])] == ["最重要", "新", "旧"]


def test_fewer_than_five_memories_all_reach_the_context() -> None:
    memories = [core("一", MID_MARCH, importance=8), core("二", MID_MARCH, importance=9)]
    assert len(for_context(memories)) == 2
    assert for_context([]) == []


# --- the relationship: one current entry, its history apart ---------------------------------


def changes(count: int, start: datetime = MID_MARCH) -> list[CoreMemory]:
    """`count` changes of level, as the history keeps them (and as stores held them before the current entry)."""
    at = int(start.timestamp())
    return [
        relationship_change(f"core_rel_{at + n:010d}_00000{n}", "一般", "关系较好", f"第{n}次", at + n)
        for n in range(count)
    ]


def test_relationship_history_never_pushes_an_important_memory_out() -> None:
    fear = core("他极度恐高", datetime(2025, 1, 1, tzinfo=UTC), importance=8)
    others = [core(f"事实{i}", datetime(2025, 1, 1, tzinfo=UTC), importance=9) for i in range(4)]
    entry = relationship_entry("一般", "关系较好", "第4次", int(MID_MARCH.timestamp()) + 4)
    chosen = for_context([fear, *others, *changes(5), entry])
    assert chosen[:CONTEXT_LIMIT] == [*others, fear] and chosen[CONTEXT_LIMIT:] == [entry]


def test_without_a_current_entry_the_newest_change_stands_for_it() -> None:
    fear = core("他极度恐高", datetime(2025, 1, 1, tzinfo=UTC), importance=8)
    history = changes(5)
    assert for_context([*reversed(history), fear]) == [fear, history[-1]]
    parts = split([*reversed(history), fear])
    assert parts.history == history and parts.current == [fear] and parts.relationship == history[-1]


def test_the_current_entry_is_the_persons_core_list_and_not_history() -> None:
    entry = relationship_entry("关系较好", "特别关心", "", int(MID_MARCH.timestamp()))
    parts = split([entry, *changes(2)])
    assert entry.id == RELATIONSHIP_ID and entry.content == "你们现在的关系是「特别关心」（此前是「关系较好」）"
    assert parts.current == [entry] and parts.relationship == entry and len(parts.history) == 2


def test_a_person_who_rates_a_relationship_entry_ten_does_not_lift_it_into_the_five() -> None:
    five = [core(f"事实{i}", MID_MARCH, importance=9) for i in range(5)]
    lifted = changes(1)[0].model_copy(update={"importance": 10})
    assert for_context([*five, lifted]) == [*five, lifted]  # the five, then the one relationship line


def test_the_core_judgment_sees_the_current_entries_and_one_relationship_line() -> None:
    fear = core("他极度恐高", MID_MARCH, importance=8)
    entry = relationship_entry("一般", "关系较好", "第29次", int(MID_MARCH.timestamp()) + 30)
    history = changes(30)
    assert judged_against([fear, *history, entry]) == [fear, entry]
    assert judged_against([*reversed(history), fear]) == [fear, history[-1]]  # an old store: its newest change
    repeated = Candidate(create=True, content=history[3].content, importance=9)
    assert admission_problem(repeated, [fear, *history, entry], MID_MARCH, SHANGHAI) == "a similar core memory exists"
    assert admission_problem(repeated, judged_against([fear, *history, entry]), MID_MARCH, SHANGHAI) is None
