"""The spec's index line, 约 50 字/条 (issue 39 part 5): each memory's line in the context's index (its
date and key points) is at most INDEX_LINE_CHARS 字, its end cut to fit, and the budget goes to more
memories rather than to text never shown. The memories the message is about are not index entries:
their key points are shown whole under POINTS_HEADER (or in the per-turn block), since a cut line
loses the very facts asked about."""

from __future__ import annotations

from dataclasses import replace

from dreamchat.domain.retrieval import Hit
from dreamchat.llm.chat_context import (
    INDEX_HEADER,
    INDEX_LINE_CHARS,
    POINTS_HEADER,
    TURN_MEMORY_HEADER,
    WHOLE_HITS,
    TurnRecall,
    assemble,
    zi,
)
from tests.unit.test_context import NOW, SHANGHAI, index, view_of

LONG_ZH = [f"第{n}次去杭州西湖边的那家老茶馆喝龙井，和老板聊了很久他年轻时跑船的故事" for n in range(4)]
LONG_EN = [
    f"Visit {n}: Caroline went to the LGBTQ support group and told everyone about her adoption plans again"
    for n in range(4)
]


def lines_under(header: str, text: str) -> list[str]:
    """The `- ` lines of the block `header` opens, up to the next 【…】 header."""
    block = text.split(header, 1)[1] if header in text else ""
    lines = []
    for line in block.split("\n")[1:]:
        if line.startswith("【"):
            break
        lines.append(line)
    return [line for line in lines if line.startswith("- ")]


def long_term_of(entries, relevant: list[str], message: str, budget: int = 1700) -> str:
    context = assemble(view_of(entries, relevant), "", message, NOW, SHANGHAI, budget)
    return next(s.text for s in context.sections if s.name == "long_term")


def test_every_index_line_is_at_most_fifty_zi_however_long_its_memory() -> None:
    entries = [index(n, "茶馆", 30 - n, LONG_ZH) for n in range(1, 8)]
    entries += [index(n, "support group", 30 - n, LONG_EN) for n in range(8, 15)]
    long_term = long_term_of(entries, [], "今天天气不错")  # about nothing remembered: the index alone
    lines = lines_under(INDEX_HEADER, long_term)
    assert len(lines) == len(entries)  # every memory got its line: the cut text left room for all
    assert all(zi(line) <= INDEX_LINE_CHARS for line in lines), max(lines, key=zi)
    assert all(line.endswith("…") for line in lines)  # each was longer, so each was cut
    head = len("- 2026-02-14 ") - zi("- 2026-02-14 ")  # a date is 6 字: its numbers and marks
    chinese = [line for line in lines if "茶馆" in line]
    assert chinese and all(len(line) - head <= INDEX_LINE_CHARS for line in chinese)  # else one character, one 字
    assert zi("Caroline's support group, 2023") == 5 and zi("团子第3次剪指甲") == 8
    assert long_term.startswith(INDEX_HEADER) and POINTS_HEADER not in long_term


def test_the_memories_the_message_is_about_show_their_points_whole_and_the_rest_stay_index_lines() -> None:
    entries = [index(n, "茶馆", 30 - n, LONG_ZH) for n in range(1, 4)]
    entries += [index(n, "support group", 30 - n, LONG_EN) for n in range(4, 8)]
    long_term = long_term_of(entries, ["long_2"], "茶馆")
    index_lines, whole = lines_under(INDEX_HEADER, long_term), lines_under(POINTS_HEADER, long_term)
    assert len(whole) == 1 and all(point in whole[0] for point in LONG_ZH)  # every key point, uncut
    assert len(index_lines) == len(entries) - 1  # the others, once each, in the index
    assert all(zi(line) <= INDEX_LINE_CHARS and line.endswith("…") for line in index_lines)
    assert sum(LONG_ZH[3] in line for line in long_term.split("\n")) == 1  # not in the index as well


def test_a_short_memory_is_shown_whole_and_a_cut_one_loses_only_its_end() -> None:
    entries = [index(1, "猫", 3, ["养了一只橘猫"]), index(2, "茶馆", 2, LONG_ZH)]
    lines = lines_under(INDEX_HEADER, long_term_of(entries, [], "你好"))
    assert lines[0].endswith(" 养了一只橘猫")
    assert lines[1].startswith("- 2026-03-13 第") and LONG_ZH[0][:20] in lines[1] and lines[1].endswith("…")


def test_the_per_turn_block_shows_what_the_message_calls_up_whole() -> None:
    entries = [index(n, "茶馆", 30 - n, LONG_ZH) for n in range(1, 4)]
    view = replace(view_of(entries, ["long_1"]), turn=TurnRecall(view_of(entries, ["long_2", "long_3"]).hits))
    context = assemble(view, "", "茶馆", NOW, SHANGHAI, 60, turn_budget=400)
    turn = next(s.text for s in context.sections if s.name == "turn_memory")
    assert turn.startswith(TURN_MEMORY_HEADER) and INDEX_HEADER not in turn
    lines = lines_under(TURN_MEMORY_HEADER, turn)
    assert lines and any(all(point in line for point in LONG_ZH) for line in lines)


def test_the_first_hits_show_whole_even_when_no_word_marks_them_relevant() -> None:
    entries = [index(n, "茶馆", 30 - n, LONG_ZH) for n in range(1, WHOLE_HITS + 4)]
    ranked = [u for u in view_of(entries).units if u.parent_id == "long_1"]  # the best, by meaning alone
    others = [u for u in view_of(entries).units if u.parent_id != "long_1"]
    view = replace(view_of(entries), hits=[Hit(u, 0.5, False) for u in [*ranked, *others]])
    long_term = next(s.text for s in assemble(view, "", "喝茶", NOW, SHANGHAI, 1700).sections if s.name == "long_term")
    whole, index_lines = lines_under(POINTS_HEADER, long_term), lines_under(INDEX_HEADER, long_term)
    assert any(all(point in line for point in LONG_ZH) for line in whole)  # the best hit's memory, whole
    assert index_lines and all(zi(line) <= INDEX_LINE_CHARS for line in index_lines)  # hits past the first
