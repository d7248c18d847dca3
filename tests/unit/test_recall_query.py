"""The turn's retrieval query: the conversation and the feeling it shows, matched against memories' tags."""

from __future__ import annotations

import numpy as np

from dreamchat.domain.emotions import cued_labels
from dreamchat.domain.recall_query import turn_query
from dreamchat.domain.retrieval import Query, Unit, build_index, search


def test_the_query_is_the_message_with_the_two_messages_before_it() -> None:
    before = [("user", "早上好"), ("user", "今天开会又被挑毛病了"), ("assistant", "怎么啦？")]
    query = turn_query("稿子被说不行", before)
    assert query.message == "稿子被说不行"
    assert query.recent == "今天开会又被挑毛病了\n怎么啦？"


def test_the_feeling_comes_from_the_persons_words_not_the_companions() -> None:
    assert "失落" in turn_query("唉，好难过", [("assistant", "哈哈太好了")]).feeling
    assert "开心" not in turn_query("唉，好难过", [("assistant", "哈哈太好了")]).feeling


def test_a_text_that_cues_nothing_shows_no_feeling() -> None:
    assert cued_labels("明天几点见") == ()
    assert cued_labels("不开心") == ("失落",)


def unit(number: int, text: str, tags: tuple[str, ...] = ()) -> Unit:
    return Unit(f"long_{number}#000", f"long_{number}", text, 1_700_000_000 + number, tags=tags)


def test_a_memory_tagged_with_the_feeling_shown_ranks_above_one_that_is_not() -> None:
    units = [unit(1, "周末去爬山", ("开心", "闲聊", "轻松")), unit(2, "周末去游泳", ("失落", "求助", "平和"))]
    units += [unit(n, f"别的事情{n}") for n in range(3, 9)]
    index = build_index(units, [None] * len(units))
    hits = search(index, Query("周末", feeling=("失落",)))
    assert hits[0].unit.id == "long_2#000"
    assert not any(h.relevant for h in hits if h.unit.id == "long_2#000" and "周末" not in h.unit.text)


def test_meaning_leads_and_shared_words_break_near_ties() -> None:
    units = [unit(1, "团子是一只橘猫"), unit(2, "外婆做的青团"), unit(3, "学游泳")]
    vectors = [np.array([1.0, 0.0]), np.array([0.999, 0.045]), np.array([0.0, 1.0])]
    index = build_index(units, [v / np.linalg.norm(v) for v in vectors])
    query = Query("青团", vectors=np.array([[1.0, 0.0]], dtype=np.float32))
    order = [h.unit.id for h in search(index, query)]
    assert order[:2] == ["long_2#000", "long_1#000"]
    far = Query("游泳", vectors=np.array([[1.0, 0.0]], dtype=np.float32))
    assert [h.unit.id for h in search(index, far)][0] == "long_1#000"  # words never outweigh a clear meaning
