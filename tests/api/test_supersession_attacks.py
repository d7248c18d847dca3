"""Attacks on supersession through the API (issue 28): bad `undo_supersede` bodies, crafted import
documents (`superseded`, the relationship's current entry), and bad `supersedes` from the model
through the real contract parser. Each bad input is a 4xx naming the problem and stores nothing, or
(from the model) is dropped and counted; never a 500, never a mark on a point the run did not show."""

from __future__ import annotations

import copy
import json

import pytest

from dreamchat.domain.bounds import KEY_POINTS
from tests.api.test_memory_export import forget_and_befriend, import_into
from tests.api.test_supersession_api import NEW, OLD, long_term_text, tell


@pytest.fixture
def moved(person, ai, fake_llm, clock) -> tuple[dict, dict]:
    """Beijing, then the move to Shanghai marking it past: (old entry, new entry) as the view lists them."""
    tell(person, ai, fake_llm, clock, OLD, [])
    tell(person, ai, fake_llm, clock, NEW, [{"id": "k1", "key_point": 0}])
    return entries(person, ai)


def entries(person, ai) -> tuple[dict, dict]:
    old, new = sorted(person.get(f"/api/memory/{ai['id']}/files").json()["long_term"], key=lambda e: e["created_at"])
    return old, new


@pytest.mark.parametrize(
    "bad",
    [[], [-1], [20], [10**9], ["0"], [None], [[0]], [0.0], [True], {"0": 0}, "0", 0, [1], [0, 1], [0] * 9_999 + [1]],
    ids=lambda b: repr(b)[:20],
)
def test_a_bad_undo_is_refused_with_its_reason_and_changes_nothing(person, ai, moved, bad) -> None:
    old, new = moved
    before = person.get(f"/api/memory/{ai['id']}/files").json()
    answer = person.put(f"/api/memory/{ai['id']}/long_term", json={"id": old["id"], "undo_supersede": bad})
    assert answer.status_code == 422, (bad, answer.text)
    assert "undo_supersede" in answer.json()["error"]["message"]
    assert person.get(f"/api/memory/{ai['id']}/files").json() == before


@pytest.mark.parametrize("repeated", [[0, 0], [0] * 10_000], ids=["twice", "10000 times"])
def test_an_undo_naming_a_point_again_undoes_it_once(person, ai, moved, repeated) -> None:
    old, _ = moved
    answer = person.put(f"/api/memory/{ai['id']}/long_term", json={"id": old["id"], "undo_supersede": repeated})
    assert answer.status_code == 200 and answer.json()["memory"]["superseded"] == []


def with_many_points(document: dict, points: int, marked: list[int]) -> dict:
    """The old entry holding `points` key points (as an import may: more than an extraction writes),
    the `marked` ones superseded by the new entry's key point."""
    crafted = copy.deepcopy(document)
    index, new_id = crafted["long_term"][0]["index"], crafted["long_term"][1]["index"]["id"]
    index["key_points"] = [f"第{n}件事" for n in range(points)]
    index["sources"] = [""] * points
    index["superseded"] = [{"point": n, "superseded_by": f"{new_id}#000", "at": 1_770_000_000} for n in marked]
    return crafted


def test_an_undo_reaches_every_key_point_an_entry_may_hold(person, ai, moved) -> None:
    """An entry may hold as many key points as the bounds allow (an import may fill them all); an undo
    reaches each of them, the last included (it once stopped at a fixed count of its own)."""
    most = KEY_POINTS
    document = with_many_points(exported_and_forgotten(person, ai), most, [3, most - 5, most - 3, most - 1])
    assert import_into(person, ai["id"], document).status_code == 200, "the import"
    old, _ = entries(person, ai)
    assert [s["point"] for s in old["superseded"]] == [3, most - 5, most - 3, most - 1]
    one = person.put(f"/api/memory/{ai['id']}/long_term", json={"id": old["id"], "undo_supersede": [most - 3]})
    assert one.status_code == 200, one.text
    assert [s["point"] for s in one.json()["memory"]["superseded"]] == [3, most - 5, most - 1]
    every = person.put(f"/api/memory/{ai['id']}/long_term", json={"id": old["id"], "undo_supersede": list(range(most))})
    assert every.status_code == 200, every.text
    assert entries(person, ai)[0]["superseded"] == []
    past = person.put(f"/api/memory/{ai['id']}/long_term", json={"id": old["id"], "undo_supersede": [most]})
    assert past.status_code == 422 and f"no key point {most} (it has {most})" in past.json()["error"]["message"]


