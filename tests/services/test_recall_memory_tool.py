"""The recall_memory tool reads the time its query names ("我们三月去海边那次", "last July") in the
pair's zone, as the chat context does: of two memories in the same words months apart, the one made
then comes first."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from dreamchat.adapters.search import NoSearch
from dreamchat.domain.models import AIUser, Conversation, MidTermMemory, PairId
from dreamchat.domain.supersession import RelatedPoint
from dreamchat.llm.contracts import CompressOutput, ExtractedMemory, ExtractOutput
from dreamchat.llm.memory_models import FallbackMemoryModels
from dreamchat.llm.offline import OfflineMemoryModels
from dreamchat.services.container import Services, build_services
from dreamchat.services.tools import ToolBox
from tests.services.conftest import answer_to

PAIR = PairId(account_id="acc_recall", ai_user_id="ai_recall")
ZONE = "Asia/Shanghai"
TAGS = {"basic_emotion": "开心", "scene": "闲聊", "atmosphere": "轻松"}
SAID = "我们去海边看了日出"


class Dated(OfflineMemoryModels):
    """Each topic one memory: the same key point every time, a detail that says when it was made."""

    def compress(self, conversations: list[Conversation], now: datetime) -> CompressOutput:
        said = "。".join(c.content for c in conversations if c.role == "user")
        return CompressOutput.model_validate({"summary": said, "emotion_tags": TAGS})

    def extract(self, mids: list[MidTermMemory], now: datetime, related: Sequence[RelatedPoint] = ()) -> ExtractOutput:
        return ExtractOutput(
            memories=[
                ExtractedMemory(
                    title="海边",
                    key_points=[mid.summary],
                    detail_content=f"{datetime.fromtimestamp(mid.created_at, ZoneInfo(ZONE)):%Y-%m}：{mid.summary}",
                    source_mid_ids=[mid.id],
                )
                for mid in mids
            ]
        )


@pytest.fixture
def dated(runtime) -> Services:
    models = Dated()
    return build_services(runtime, memory_models=FallbackMemoryModels(models, models, attempts=1, sleep=lambda _: None))


def tell(services: Services, clock, text: str) -> None:
    services.topics.record(PAIR, "user", text)
    services.topics.record(PAIR, "assistant", answer_to(text))
    services.compression.compress_now(PAIR)
    clock.advance(hours=25)
    services.extractor.extract(PAIR, ZONE, force=True)


def recall(services: Services, clock, query: str) -> list[str]:
    ai = AIUser(id=PAIR.ai_user_id, owner_id=PAIR.account_id, name="小梦", timezone=ZONE, created_at=0, updated_at=0)
    tools = ToolBox(
        PAIR, ai, services.repo, services.context, services.soul, services.heartbeat_states, NoSearch(), clock
    )
    answer = json.loads(tools.run("recall_memory", {"query": query}))
    return [found["detail"][:7] for found in answer["found"]]


@pytest.mark.every_store
def test_a_query_naming_a_month_recalls_what_was_made_then_first(dated, clock) -> None:
    assert clock.now().strftime("%Y-%m") == "2026-03"
    tell(dated, clock, SAID)
    clock.advance(days=120)  # July
    tell(dated, clock, SAID)
    clock.advance(days=60)  # September
    assert recall(dated, clock, "还记得我们三月去海边看日出吗")[0] == "2026-03"
    assert recall(dated, clock, "还记得我们7月去海边看日出吗")[0] == "2026-07"
    assert recall(dated, clock, "the sunrise at the sea we saw last March, 海边看日出")[0] == "2026-03"
    assert sorted(recall(dated, clock, "还记得我们去海边看日出吗")) == ["2026-03", "2026-07"]  # no time named: both
