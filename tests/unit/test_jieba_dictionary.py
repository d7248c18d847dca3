"""The prebuilt jieba dictionary the Lambda layer ships is used when present, ignored when not."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import jieba
import pytest

from dreamchat.adapters.jieba_dictionary import PREBUILT, use_prebuilt_dictionary


@pytest.fixture
def jieba_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setattr(jieba, "__file__", str(tmp_path / "__init__.py"))
    before = jieba.dt.tmp_dir
    yield tmp_path
    jieba.dt.tmp_dir = before


def test_jieba_loads_the_prebuilt_dictionary_beside_it(jieba_home: Path) -> None:
    (jieba_home / PREBUILT).write_bytes(b"prebuilt")
    assert use_prebuilt_dictionary()
    assert jieba.dt.tmp_dir == str(jieba_home)


def test_without_a_prebuilt_dictionary_jieba_is_left_as_it_is(jieba_home: Path) -> None:
    before = jieba.dt.tmp_dir
    assert not use_prebuilt_dictionary()
    assert jieba.dt.tmp_dir == before