def test_an_import_holding_more_key_points_than_an_entry_may_is_refused(person, ai, moved) -> None:
    document = with_many_points(exported_and_forgotten(person, ai), KEY_POINTS + 1, [3])
    answer = import_into(person, ai["id"], document)
    assert answer.status_code == 422 and "key_points" in answer.text


@pytest.mark.parametrize("tier", ["mid_term", "core", "short_term"])
def test_an_undo_on_another_tier_is_refused(person, ai, moved, tier) -> None:
    files = person.get(f"/api/memory/{ai['id']}/files").json()
    answer = person.put(f"/api/memory/{ai['id']}/{tier}", json={"id": "any", "undo_supersede": [0]})
    assert answer.status_code == 422 and "undo_supersede" in answer.json()["error"]["message"]
    assert person.get(f"/api/memory/{ai['id']}/files").json() == files


def exported_and_forgotten(person, ai) -> dict:
    document = person.get(f"/api/memory/{ai['id']}/export").json()
    forget_and_befriend(person, ai["id"])
    return document


def with_marks(document: dict, marks: list) -> dict:
    crafted = copy.deepcopy(document)
    crafted["long_term"][0]["index"]["superseded"] = marks
    return crafted


@pytest.mark.parametrize(
    "marks",
    [
        [{"point": -1, "superseded_by": "x#000", "at": 0}],
        [{"point": 1, "superseded_by": "x#000", "at": 0}],  # the entry has one key point
        [{"point": 0, "superseded_by": 5, "at": 0}],
        [{"point": 0, "superseded_by": "", "at": 0}],
        [{"point": 0, "superseded_by": "x#000", "at": "June"}],
        [{"point": 0, "superseded_by": "x#000"}],
        [{"point": 0, "superseded_by": "x#000", "at": 0, "extra": 1}],
        [[0, "x#000", 0]],
        {"point": 0},
        None,
    ],
    ids=lambda m: json.dumps(m)[:30],
)
def test_an_import_with_a_malformed_supersession_is_refused_and_writes_nothing(person, ai, moved, marks) -> None:
    document = exported_and_forgotten(person, ai)
    answer = import_into(person, ai["id"], with_marks(document, marks))
    assert answer.status_code == 422, answer.text
    assert "long_term" in answer.json()["error"]["message"]
    assert person.get(f"/api/memory/{ai['id']}/files").json()["long_term"] == []


def test_an_import_marking_one_point_twice_is_refused(person, ai, moved) -> None:
    document = exported_and_forgotten(person, ai)
    mark = document["long_term"][0]["index"]["superseded"][0]
    answer = import_into(person, ai["id"], with_marks(document, [mark, {**mark, "at": mark["at"] + 1}]))
    assert answer.status_code == 422 and "twice" in answer.json()["error"]["message"], answer.text
    assert person.get(f"/api/memory/{ai['id']}/files").json()["long_term"] == []


WHEN = 1_770_000_000  # a time of the product's range (an import refuses any other)


def test_an_import_naming_a_point_or_an_entry_it_does_not_hold_keeps_no_such_mark(person, ai, moved) -> None:
    """As docs/memory-export.md says: a reference to something not in the document is dropped."""
    document = exported_and_forgotten(person, ai)
    new_id = document["long_term"][1]["index"]["id"]
    marks = [
        {"point": 0, "superseded_by": f"{new_id}#007", "at": WHEN},  # the new entry has one key point
    ]
    assert import_into(person, ai["id"], with_marks(document, marks)).status_code == 200
    old, _ = entries(person, ai)
    assert old["superseded"] == [] and "以前：" not in long_term_text(person, ai)
    forget_and_befriend(person, ai["id"])
    foreign = [{"point": 0, "superseded_by": "long_9999999999_ffffffff#000", "at": WHEN}]
    assert import_into(person, ai["id"], with_marks(document, foreign)).status_code == 200
    assert entries(person, ai)[0]["superseded"] == []


def test_an_import_whose_supersessions_loop_leaves_both_facts_current_and_every_view_answers(person, ai, moved) -> None:
    document = exported_and_forgotten(person, ai)
    old_id, new_id = (e["index"]["id"] for e in document["long_term"])
    crafted = copy.deepcopy(document)
    crafted["long_term"][0]["index"]["superseded"] = [{"point": 0, "superseded_by": f"{new_id}#000", "at": WHEN + 1}]
    crafted["long_term"][1]["index"]["superseded"] = [{"point": 0, "superseded_by": f"{old_id}#000", "at": WHEN + 2}]
    assert import_into(person, ai["id"], crafted).status_code == 200
    text = long_term_text(person, ai)
    assert OLD in text and NEW in text and "以前：" not in text
    assert person.get(f"/api/memory/{ai['id']}/files").status_code == 200
    assert person.get(f"/api/memory/{ai['id']}/export").status_code == 200


