"""The embedding role in the memory flow: vectors written with memories, one query embedding per
turn, and every failure falling back to words without losing anything."""

from __future__ import annotations

import math
import time

import pytest

from dreamchat import keys
from dreamchat.adapters.embeddings import ApiEmbedder
from dreamchat.domain import vectors as vec
from dreamchat.domain.models import AIUser, PairId
from dreamchat.ports import KeyRange, query_all
from dreamchat.services.container import build_services
from dreamchat.services.memory_edit import MemoryEditService
from dreamchat.services.storage.unit_of_work import Storage
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.services.conftest import services_with_fake_llm

PAIR = PairId(account_id="acc1", ai_user_id="ai_1")
ZONE = "Asia/Shanghai"
MODEL = "text-embedding-v4"
SUMMARY = {
    "summary": "讨论周末去海边",
    "emotion_tags": {"basic_emotion": "开心", "scene": "闲聊", "atmosphere": "轻松"},
}
MEMORY = {
    "memories": [
        {
            "title": "周末出游",
            "key_points": ["想去海边看日出", "他怕晒"],
            "detail_content": "商量周六去海边",
            "source_mid_ids": [],
        }
    ]
}
AI = AIUser(id="ai_1", owner_id="acc1", name="小梦", timezone=ZONE, created_at=0, updated_at=0)


def with_embeddings(runtime, server: FakeLLMServer, model: str = MODEL):
    services = services_with_fake_llm(runtime, server)
    return build_services(
        runtime,
        gateway=services.gateway,
        memory_models=services.memory_models,
        embedder=ApiEmbedder(server.base_url, "k", model, timeout=2, cooldown=0),
    )


def remember(services, server: FakeLLMServer, clock) -> None:
    server.script("qwen-plus", Reply.json(SUMMARY))
    for line in ("周末去海边吧", "好呀"):
        services.topics.record(PAIR, "user", line)
    mid = services.compression.compress_now(PAIR)[0]
    clock.advance(hours=25)
    server.script("doubao-pro-32k", Reply.json({"memories": [{**MEMORY["memories"][0], "source_mid_ids": [mid.id]}]}))
    services.extractor.extract(PAIR, ZONE)


def long_items(runtime) -> list[dict]:
    return query_all(runtime.store, keys.pair_pk(PAIR), KeyRange(prefix=keys.LONG_PREFIX))


def embedding_calls(server: FakeLLMServer) -> int:
    return sum(1 for r in server.requests if r.path.endswith("/embeddings"))


@pytest.mark.every_store
def test_memories_are_stored_with_one_int8_vector_per_key_point(runtime, fake_llm, clock) -> None:
    services = with_embeddings(runtime, fake_llm)
    remember(services, fake_llm, clock)
    [entry] = long_items(runtime)
    stored = vec.StoredVectors.from_item(entry[vec.FIELD])
    rows = vec.usable(stored, f"api:{MODEL}", ["想去海边看日出", "他怕晒"])
    assert rows is not None and rows.shape[0] == 2
    [mid] = query_all(runtime.store, keys.pair_pk(PAIR), KeyRange(prefix=keys.MID_PREFIX))
    assert vec.usable(vec.StoredVectors.from_item(mid[vec.FIELD]), f"api:{MODEL}", ["讨论周末去海边"]) is not None


def test_a_turn_embeds_its_query_in_one_call_and_finds_the_key_point(runtime, fake_llm, clock) -> None:
    services = with_embeddings(runtime, fake_llm)
    remember(services, fake_llm, clock)
    before = embedding_calls(fake_llm)
    context = services.context.context(PAIR, AI, "还记得海边日出吗", "指令")
    assert embedding_calls(fake_llm) == before + 1
    assert "想去海边看日出" in next(s.text for s in context.sections if s.name == "long_term")


def test_with_the_endpoint_down_memories_are_kept_and_words_still_rank_them(runtime, fake_llm, clock) -> None:
    fake_llm.default = lambda body: Reply.error(500) if "input" in body else Reply.text("ok")
    services = with_embeddings(runtime, fake_llm)
    remember(services, fake_llm, clock)
    [entry] = long_items(runtime)
    assert entry["key_points"] == ["想去海边看日出", "他怕晒"] and vec.FIELD not in entry
    context = services.context.context(PAIR, AI, "海边日出", "指令")
    assert "想去海边看日出" in next(s.text for s in context.sections if s.name == "long_term")
    fake_llm.default = lambda body: Reply.text("ok")  # back up: the next write fills the gaps
    assert services.vectors.refresh(PAIR) == 2  # the mid-term memory and the long-term one
    assert vec.FIELD in long_items(runtime)[0]


def test_a_new_embedding_model_makes_the_vectors_again(runtime, fake_llm, clock) -> None:
    remember(with_embeddings(runtime, fake_llm), fake_llm, clock)
    newer = with_embeddings(runtime, fake_llm, model="text-embedding-v5")
    assert newer.vectors.refresh(PAIR) == 2
    assert vec.StoredVectors.from_item(long_items(runtime)[0][vec.FIELD]).model == "api:text-embedding-v5"
    assert newer.vectors.refresh(PAIR) == 0


def test_garbage_vectors_from_the_endpoint_are_refused(runtime, fake_llm, clock) -> None:
    services = with_embeddings(runtime, fake_llm)
    remember(services, fake_llm, clock)
    fake_llm.script(
        MODEL, Reply.embeddings((math.nan, 1.0)), Reply.embeddings((1.0, 0.0), (0.0, 1.0)), Reply.embeddings((0.0, 0.0))
    )
    for message in ("海边", "日出", "晒"):
        context = services.context.context(PAIR, AI, message, "指令")  # words alone rank; no exception
        assert "想去海边看日出" in next(s.text for s in context.sections if s.name == "long_term")


