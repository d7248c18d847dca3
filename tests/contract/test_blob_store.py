"""One contract, two adapters: a directory and S3 (moto)."""

from __future__ import annotations

import pytest

from dreamchat.ports import BlobStore


def test_put_get_roundtrip(blobs: BlobStore) -> None:
    blobs.put("pairs/a/u/long_term_details/2026-03-15_周末出游计划.json", '{"t": "海边"}'.encode())
    assert blobs.get("pairs/a/u/long_term_details/2026-03-15_周末出游计划.json") == '{"t": "海边"}'.encode()


def test_get_missing_is_none(blobs: BlobStore) -> None:
    assert blobs.get("pairs/none.json") is None


def test_put_overwrites(blobs: BlobStore) -> None:
    blobs.put("k/a.json", b"1")
    blobs.put("k/a.json", b"2")
    assert blobs.get("k/a.json") == b"2"


def test_delete_removes_and_ignores_missing(blobs: BlobStore) -> None:
    blobs.put("k/a.json", b"1")
    blobs.delete("k/a.json")
    blobs.delete("k/a.json")
    assert blobs.get("k/a.json") is None


def test_list_by_prefix(blobs: BlobStore) -> None:
    for key in ["pairs/a/u1/x.json", "pairs/a/u1/y.json", "pairs/a/u2/z.json", "pairs/b/u1/x.json"]:
        blobs.put(key, b"{}")
    assert blobs.list("pairs/a/u1/") == ["pairs/a/u1/x.json", "pairs/a/u1/y.json"]
    assert blobs.list("pairs/a/") == ["pairs/a/u1/x.json", "pairs/a/u1/y.json", "pairs/a/u2/z.json"]
    assert blobs.list("pairs/c/") == []


@pytest.mark.parametrize("key", ["../escape.json", "/abs.json", "a/../../b", "", "a//b", "a\\b"])
def test_keys_that_could_escape_are_refused(blobs: BlobStore, key: str) -> None:
    with pytest.raises(ValueError):
        blobs.put(key, b"x")
