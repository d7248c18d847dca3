"""One contract, three adapters: SQLite, DynamoDB (moto) and the in-memory store must behave the same."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from dreamchat.adapters.cursor import BadCursor
from dreamchat.ports import TTL_ATTRIBUTE, Check, ConditionFailed, Delete, ItemStore, KeyRange, Put
from tests.conftest import make_dynamo

pytestmark = pytest.mark.every_store


def test_put_then_get_returns_the_same_dict(store: ItemStore) -> None:
    item = {
        "pk": "P#1",
        "sk": "A",
        "text": "你好，世界",
        "count": 3,
        "ratio": 0.75,
        "whole_float": 2.0,
        "flag": True,
        "nothing": None,
        "tags": {"basic_emotion": "开心", "nested": [1, 2.5, "x"]},
        "empty": "",
        "list": [],
    }
    store.put(item)
    assert store.get("P#1", "A") == item


def test_a_stored_item_cannot_be_changed_through_the_dicts_written_or_read(store: ItemStore) -> None:
    item = {"pk": "P", "sk": "S", "tags": {"scene": "闲聊"}, "points": ["a"]}
    store.put(item)
    item["tags"]["scene"] = "求助"
    item["points"].append("b")
    read = store.get("P", "S")
    read["tags"]["scene"] = "讨论"
    store.query("P").items[0]["points"].append("c")
    assert store.get("P", "S") == {"pk": "P", "sk": "S", "tags": {"scene": "闲聊"}, "points": ["a"]}


def test_get_of_a_missing_item_is_none(store: ItemStore) -> None:
    assert store.get("P#1", "missing") is None


def test_put_replaces_the_whole_item(store: ItemStore) -> None:
    store.put({"pk": "P", "sk": "S", "a": 1, "b": 2})
    store.put({"pk": "P", "sk": "S", "a": 3})
    assert store.get("P", "S") == {"pk": "P", "sk": "S", "a": 3}


def test_put_if_absent_creates_once(store: ItemStore) -> None:
    assert store.put_if_absent({"pk": "P", "sk": "S", "v": 1}) is True
    assert store.put_if_absent({"pk": "P", "sk": "S", "v": 2}) is False
    assert store.get("P", "S")["v"] == 1


def test_put_if_absent_treats_an_expired_item_as_absent(store: ItemStore, clock) -> None:
    now = int(clock.now().timestamp())
    store.put({"pk": "P", "sk": "S", "v": 1, "expires_at": now + 10})
    clock.advance(seconds=11)
    assert store.put_if_absent({"pk": "P", "sk": "S", "v": 2}) is True
    assert store.get("P", "S")["v"] == 2


def test_a_put_if_unversioned_gives_an_old_item_its_first_version_once(store: ItemStore) -> None:
    store.put({"pk": "P", "sk": "S", "v": "old"})  # stored before its kind had versions
    store.transact([Put({"pk": "P", "sk": "S", "v": "a", "version": 7}, if_unversioned=True)])
    assert store.get("P", "S") == {"pk": "P", "sk": "S", "v": "a", "version": 7}
    with pytest.raises(ConditionFailed):  # it has a version now
        store.transact([Put({"pk": "P", "sk": "S", "v": "b", "version": 8}, if_unversioned=True)])
    with pytest.raises(ConditionFailed):  # never creates
        store.transact([Put({"pk": "P", "sk": "NONE", "version": 1}, if_unversioned=True)])
    assert store.get("P", "S")["v"] == "a" and store.get("P", "NONE") is None


def test_versioned_put_creates_then_advances_the_version(store: ItemStore) -> None:
    assert store.put_versioned({"pk": "P", "sk": "S", "v": "a"}, None) == 1
    assert store.put_versioned({"pk": "P", "sk": "S", "v": "b"}, 1) == 2
    assert store.get("P", "S") == {"pk": "P", "sk": "S", "v": "b", "version": 2}


def test_a_stale_version_is_refused_and_changes_nothing(store: ItemStore) -> None:
    store.put_versioned({"pk": "P", "sk": "S", "v": "a"}, None)
    store.put_versioned({"pk": "P", "sk": "S", "v": "b"}, 1)
    with pytest.raises(ConditionFailed):
        store.put_versioned({"pk": "P", "sk": "S", "v": "stale"}, 1)
    with pytest.raises(ConditionFailed):
        store.put_versioned({"pk": "P", "sk": "S", "v": "new"}, None)
    assert store.get("P", "S")["v"] == "b"


def test_delete_removes_and_ignores_missing(store: ItemStore) -> None:
    store.put({"pk": "P", "sk": "S"})
    store.delete("P", "S")
    store.delete("P", "S")
    assert store.get("P", "S") is None


def test_transaction_writes_all_items(store: ItemStore) -> None:
    store.put({"pk": "P", "sk": "old"})
    operations = [Put({"pk": "P", "sk": f"{i:02d}", "i": i}) for i in range(24)] + [Delete("P", "old")]
    store.transact(operations)
    assert len(store.query("P").items) == 24
    assert store.get("P", "old") is None


def test_a_failed_condition_writes_nothing_of_the_transaction(store: ItemStore) -> None:
    store.put({"pk": "P", "sk": "taken", "v": 1})
    store.put({"pk": "P", "sk": "keep"})
    with pytest.raises(ConditionFailed):
        store.transact(
            [
                Put({"pk": "P", "sk": "new-1"}),
                Delete("P", "keep"),
                Put({"pk": "P", "sk": "taken", "v": 2}, if_absent=True),
            ]
        )
    assert store.get("P", "new-1") is None
    assert store.get("P", "keep") is not None
    assert store.get("P", "taken")["v"] == 1


def test_a_transaction_checks_versions(store: ItemStore) -> None:
    store.put_versioned({"pk": "P", "sk": "S"}, None)
    with pytest.raises(ConditionFailed):
        store.transact([Put({"pk": "P", "sk": "S", "version": 3}, expected_version=2), Put({"pk": "P", "sk": "x"})])
    store.transact([Put({"pk": "P", "sk": "S", "version": 2}, expected_version=1)])
    assert store.get("P", "S")["version"] == 2
    assert store.get("P", "x") is None


def test_a_transaction_takes_at_most_25_operations_each_item_once(store: ItemStore) -> None:
    with pytest.raises(ValueError):
        store.transact([Put({"pk": "P", "sk": str(i)}) for i in range(26)])
    with pytest.raises(ValueError):
        store.transact([Put({"pk": "P", "sk": "a"}), Delete("P", "a")])
    with pytest.raises(ValueError):
        store.transact([])


def _fill(store: ItemStore) -> None:
    for i in range(10):
        store.put({"pk": "P", "sk": f"MSG#{i:02d}", "i": i})
    store.put({"pk": "P", "sk": "OTHER#1"})
    store.put({"pk": "Q", "sk": "MSG#00"})


def test_query_by_prefix_in_order(store: ItemStore) -> None:
    _fill(store)
    page = store.query("P", KeyRange(prefix="MSG#"))
    assert [item["i"] for item in page.items] == list(range(10))
    assert page.cursor is None


def test_query_in_descending_order_with_limit(store: ItemStore) -> None:
    _fill(store)
    page = store.query("P", KeyRange(prefix="MSG#"), limit=3, descending=True)
    assert [item["i"] for item in page.items] == [9, 8, 7]
    assert page.cursor is not None


def test_query_by_inclusive_range_and_open_ends(store: ItemStore) -> None:
    _fill(store)
    assert [i["i"] for i in store.query("P", KeyRange(start="MSG#03", end="MSG#05")).items] == [3, 4, 5]
    assert [i.get("i") for i in store.query("P", KeyRange(start="MSG#08")).items] == [8, 9, None]
    assert [i.get("i") for i in store.query("P", KeyRange(end="MSG#01")).items] == [0, 1]


@pytest.mark.parametrize("descending", [False, True])
def test_pagination_visits_every_item_once(store: ItemStore, descending: bool) -> None:
    _fill(store)
    seen, cursor = [], None
    while True:
        page = store.query("P", KeyRange(prefix="MSG#"), limit=4, descending=descending, cursor=cursor)
        seen += [item["i"] for item in page.items]
        if page.cursor is None:
            break
        cursor = page.cursor
    assert seen == (list(range(9, -1, -1)) if descending else list(range(10)))


def test_an_exactly_full_page_has_no_cursor(store: ItemStore) -> None:
    _fill(store)
    assert store.query("P", KeyRange(prefix="MSG#"), limit=10).cursor is None


def test_a_forged_cursor_is_refused(store: ItemStore) -> None:
    with pytest.raises(BadCursor):
        store.query("P", cursor="not-a-cursor!")


def test_expired_items_are_never_returned(store: ItemStore, clock) -> None:
    now = int(clock.now().timestamp())
    store.put({"pk": "P", "sk": "a", "expires_at": now + 60})
    store.put({"pk": "P", "sk": "b", "expires_at": now - 1})
    store.put({"pk": "P", "sk": "c"})
    assert store.get("P", "b") is None
    assert [i["sk"] for i in store.query("P").items] == ["a", "c"]
    clock.advance(seconds=61)
    assert store.get("P", "a") is None
    assert [i["sk"] for i in store.query("P", limit=1).items] == ["c"]


def test_due_index_is_sparse_and_ordered(store: ItemStore) -> None:
    store.put({"pk": "PAIR#1", "sk": "HB", "due_pk": "HB#0", "due_sk": "2026-03-15T12:05#PAIR#1"})
    store.put({"pk": "PAIR#2", "sk": "HB", "due_pk": "HB#0", "due_sk": "2026-03-15T12:01#PAIR#2"})
    store.put({"pk": "PAIR#3", "sk": "HB", "due_pk": "HB#0", "due_sk": "2026-03-16T00:00#PAIR#3"})
    store.put({"pk": "PAIR#4", "sk": "HB", "due_pk": "HB#1", "due_sk": "2026-03-15T12:00#PAIR#4"})
    store.put({"pk": "PAIR#5", "sk": "HB"})
    page = store.query_due("HB#0", "2026-03-15T12:59~")
    assert [i["pk"] for i in page.items] == ["PAIR#2", "PAIR#1"]


def test_due_index_paginates(store: ItemStore) -> None:
    for i in range(7):
        store.put({"pk": f"PAIR#{i}", "sk": "HB", "due_pk": "HB#0", "due_sk": f"2026-03-15T12:0{i}#{i}"})
    seen, cursor = [], None
    while True:
        page = store.query_due("HB#0", "2026-03-15T13", limit=3, cursor=cursor)
        seen += [i["pk"] for i in page.items]
        if (cursor := page.cursor) is None:
            break
    assert seen == [f"PAIR#{i}" for i in range(7)]


def test_an_expired_item_leaves_the_due_index(store: ItemStore, clock) -> None:
    now = int(clock.now().timestamp())
    store.put({"pk": "PAIR#1", "sk": "HB", "due_pk": "HB#0", "due_sk": "2026-03-15T12:00#1", "expires_at": now + 10})
    store.put({"pk": "PAIR#2", "sk": "HB", "due_pk": "HB#0", "due_sk": "2026-03-15T12:01#2"})
    clock.advance(seconds=11)
    assert [i["pk"] for i in store.query_due("HB#0", "2026-03-16", limit=1).items] == ["PAIR#2"]


def test_removing_due_attributes_leaves_the_index(store: ItemStore) -> None:
    store.put({"pk": "PAIR#1", "sk": "HB", "due_pk": "HB#0", "due_sk": "2026-03-15T12:00#1"})
    store.put({"pk": "PAIR#1", "sk": "HB"})
    assert store.query_due("HB#0", "2026-03-16").items == []


def test_fifty_threads_appending_to_one_partition_lose_nothing(store: ItemStore) -> None:
    def append(i: int) -> None:
        store.put({"pk": "P", "sk": f"MSG#{i:03d}", "i": i})

    with ThreadPoolExecutor(max_workers=50) as pool:
        list(pool.map(append, range(50)))
    assert sorted(i["i"] for i in store.query("P").items) == list(range(50))


def test_racing_create_if_absent_has_exactly_one_winner(store: ItemStore) -> None:
    barrier = threading.Barrier(8)

    def create(i: int) -> bool:
        barrier.wait()
        return store.put_if_absent({"pk": "P", "sk": "ONCE", "winner": i})

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(create, range(8)))
    assert results.count(True) == 1
    assert store.get("P", "ONCE")["winner"] == results.index(True)


def test_racing_versioned_updates_have_one_winner_per_version(store: ItemStore) -> None:
    store.put_versioned({"pk": "P", "sk": "S", "n": 0}, None)
    barrier = threading.Barrier(6)

    def bump(i: int) -> bool:
        barrier.wait()
        try:
            store.put_versioned({"pk": "P", "sk": "S", "n": i}, 1)
        except ConditionFailed:
            return False
        return True

    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(bump, range(6)))
    assert results.count(True) == 1
    assert store.get("P", "S")["version"] == 2


def test_a_reader_never_sees_half_a_transaction(store: ItemStore) -> None:
    store.transact([Put({"pk": "P", "sk": "a", "n": 0}), Put({"pk": "P", "sk": "b", "n": 0})])
    done, seen = threading.Event(), []

    def write() -> None:
        for n in range(1, 41):
            store.transact([Put({"pk": "P", "sk": "a", "n": n}), Put({"pk": "P", "sk": "b", "n": n})])
        done.set()

    writer = threading.Thread(target=write)
    writer.start()
    while not done.is_set():
        seen.append(tuple(item["n"] for item in store.query("P").items))
    writer.join()
    assert all(a == b for a, b in seen) and store.get("P", "b")["n"] == 40


def test_a_check_lets_the_transaction_write_while_the_checked_item_is_absent(store) -> None:
    store.transact([Put({"pk": "p", "sk": "1"}), Check("guard", "G")])
    assert store.get("p", "1") == {"pk": "p", "sk": "1"}
    assert store.get("guard", "G") is None


def test_a_check_on_a_present_item_fails_the_whole_transaction(store) -> None:
    store.put({"pk": "guard", "sk": "G"})
    with pytest.raises(ConditionFailed):
        store.transact([Put({"pk": "p", "sk": "1"}), Delete("p", "0"), Check("guard", "G")])
    assert store.get("p", "1") is None


def test_a_check_on_an_expired_item_passes(store, clock) -> None:
    store.put({"pk": "guard", "sk": "G", "expires_at": int(clock.now().timestamp()) + 10})
    clock.advance(seconds=11)
    store.transact([Put({"pk": "p", "sk": "1"}), Check("guard", "G")])
    assert store.get("p", "1") is not None


def test_a_version_check_passes_only_while_the_checked_item_is_at_that_version(store) -> None:
    store.put({"pk": "member", "sk": "M", "version": 7})
    store.transact([Put({"pk": "p", "sk": "1"}), Check("member", "M", expected_version=7)])
    assert store.get("p", "1") is not None
    store.put({"pk": "member", "sk": "M", "version": 8})
    with pytest.raises(ConditionFailed):
        store.transact([Put({"pk": "p", "sk": "2"}), Check("member", "M", expected_version=7)])
    store.delete("member", "M")
    with pytest.raises(ConditionFailed):
        store.transact([Put({"pk": "p", "sk": "3"}), Check("member", "M", expected_version=8)])
    assert store.get("p", "2") is None and store.get("p", "3") is None


@pytest.mark.parametrize("alone", [True, False])
def test_a_conditional_delete_removes_only_the_version_it_names(store, alone: bool) -> None:
    store.put({"pk": "member", "sk": "M", "version": 8})
    others = [] if alone else [Put({"pk": "p", "sk": "1"})]
    with pytest.raises(ConditionFailed):
        store.transact([Delete("member", "M", expected_version=7), *others])
    assert store.get("member", "M") == {"pk": "member", "sk": "M", "version": 8}
    assert store.get("p", "1") is None
    store.transact([Delete("member", "M", expected_version=8), *others])
    assert store.get("member", "M") is None


def test_the_dynamodb_table_deletes_an_expired_item_by_the_attribute_the_stores_read(aws, clock) -> None:
    """As the CDK table does: an item with `expires_at` (epoch seconds, a number) is deleted by DynamoDB
    some time after it, so what expires (presence, leases) does not stay in the table for good."""
    store = make_dynamo(clock)
    described = store._client.describe_time_to_live(TableName="dreamchat")["TimeToLiveDescription"]
    assert (described["TimeToLiveStatus"], described["AttributeName"]) == ("ENABLED", TTL_ATTRIBUTE)
    store.put({"pk": "ACCOUNT#a", "sk": "PRESENCE#phone", TTL_ATTRIBUTE: int(clock.now().timestamp()) + 75})
    raw = store._client.get_item(TableName="dreamchat", Key={"pk": {"S": "ACCOUNT#a"}, "sk": {"S": "PRESENCE#phone"}})
    assert set(raw["Item"][TTL_ATTRIBUTE]) == {"N"}  # TTL reads numbers only