CURRENT = {
    "id": "core_rel_current",
    "content": "你们现在的关系是「好朋友」（此前是「普通朋友」）",
    "importance": 8,
    "category": "关系",
    "created_at": 1_770_000_000,
    "source": "relationship",
}


def core_document(person, ai) -> dict:
    """An export whose core memory holds the current relationship entry (as a level change leaves it)."""
    document = exported_and_forgotten(person, ai)
    return {**document, "core": [*document["core"], CURRENT]}


def test_an_import_with_the_current_relationship_entry_twice_or_in_history_is_refused(person, ai) -> None:
    document = core_document(person, ai)
    current = next(c for c in document["core"] if c["id"] == "core_rel_current")
    twice = {**document, "core": [*document["core"], current]}
    in_history = copy.deepcopy(document)
    in_history["relationship"]["history"].append({**current})
    for crafted in (twice, in_history):
        answer = import_into(person, ai["id"], crafted)
        assert answer.status_code == 422 and "core_rel_current" in answer.json()["error"]["message"], answer.text
    assert person.get(f"/api/memory/{ai['id']}/files").json()["core"] == []


@pytest.mark.parametrize("source", ["ai", "person"])
def test_an_import_whose_current_relationship_entry_is_not_the_relationships_is_refused(person, ai, source) -> None:
    """Else the entry is both one of the top five and the relationship line: said twice in the context."""
    document = core_document(person, ai)
    crafted = copy.deepcopy(document)
    next(c for c in crafted["core"] if c["id"] == "core_rel_current")["source"] = source
    answer = import_into(person, ai["id"], crafted)
    assert answer.status_code == 422 and "core_rel_current" in answer.json()["error"]["message"], answer.text
    assert person.get(f"/api/memory/{ai['id']}/files").json()["core"] == []


BAD_SUPERSEDES = [
    "k1",
    {"id": "k1", "key_point": 0},
    [{"id": 1, "key_point": 0}],
    [{"id": "k1", "key_point": -1}],
    [{"id": "k1", "key_point": 1e9}],
    [{"id": "k1", "key_point": "0"}],
    [{"id": "k1"}],
    [["k1", 0]],
    [None],
    [{"id": "k1", "key_point": 0}] * 1000,
    [{"id": f"k{n}", "key_point": 0} for n in range(1000)],
]


@pytest.mark.parametrize("supersedes", BAD_SUPERSEDES, ids=lambda s: json.dumps(s)[:30])
def test_a_bad_supersedes_from_the_model_marks_nothing_wrong_and_the_extraction_stands(
    person, ai, fake_llm, clock, supersedes
) -> None:
    tell(person, ai, fake_llm, clock, OLD, [])
    extracted = tell(person, ai, fake_llm, clock, NEW, supersedes)
    old, new = entries(person, ai)
    assert new["key_points"] == [NEW] and not new["degraded"]  # the memory itself is kept
    marks = [(s["point"], s["superseded_by"]) for s in old["superseded"]]
    assert marks in ([], [(0, f"{new['id']}#000")])  # at most the one point shown, by the one key point
    assert extracted["superseded"] == len(marks)
    assert extracted["superseded"] + extracted["supersessions_dropped"] >= 1  # every proposal is marked or counted


def test_a_new_memory_naming_its_own_key_point_marks_nothing(person, ai, fake_llm, clock) -> None:
    """The model cannot be shown its own new points: a proposal naming `k2` when only `k1` was shown is dropped."""
    tell(person, ai, fake_llm, clock, OLD, [])
    extracted = tell(person, ai, fake_llm, clock, NEW, [{"id": "k2", "key_point": 0}, {"id": "k0", "key_point": 0}])
    assert (extracted["superseded"], extracted["supersessions_dropped"]) == (0, 2)
    assert all(e["superseded"] == [] for e in entries(person, ai))


def test_an_import_with_the_current_relationship_entry_in_its_place_keeps_it(person, ai) -> None:
    answer = import_into(person, ai["id"], core_document(person, ai))
    assert answer.status_code == 200, answer.text
    files = person.get(f"/api/memory/{ai['id']}/files").json()
    assert [c["id"] for c in files["core"]] == ["core_rel_current"]
