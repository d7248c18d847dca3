"""The spec's index line, 约 50 字/条 (issue 39 part 5): each memory's line in the context's index (its
date and key points) is at most INDEX_LINE_CHARS 字, its end cut to fit, and the budget goes to more
memories rather than to text never shown."""

from __future__ import annotations

from dataclasses import replace

from dreamchat.llm.chat_context import INDEX_HEADER, INDEX_LINE_CHARS, TURN_MEMORY_HEADER, TurnRecall, assemble, zi
from tests.unit.test_context import NOW, SHANGHAI, index, view_of

LONG_ZH = [f"第{n}次去杭州西湖边的那家老茶馆喝龙井，和老板聊了很久他年轻时跑船的故事" for n in range(4)]
LONG_EN = [
    f"Visit {n}: Caroline went to the LGBTQ support group and told everyone about her adoption plans again"
    for n in range(4)
]


def index_lines(text: str) -> list[str]:
    return [line for line in text.split("\n") if line.startswith("- ")]


def test_every_index_line_is_at_most_fifty_zi_however_long_its_memory() -> None:
    entries = [index(n, "茶馆", 30 - n, LONG_ZH) for n in range(1, 8)]
    entries += [index(n, "support group", 30 - n, LONG_EN) for n in range(8, 15)]
    names = [e.id for e in entries]
    context = assemble(view_of(entries, names), "", "茶馆 support group", NOW, SHANGHAI, 1700)
    long_term = next(s.text for s in context.sections if s.name == "long_term")
    lines = index_lines(long_term)
    assert len(lines) == len(entries)  # every memory got its line: the cut text left room for all
    assert all(zi(line) <= INDEX_LINE_CHARS for line in lines), max(lines, key=zi)
    assert all(line.endswith("…") for line in lines)  # each was longer, so each was cut
    head = len("- 2026-02-14 ") - zi("- 2026-02-14 ")  # a date is 6 字: its numbers and marks
    chinese = [line for line in lines if "茶馆" in line]
    assert chinese and all(len(line) - head <= INDEX_LINE_CHARS for line in chinese)  # else one character, one 字
    assert zi("Caroline's support group, 2023") == 5 and zi("团子第3次剪指甲") == 8
    assert long_term.startswith(INDEX_HEADER)


def test_a_short_memory_is_shown_whole_and_a_cut_one_loses_only_its_end() -> None:
    entries = [index(1, "猫", 3, ["养了一只橘猫"]), index(2, "茶馆", 2, LONG_ZH)]
    context = assemble(view_of(entries, ["long_1", "long_2"]), "", "猫 茶馆", NOW, SHANGHAI, 1700)
    lines = index_lines(next(s.text for s in context.sections if s.name == "long_term"))
    assert lines[0].endswith(" 养了一只橘猫")
    assert lines[1].startswith("- 2026-03-13 第") and LONG_ZH[0][:20] in lines[1]


def test_the_per_turn_block_cuts_its_lines_too() -> None:
    entries = [index(n, "茶馆", 30 - n, LONG_ZH) for n in range(1, 4)]
    view = replace(view_of(entries, ["long_1"]), turn=TurnRecall(view_of(entries, ["long_2", "long_3"]).hits))
    context = assemble(view, "", "茶馆", NOW, SHANGHAI, 60, turn_budget=400)
    turn = next(s.text for s in context.sections if s.name == "turn_memory")
    assert turn.startswith(TURN_MEMORY_HEADER)
    assert index_lines(turn) and all(zi(line) <= INDEX_LINE_CHARS for line in index_lines(turn))
