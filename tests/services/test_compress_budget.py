"""The compress function's time budget counts every model task a compression can run.

`worst_case_seconds("compress")` (held under the Lambda's timeout by tests/infra/test_budgets.py)
assumes FUNCTION_TASKS["compress"] memory-model tasks plus one quality judgment. Here a model that
only ever answers garbage makes every task use all its attempts, on a topic where the reflection,
the relationship judgment and the quality sample all fall: the calls made must be the calls counted.
(The budget counted 2 tasks, and missed the judgment and the quality sample: 146 s at worst in a
120 s function.)
"""

from __future__ import annotations

import dataclasses

from dreamchat.budget import FUNCTION_TASKS
from dreamchat.config import Settings
from dreamchat.llm.gateway import OpenAIGateway
from dreamchat.llm.memory_models import FallbackMemoryModels, LLMMemoryModels
from dreamchat.llm.offline import OfflineMemoryModels
from dreamchat.services.container import build_services
from tests.fakes.fake_llm import Reply


def test_a_compression_makes_no_more_model_calls_than_its_budget_counts(runtime, fake_llm) -> None:
    attempts = 2
    settings = Settings(
        data_dir=runtime.settings.data_dir,
        run_scheduler=False,
        llm_base_url=fake_llm.base_url,
        llm_api_key="test-key",
        llm_timeout_seconds=2,
        llm_max_retries=0,
        background_attempts=attempts,
        reflect_every_topics=1,
        judge_relationship_every_topics=1,
        quality_sample_share=1.0,
    )
    gateway = OpenAIGateway.from_settings(settings, sleep=lambda _: None)
    models = FallbackMemoryModels(
        LLMMemoryModels(gateway), OfflineMemoryModels(), attempts=attempts, sleep=lambda _: None
    )
    services = build_services(dataclasses.replace(runtime, settings=settings), gateway=gateway, models=models)
    ai_user = services.ai_users.create("acc_budget", {"name": "小梦"})
    pair = services.ai_users.pair("acc_budget", ai_user.id)
    for role, text in [("user", "今天面试通过了，太开心了！"), ("assistant", "恭喜你！"), ("user", "晚上去吃火锅庆祝")]:
        services.memory.record(pair, role, text)
    fake_llm.default = lambda _body: Reply.text("这不是 JSON")  # every task fails every attempt
    fake_llm.requests.clear()

    [mid] = services.compress_now(pair)

    assert mid.degraded
    per_task = attempts * 2  # each attempt: the call and its corrective retry
    quality = 2
    assert len(fake_llm.requests) == FUNCTION_TASKS["compress"] * per_task + quality
