"""Fine-grained hybrid retrieval: units ranked by words and vectors, and vectors as stored."""

from __future__ import annotations

import numpy as np

from dreamchat.domain import vectors as vec
from dreamchat.domain.retrieval import Query, Unit, build_index, search

SWIM = Unit("long_1#000", "long_1", "每周去游泳三次", 100, "day", "运动")
BANK = Unit("long_2#000", "long_2", "在银行上班", 200, "day", "工作")
CAT = Unit("long_3#000", "long_3", "养了一只橘猫", 300, "day", "宠物")
PIANO = Unit("long_4#000", "long_4", "周末学钢琴", 400, "day", "爱好")


def axis(n: int, size: int = 8) -> np.ndarray:
    vector = np.zeros(size, dtype=np.float32)
    vector[n] = 1.0
    return vector


def index_with_meaning():
    units = [SWIM, BANK, CAT, PIANO] + [
        Unit(f"long_{n}#000", f"long_{n}", f"杂事{n}", n, "day", "") for n in range(5, 30)
    ]
    vectors = [axis(0), axis(1), axis(2), axis(3)] + [axis(4 + n % 4) * 0.1 + axis(1 + n % 3) for n in range(25)]
    return build_index(units, [vec.normalised(v[None])[0] for v in vectors])


def test_a_question_sharing_no_word_with_a_memory_finds_it_by_meaning() -> None:
    query = Query("她喜欢什么运动", vectors=axis(0)[None])
    hits = search(index_with_meaning(), query)
    assert hits[0].unit == SWIM


def test_without_vectors_words_alone_rank_the_units() -> None:
    index = build_index([SWIM, BANK, CAT], [None, None, None])
    hits = search(index, Query("你还在银行上班吗"))
    assert hits[0].unit == BANK and hits[0].relevant


def test_a_message_about_nothing_remembered_marks_nothing_relevant() -> None:
    index = build_index([SWIM, BANK, CAT, PIANO], [None] * 4)
    assert not any(hit.relevant for hit in search(index, Query("哈哈好的")))


def test_a_message_naming_two_events_covers_both() -> None:
    vector = axis(0) + axis(3)
    query = Query("每周游泳的事和周末学钢琴的事", vectors=np.stack([vector / np.linalg.norm(vector)]))
    assert query.texts == [query.message]  # the conversation is embedded as one text
    top = {hit.unit for hit in search(index_with_meaning(), query)[:2]}
    assert top == {SWIM, PIANO}


def test_the_recent_turns_join_the_query() -> None:
    query = Query("那后来呢", recent="你上次说去游泳")
    assert query.texts[-1] == "你上次说去游泳\n那后来呢"
    assert search(build_index([SWIM, BANK, CAT], [None] * 3), query)[0].unit == SWIM


def test_vectors_of_another_size_than_the_querys_are_ignored_not_fatal() -> None:
    hits = search(index_with_meaning(), Query("在银行上班", vectors=np.ones((1, 5), dtype=np.float32)))
    assert hits[0].unit == BANK


def test_stored_vectors_survive_the_round_trip_as_int8() -> None:
    rows = np.random.default_rng(1).normal(size=(3, 1024)).astype(np.float32)
    stored = vec.store("api:m", ["a", "b", "c"], rows)
    back = vec.usable(vec.StoredVectors.from_item(stored.to_item()), "api:m", ["a", "b", "c"])
    assert back is not None and back.shape == (3, 1024)
    cosine = (back * vec.normalised(rows)).sum(axis=1)
    assert (cosine > 0.99).all()
    assert len(stored.data) < 3 * 1024 * 1.4  # one byte a dimension, in base64


def test_vectors_of_another_model_or_of_edited_texts_are_stale() -> None:
    stored = vec.store("api:m", ["a", "b"], np.ones((2, 4)))
    assert vec.usable(stored, "api:other", ["a", "b"]) is None
    assert vec.usable(stored, "api:m", ["a", "changed"]) is None
    assert vec.usable(stored, "", ["a", "b"]) is None


def test_garbage_stored_vectors_are_ignored() -> None:
    assert vec.StoredVectors.from_item({"model": "m", "digest": 3}) is None
    assert vec.StoredVectors.from_item("junk") is None
    broken = vec.StoredVectors("api:m", vec.digest(["a", "b"]), "not base64!!")
    assert vec.usable(broken, "api:m", ["a", "b"]) is None
    odd = vec.StoredVectors("api:m", vec.digest(["a", "b"]), "AQID")  # 3 bytes for 2 texts
    assert vec.usable(odd, "api:m", ["a", "b"]) is None


def test_a_greeting_is_small_talk_even_when_a_memory_shares_its_words() -> None:
    units = [SWIM, BANK, CAT, PIANO, Unit("long_5#000", "long_5", "换了 new job, three days off", 500, "day", "工作")]
    index = build_index(units, [None] * 5)
    assert not any(hit.relevant for hit in search(index, Query("Hey! It's been a few days. What's new with you?")))
    assert any(hit.relevant for hit in search(index, Query("How is the new job?")))


def test_a_message_naming_a_time_favours_the_units_made_then_and_counts_them_relevant() -> None:
    day = 86400
    made = [Unit(f"long_{n}#000", f"long_{n}", f"去了第{n}个地方玩", n * 30 * day, "day", "") for n in range(1, 13)]
    index = build_index(made, [None] * len(made))
    plain = search(index, Query("去哪儿玩了"))
    assert not any(hit.relevant for hit in plain)
    then = made[4].created_at  # the fifth unit's day, as `named_period` would give it
    hits = search(index, Query("去哪儿玩了", period=(then, then + day)))
    assert hits[0].unit == made[4] and hits[0].relevant
    assert [hit.unit for hit in hits if hit.relevant] == [made[4]]  # only what was made then (with its slack)


def test_the_other_units_of_the_memory_matched_best_rank_above_a_stray_match(monkeypatch) -> None:
    from dreamchat.domain import retrieval

    best = Unit("long_1#000", "long_1", "游泳比赛拿了冠军", 100, "day", "比赛")
    sibling = Unit("long_1#001", "long_1", "教练很严格", 100, "day", "比赛")
    stray = Unit("long_2#000", "long_2", "在银行上班", 200, "day", "工作")
    others = [Unit(f"long_{n}#000", f"long_{n}", f"杂事{n}", n, "day", "") for n in range(3, 9)]
    vectors = [axis(0), axis(0) * 0.6 + axis(2), axis(0) * 0.8 + axis(1)] + [axis(3 + n % 4) for n in range(6)]
    index = build_index([best, sibling, stray, *others], [vec.normalised(v[None])[0] for v in vectors])
    query = Query("游泳", vectors=axis(0)[None])

    def order() -> list[Unit]:
        return [hit.unit for hit in search(index, query)[:3]]

    assert order() == [best, sibling, stray]
    monkeypatch.setattr(retrieval, "PARENT_WEIGHT", 0.0)
    assert order() == [best, stray, sibling]  # by its own score alone the stray match is ahead
