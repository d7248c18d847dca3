"""An import's vectors (issue 35 §5): memories embedded a call's worth at a time (one embeddings call
took one memory: 400 long-term entries cost 31 s in the request), and what the request has no time
for left as owed work, which the extraction sweep's healing makes."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import pytest

from dreamchat.adapters.runtime import ManualClock
from dreamchat.budget import Deadline, models_deadline_set
from dreamchat.domain.memory_export import ExportedLongTerm, MemoryDocument
from dreamchat.domain.models import EmotionTags, LongTermIndex, MidTermMemory, PairId
from dreamchat.llm.memory_models import FallbackMemoryModels
from dreamchat.llm.offline import OfflineMemoryModels
from dreamchat.ports import EmbeddingUnavailable
from dreamchat.services.container import Services, build_services
from dreamchat.wiring import Runtime

TAGS = EmotionTags(basic_emotion="开心", scene="闲聊", atmosphere="轻松")
T = 1_770_000_000
LONG, MID, POINTS = 40, 10, 3
PER_CALL = 10  # DREAMCHAT_EMBEDDING_BATCH's default


class CountingEmbedder:
    name = "test:counting:4"
    kind = "api"

    def __init__(self) -> None:
        self.calls: list[list[str]] = []
        self.down = False

    def embed(self, texts: Sequence[str], *, query: bool) -> np.ndarray:
        if self.down:
            raise EmbeddingUnavailable("down")
        self.calls.append(list(texts))
        return np.asarray([[len(t), sum(map(ord, t)) % 97, float(query), 1.0] for t in texts], dtype=np.float32)


def services_with(runtime: Runtime, embedder: CountingEmbedder) -> Services:
    offline = OfflineMemoryModels()
    models = FallbackMemoryModels(offline, offline, attempts=1, sleep=lambda _: None)
    return build_services(runtime, memory_models=models, embedder=embedder)


def upload() -> bytes:
    longs = [
        ExportedLongTerm(
            index=LongTermIndex(
                id=f"long_{T + n:010d}_{n:06x}",
                title=f"第{n}件事",
                key_points=[f"第{n}件事的第{p}点" for p in range(POINTS)],
                detail_file=f"2026-02-02_{n}.json",
                created_at=T + n,
            )
        )
        for n in range(LONG)
    ]
    mids = [
        MidTermMemory(
            id=f"mid_{T + n:010d}_{n:06x}",
            topic_id=f"topic_{T + n:010d}_{n:06x}",
            summary=f"聊了第{n}个话题",
            emotion_tags=TAGS,
            message_count=2,
            extracted_to_long=True,
            created_at=T + n,
            compression_ratio=0.5,
        )
        for n in range(MID)
    ]
    document = MemoryDocument(
        format="dreamchat.memory",
        version=1,
        exported_at=T + 100,
        ai_user={"id": "ai_old", "name": "小梦"},
        mid_term=mids,
        long_term=longs,
    )
    return json.dumps(document.model_dump(), ensure_ascii=False).encode()


def friend(services: Services) -> PairId:
    ai_user = services.ai_users.create("acc_import", {"name": "小梦"})
    return services.ai_users.companion("acc_import", ai_user.id)[0]


@pytest.mark.every_store
def test_an_import_embeds_a_calls_worth_of_memories_at_a_time(runtime) -> None:
    embedder = CountingEmbedder()
    services = services_with(runtime, embedder)
    pair = friend(services)

    imported = services.imports.import_memory(pair.account_id, pair.ai_user_id, upload())

    assert (imported.vectors, imported.vectors_owed) == (LONG + MID, 0)
    assert all(len(call) <= PER_CALL for call in embedder.calls)
    texts = LONG * POINTS + MID
    assert len(embedder.calls) <= 2 * texts // PER_CALL  # one memory a call was LONG + MID calls
    assert services.vectors.missing(pair) == 0
    assert services.healing.owed_by(pair) == 0  # made in the request: nothing stays owed


@pytest.mark.every_store
def test_vectors_the_request_has_no_time_for_are_owed_work_the_extraction_sweep_makes(runtime) -> None:
    embedder = CountingEmbedder()
    services = services_with(runtime, embedder)
    pair = friend(services)

    with models_deadline_set(Deadline.after(0)):  # the request's time is up before the first call
        imported = services.imports.import_memory(pair.account_id, pair.ai_user_id, upload())

    assert (imported.vectors, imported.vectors_owed) == (0, LONG + MID)
    assert embedder.calls == [] and services.healing.owed_by(pair) == 1
    assert isinstance(runtime.clock, ManualClock)
    runtime.clock.advance(minutes=1)
    assert services.extraction.sweep().pairs == 1
    runtime.bus.drain()
    assert services.vectors.missing(pair) == 0 and services.healing.owed_by(pair) == 0


def test_owed_vectors_wait_out_an_embedder_that_fails_and_are_made_when_it_answers(runtime) -> None:
    embedder = CountingEmbedder()
    services = services_with(runtime, embedder)
    pair = friend(services)
    embedder.down = True

    imported = services.imports.import_memory(pair.account_id, pair.ai_user_id, upload())

    assert (imported.vectors, imported.vectors_owed) == (0, LONG + MID)
    assert [h.outcome for h in services.healing.heal(pair)] == ["degraded"]  # still owed, backed off
    embedder.down = False
    assert [h.outcome for h in services.healing.heal(pair)] == []  # not due yet
    assert [h.outcome for h in services.healing.heal(pair, force=True)] == ["healed"]
    assert services.vectors.missing(pair) == 0 and services.healing.owed_by(pair) == 0
