"""The compress function's time budget counts every model task a compression can run.

`worst_case_seconds("compress")` (held under the Lambda's timeout by tests/infra/test_budgets.py)
assumes FUNCTION_TASKS["compress"] memory-model tasks plus one quality judgment. Here a model that
only ever answers garbage makes every task use all its attempts, on a topic where the reflection,
the relationship judgment and the quality sample all fall: the calls made must be the calls counted.
(The budget counted 2 tasks, and missed the judgment and the quality sample: 146 s at worst in a
120 s function.)
"""

from __future__ import annotations

from dreamchat.budget import FUNCTION_TASKS
from tests.fakes.fake_llm import Reply
from tests.services.conftest import services_with_settings


def test_a_compression_makes_no_more_model_calls_than_its_budget_counts(runtime, fake_llm) -> None:
    attempts = 2
    services = services_with_settings(
        runtime,
        fake_llm,
        attempts,
        reflect_every_topics=1,
        judge_relationship_every_topics=1,
        quality_sample_share=1.0,
    )
    ai_user = services.ai_users.create("acc_budget", {"name": "小梦"})
    pair = services.ai_users.pair("acc_budget", ai_user.id)
    for role, text in [("user", "今天面试通过了，太开心了！"), ("assistant", "恭喜你！"), ("user", "晚上去吃火锅庆祝")]:
        services.topics.record(pair, role, text)
    fake_llm.default = lambda _body: Reply.text("这不是 JSON")  # every task fails every attempt
    fake_llm.requests.clear()

    [mid] = services.compression.compress_now(pair)

    assert mid.degraded
    per_task = attempts * 2  # each attempt: the call and its corrective retry
    quality = 2
    assert len(fake_llm.requests) == FUNCTION_TASKS["compress"] * per_task + quality
