"""Attacks on extraction's anchoring and on the core judge, kept as tests (each failed before its fix)."""

from __future__ import annotations

import pytest

from dreamchat import keys
from dreamchat.ports import KeyRange, query_all
from dreamchat.services.memory_edit import MemoryEditService
from dreamchat.services.storage.unit_of_work import Storage
from tests.fakes.fake_llm import Reply
from tests.services.conftest import services_with_fake_llm
from tests.services.test_quotes import PAIR, SAID, SUMMARY, ZONE, remember


def test_extraction_survives_a_key_point_without_search_words(runtime, fake_llm, clock) -> None:
    """The model may answer a key point with no search word ("……", "the end"): it is anchored to
    nothing (it raised IndexError and failed the whole extraction, every sweep)."""
    services = services_with_fake_llm(runtime, fake_llm)
    fake_llm.script("qwen-plus", Reply.json(SUMMARY))
    for role, text in SAID:
        services.topics.record(PAIR, role, text)
    mid = services.compression.compress_now(PAIR)[0]
    clock.advance(hours=25)
    points = ["他和孩子们喜欢一起画画", "……"]
    memory = {"title": "画画", "key_points": points, "detail_content": "聊了画画", "source_mid_ids": [mid.id]}
    fake_llm.script("doubao-pro-32k", Reply.json({"memories": [memory]}))
    result = services.extractor.extract(PAIR, ZONE)
    assert len(result.long_term) == 1
    [found] = query_all(runtime.store, keys.pair_pk(PAIR), KeyRange(prefix=keys.LONG_PREFIX))
    assert found["sources"][1] == ""


@pytest.mark.every_store
def test_the_core_judge_never_reverts_an_edit_of_an_item_stored_before_versions(runtime, fake_llm, clock) -> None:
    """An unjudged long-term item written before items carried `version`: judge_core reads it and asks
    the model (seconds); a title the person corrects meanwhile must survive the judge's write."""
    services = services_with_fake_llm(runtime, fake_llm)
    remember(services, fake_llm, clock)
    [found] = query_all(runtime.store, keys.pair_pk(PAIR), KeyRange(prefix=keys.LONG_PREFIX))
    old = {k: v for k, v in found.items() if k != "version"}
    runtime.store.put({**old, "core_judged": False})  # as the previous release stored it, not yet judged
    editor = MemoryEditService(services.repo, Storage(services.runtime.store), clock, services.retriever)
    models = services.memory_models
    real_judge = models.judge_core

    def judge_while_the_person_edits(items, existing, now):
        editor.long_term(PAIR, found["id"], False, {"title": "改过的标题"})
        return real_judge(items, existing, now)

    models.judge_core = judge_while_the_person_edits
    services.core_judge.judge(PAIR, ZONE)
    [after] = query_all(runtime.store, keys.pair_pk(PAIR), KeyRange(prefix=keys.LONG_PREFIX))
    assert after["title"] == "改过的标题"
