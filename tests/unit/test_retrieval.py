"""On-demand retrieval over the long-term index: search words, BM25 ranking, strong matches."""

from __future__ import annotations

from dreamchat.domain.models import LongTermIndex
from dreamchat.domain.retrieval import Scored, rank, strong_matches, words


def entry(number: int, title: str, *points: str) -> LongTermIndex:
    return LongTermIndex(
        id=f"long_{number}",
        title=title,
        key_points=list(points),
        detail_file=f"long_term_details/{number}.json",
        created_at=1_700_000_000 + number,
    )


WEST_LAKE = entry(1, "杭州西湖旅行", "一起去了断桥", "下雨了")
BIRTHDAY = entry(2, "生日派对", "他喜欢草莓蛋糕")
EXAM = entry(3, "考研复习计划", "每天早起背单词")
PUDDING = entry(4, "猫咪布丁", "布丁是一只橘猫", "布丁怕打雷")
ENTRIES = [WEST_LAKE, BIRTHDAY, EXAM, PUDDING]


# --- search words -------------------------------------------------------------------------


def test_chinese_is_cut_into_words_by_jieba() -> None:
    assert words("杭州西湖旅行") == ["杭州", "西湖", "旅行"]


def test_jieba_search_mode_also_yields_the_longer_compound() -> None:
    assert "复习计划" in words("考研复习计划")
    assert "复习" in words("考研复习计划")


def test_latin_words_are_lower_cased_and_kept_whole() -> None:
    assert words("I love Python and iPhone15") == ["love", "python", "iphone15"]


def test_stop_words_are_dropped_in_both_languages() -> None:
    assert words("我的猫咪") == ["猫咪"]
    assert words("the cat and the dog") == ["cat", "dog"]


def test_punctuation_and_spaces_give_no_words() -> None:
    assert words("  ，。！？... ") == []
    assert words("") == []


def test_mixed_text_keeps_its_order() -> None:
    assert words("猫咪布丁 Pudding 2026") == ["猫咪", "布丁", "pudding", "2026"]


# --- ranking ------------------------------------------------------------------------------


def test_the_entry_matching_the_query_comes_first() -> None:
    ranked = rank("还记得我们在西湖淋雨吗", ENTRIES)
    assert ranked[0].entry == WEST_LAKE
    assert ranked[0].score > 0


def test_ranking_keeps_every_entry() -> None:
    ranked = rank("布丁今天乖吗", ENTRIES)
    assert sorted(s.entry.id for s in ranked) == sorted(e.id for e in ENTRIES)
    assert ranked[0].entry == PUDDING


def test_entries_that_share_nothing_with_the_query_score_zero() -> None:
    ranked = rank("西湖", ENTRIES)
    assert [s.score for s in ranked if s.entry != WEST_LAKE] == [0.0, 0.0, 0.0]


def test_a_query_without_search_words_scores_everything_zero_in_the_given_order() -> None:
    assert rank("的了吗", ENTRIES) == [Scored(e, 0.0) for e in ENTRIES]


def test_no_entries_means_no_ranking() -> None:
    assert rank("西湖", []) == []


def test_a_word_found_in_every_entry_still_counts_as_a_match() -> None:
    everywhere = [entry(n, f"西湖{topic}") for n, topic in enumerate(["散步", "划船", "拍照"])]
    assert all(s.score > 0 for s in rank("西湖", everywhere))


def test_ranking_is_case_insensitive_for_latin_words() -> None:
    coding = entry(5, "Learning Python", "started with Flask")
    assert rank("PYTHON flask", [EXAM, coding])[0].entry == coding


# --- strong matches: the ones whose detail documents are loaded ---------------------------


def test_a_query_naming_at_least_half_of_a_title_is_a_strong_match() -> None:
    query = "杭州的西湖真美"  # 杭州 and 西湖: two of the title's three words
    assert [s.entry for s in strong_matches(query, rank(query, ENTRIES))] == [WEST_LAKE]


def test_a_query_sharing_two_words_with_the_key_points_is_a_strong_match() -> None:
    query = "草莓蛋糕好吃吗"  # nothing of the title, two words of a key point
    assert [s.entry for s in strong_matches(query, rank(query, ENTRIES))] == [BIRTHDAY]


def test_one_shared_word_outside_most_of_the_title_is_not_strong() -> None:
    query = "西湖好看吗"  # one of three title words, and nothing else
    ranked = rank(query, ENTRIES)
    assert ranked[0].entry == WEST_LAKE
    assert strong_matches(query, ranked) == []


def test_at_most_two_strong_matches_are_loaded() -> None:
    cats = [entry(n, f"猫咪布丁{n}", "布丁是橘猫") for n in range(3)]
    others = [entry(10 + n, f"旅行{n}", f"去了城市{n}") for n in range(12)]
    query = "猫咪布丁是橘猫"
    assert len(strong_matches(query, rank(query, cats + others))) == 2
    assert len(strong_matches(query, rank(query, cats + others), limit=3)) == 3


def test_words_found_in_most_entries_do_not_make_a_strong_match() -> None:
    days = [entry(n, f"今天{n}", "今天过得很好") for n in range(6)]
    query = "今天怎么样"
    assert strong_matches(query, rank(query, days)) == []


def test_entries_scoring_zero_are_never_strong_matches() -> None:
    unranked = [Scored(WEST_LAKE, 0.0)]
    assert strong_matches("杭州西湖旅行", unranked) == []


def test_strong_matches_keep_the_ranking_order() -> None:
    query = "布丁怕打雷，草莓蛋糕"
    strong = strong_matches(query, rank(query, ENTRIES))
    assert [s.entry.id for s in strong] == [PUDDING.id, BIRTHDAY.id]
    assert strong[0].score > strong[1].score