def test_an_edited_key_point_gets_new_vectors(runtime, fake_llm, clock) -> None:
    services = with_embeddings(runtime, fake_llm)
    remember(services, fake_llm, clock)
    [entry] = long_items(runtime)
    runtime.store.put({**entry, "key_points": ["想去山里看日出"]})
    assert services.vectors.refresh(PAIR) == 1
    stored = vec.StoredVectors.from_item(long_items(runtime)[0][vec.FIELD])
    assert vec.usable(stored, f"api:{MODEL}", ["想去山里看日出"]) is not None


def test_a_late_embedding_endpoint_does_not_hold_the_turn(runtime, fake_llm, clock) -> None:
    services = with_embeddings(runtime, fake_llm)
    remember(services, fake_llm, clock)
    slow = ApiEmbedder(fake_llm.base_url, "k", MODEL, timeout=0.3)
    services.retriever.embedder = slow
    fake_llm.script(MODEL, Reply.slow(5), Reply.slow(5))
    started = time.monotonic()
    context = services.context.context(PAIR, AI, "海边日出", "指令")
    assert time.monotonic() - started < 3
    assert "想去海边看日出" in next(s.text for s in context.sections if s.name == "long_term")


def test_a_persons_edit_makes_the_vectors_of_the_new_text_at_once(runtime, fake_llm, clock) -> None:
    from dreamchat.services.memory_edit import MemoryEditService

    services = with_embeddings(runtime, fake_llm)
    remember(services, fake_llm, clock)
    [entry] = long_items(runtime)
    editor = MemoryEditService(services.repo, Storage(services.runtime.store), clock, services.retriever)
    editor.long_term(PAIR, entry["id"], False, {"key_points": ["其实想去爬山"]})
    stored = vec.StoredVectors.from_item(long_items(runtime)[0][vec.FIELD])
    assert vec.usable(stored, f"api:{MODEL}", ["其实想去爬山"]) is not None


class Ticks:
    """A monotonic clock the test moves."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_refused_key_is_not_called_again_for_ten_cool_downs(runtime, fake_llm, clock) -> None:
    services = with_embeddings(runtime, fake_llm)
    remember(services, fake_llm, clock)
    ticks = Ticks()
    services.retriever.embedder = ApiEmbedder(fake_llm.base_url, "k", MODEL, cooldown=60, clock=ticks)
    fake_llm.default = lambda body: Reply.error(401) if "input" in body else Reply.text("ok")
    before = embedding_calls(fake_llm)
    for _ in range(5):  # every turn still finds the memory by its words
        context = services.context.context(PAIR, AI, "海边日出", "指令")
        assert "想去海边看日出" in next(s.text for s in context.sections if s.name == "long_term")
    assert embedding_calls(fake_llm) - before == 1
    ticks.now = 599
    services.context.context(PAIR, AI, "海边日出", "指令")
    assert embedding_calls(fake_llm) - before == 1
    ticks.now = 601
    services.context.context(PAIR, AI, "海边日出", "指令")
    assert embedding_calls(fake_llm) - before == 2


def test_after_a_server_error_calls_resume_after_one_cool_down(runtime, fake_llm, clock) -> None:
    services = with_embeddings(runtime, fake_llm)
    remember(services, fake_llm, clock)
    ticks = Ticks()
    services.retriever.embedder = ApiEmbedder(fake_llm.base_url, "k", MODEL, cooldown=60, clock=ticks)
    fake_llm.script(MODEL, Reply.error(500), Reply.error(500))
    before = embedding_calls(fake_llm)
    services.context.context(PAIR, AI, "海边日出", "指令")
    services.context.context(PAIR, AI, "海边日出", "指令")
    assert embedding_calls(fake_llm) - before == 1  # no retry; the breaker holds the second turn
    ticks.now = 61
    services.context.context(PAIR, AI, "海边日出", "指令")
    assert embedding_calls(fake_llm) - before == 2


@pytest.mark.every_store
@pytest.mark.parametrize("stored", ["versioned", "before versions"])
def test_a_persons_edit_landing_during_a_re_embedding_is_never_overwritten(runtime, fake_llm, clock, stored) -> None:
    services = with_embeddings(runtime, fake_llm)
    remember(services, fake_llm, clock)
    [entry] = long_items(runtime)
    if stored == "before versions":  # as the previous release wrote it: the edit and the vectors give it one
        entry = {k: v for k, v in entry.items() if k != "version"}
        runtime.store.put(entry)
    editor = MemoryEditService(services.repo, Storage(services.runtime.store), clock, None)
    store, real_get, real_embedder = (
        services.runtime.store,
        services.runtime.store.get,
        services.retriever.embedder,
    )

    class EditsWhileEmbedding:
        name, kind = "api:another-model", "api"  # every vector is stale

        def embed(self, texts, *, query):
            if entry["key_points"][0] in texts:  # the person edits while the vectors are made
                editor.long_term(PAIR, entry["id"], False, {"key_points": ["改成去山里"]})
            return real_embedder.embed(texts, query=query)

    # and any read of the entry after that still sees it as it was (the edit lands between read and write)
    store.get = lambda pk, sk: entry if sk == entry["sk"] else real_get(pk, sk)
    services.retriever.embedder = EditsWhileEmbedding()
    services.vectors.refresh(PAIR)
    store.get = real_get
    assert long_items(runtime)[0]["key_points"] == ["改成去山里"]
