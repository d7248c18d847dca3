"""FallbackMemoryModels: the real models first, the offline provider (marked degraded) when they keep failing."""

from __future__ import annotations

from datetime import datetime

import pytest

from dreamchat.config import Settings
from dreamchat.domain.models import Conversation, CoreMemory, MidTermMemory, RelationshipLevel
from dreamchat.llm.contracts import (
    CompressOutput,
    CoreJudgment,
    ExtractOutput,
    RelationshipJudgment,
    SelfSoulReflection,
)
from dreamchat.llm.errors import LLMNotConfigured, LLMUnavailable
from dreamchat.llm.gateway import OpenAIGateway
from dreamchat.llm.memory_models import FallbackMemoryModels, LLMMemoryModels, build_memory_models
from dreamchat.llm.offline import OfflineMemoryModels
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.llm.conftest import NOW, MakeSettings
from tests.llm.samples import TRIP_TOPIC, conversations

TRIP = conversations(TRIP_TOPIC)
TAGS = {"basic_emotion": "开心", "scene": "闲聊", "atmosphere": "轻松"}


class BrokenModels(OfflineMemoryModels):
    """Memory models whose every step fails `failures` times with `error`, then answers offline."""

    def __init__(self, error: Exception, failures: int = 1000) -> None:
        self.error = error
        self.failures = failures
        self.calls = 0

    def _fail(self) -> None:
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error

    def compress(self, conversations: list[Conversation], now: datetime) -> CompressOutput:
        self._fail()
        return CompressOutput.model_validate({"summary": "真的模型", "emotion_tags": TAGS})

    def extract(self, mids: list[MidTermMemory], now: datetime, related=()) -> ExtractOutput:  # noqa: ANN001
        self._fail()
        return super().extract(mids, now, related)

    def judge_core(
        self, new_items: list[tuple[str, list[str]]], existing: list[CoreMemory], now: datetime
    ) -> CoreJudgment:
        self._fail()
        return CoreJudgment(create=True, content="对方极度恐高", importance=9, category="禁忌")

    def reflect(
        self, ai_name: str, base_soul: str, recent: list[Conversation], current_self_soul: str, now: datetime
    ) -> SelfSoulReflection:
        self._fail()
        return SelfSoulReflection(changed=True, self_soul="新的我")

    def judge_relationship(
        self, current_level: RelationshipLevel, recent: list[Conversation], now: datetime
    ) -> RelationshipJudgment:
        self._fail()
        return RelationshipJudgment(level="特别关心", reason="很好")


def test_a_working_primary_is_not_degraded() -> None:
    result = FallbackMemoryModels(BrokenModels(LLMUnavailable("x"), failures=0)).compress(TRIP, NOW)
    assert (result.value.summary, result.degraded) == ("真的模型", False)


def test_a_primary_that_recovers_within_the_attempts_is_not_degraded() -> None:
    sleeps: list[float] = []
    models = FallbackMemoryModels(BrokenModels(LLMUnavailable("x"), failures=2), attempts=3, sleep=sleeps.append)
    result = models.compress(TRIP, NOW)
    assert (result.value.summary, result.degraded, sleeps) == ("真的模型", False, [2.0, 4.0])


def test_a_primary_that_keeps_failing_degrades_to_offline_after_the_attempts() -> None:
    sleeps: list[float] = []
    primary = BrokenModels(LLMUnavailable("down"))
    result = FallbackMemoryModels(primary, attempts=3, sleep=sleeps.append).compress(TRIP, NOW)
    assert result.degraded and "舟山" in result.value.summary
    assert (primary.calls, len(sleeps)) == (3, 2)


def test_a_degraded_core_judgment_creates_nothing() -> None:
    models = FallbackMemoryModels(BrokenModels(LLMUnavailable("down")), attempts=2, sleep=lambda _: None)
    result = models.judge_core([("爬山", ["恐高"])], [], NOW)
    assert result.degraded and result.value.create is False


def test_degraded_reflection_and_relationship_change_nothing() -> None:
    models = FallbackMemoryModels(BrokenModels(LLMUnavailable("down")), attempts=1)
    assert models.reflect("小夏", "开朗", TRIP, "喜欢海", NOW).value.self_soul == "喜欢海"
    assert models.judge_relationship("一般", TRIP, NOW).value.level == "一般"


def test_a_key_without_an_api_key_goes_offline_at_once() -> None:
    sleeps: list[float] = []
    primary = BrokenModels(LLMNotConfigured("no key"))
    result = FallbackMemoryModels(primary, attempts=3, sleep=sleeps.append).extract([], NOW)
    assert result.degraded and (primary.calls, sleeps) == (1, [])


def test_a_failing_endpoint_degrades_through_the_real_sdk(fake_llm: FakeLLMServer, make_settings: MakeSettings) -> None:
    fake_llm.default = lambda body: Reply.error(500)
    gateway = OpenAIGateway.from_settings(make_settings(llm_max_retries=0), sleep=lambda _: None)
    models = FallbackMemoryModels(LLMMemoryModels(gateway), attempts=2, sleep=lambda _: None)
    result = models.compress(TRIP, NOW)
    assert result.degraded and len(fake_llm.requests) == 2


def test_invalid_output_twice_per_attempt_degrades_too(fake_llm: FakeLLMServer, make_settings: MakeSettings) -> None:
    fake_llm.default = lambda body: Reply.text("我拒绝输出 JSON")
    gateway = OpenAIGateway.from_settings(make_settings(), sleep=lambda _: None)
    models = FallbackMemoryModels(LLMMemoryModels(gateway), attempts=2, sleep=lambda _: None)
    assert models.judge_relationship("一般", TRIP, NOW).degraded
    assert len(fake_llm.requests) == 4  # two attempts, each with its corrective retry


def test_without_any_api_key_the_offline_provider_is_the_choice_not_a_degradation() -> None:
    models = build_memory_models(Settings(), sleep=lambda _: None)
    result = models.compress(TRIP, NOW)
    assert result.degraded is False and "舟山" in result.value.summary


def test_with_an_api_key_the_real_models_answer(fake_llm: FakeLLMServer, make_settings: MakeSettings) -> None:
    fake_llm.script("qwen-plus", Reply.json({"summary": "约好去舟山", "emotion_tags": TAGS}))
    result = build_memory_models(make_settings(), sleep=lambda _: None).compress(TRIP, NOW)
    assert (result.value.summary, result.degraded) == ("约好去舟山", False)


@pytest.mark.parametrize(("pause", "expected"), [(3.0, [3.0, 6.0]), (0.0, [0.0, 0.0])])
def test_the_pause_between_attempts_is_the_setting_times_the_attempt(
    fake_llm: FakeLLMServer, make_settings: MakeSettings, pause: float, expected: list[float]
) -> None:
    fake_llm.default = lambda body: Reply.error(500)
    sleeps: list[float] = []
    settings = make_settings(llm_max_retries=0, background_attempts=3, background_retry_seconds=pause)
    result = build_memory_models(
        settings, OpenAIGateway.from_settings(settings, sleep=lambda _: None), sleep=sleeps.append
    ).compress(TRIP, NOW)
    assert result.degraded and sleeps == expected and len(fake_llm.requests) == 3
