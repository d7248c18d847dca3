"""The words said behind a memory: each key point anchored to its message when it is extracted, and
shown (only the sentences the message needs) when a turn is about it."""

from __future__ import annotations

from dreamchat import keys
from dreamchat.domain.models import AIUser, PairId
from dreamchat.domain.tokens import estimate_tokens
from dreamchat.llm.chat_context import QUOTE_SHARE
from dreamchat.ports import KeyRange, query_all
from dreamchat.services.memory_edit import MemoryEditService
from dreamchat.services.storage.unit_of_work import Storage
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.services.conftest import services_with_fake_llm

PAIR = PairId(account_id="acc1", ai_user_id="ai_1")
ZONE = "Asia/Shanghai"
AI = AIUser(id="ai_1", owner_id="acc1", name="小梦", timezone=ZONE, created_at=0, updated_at=0)
SAID = [
    ("user", "周末我带孩子们去画画了。我们最新的作品是一幅日落，还有一棵棕榈树！"),
    ("assistant", "听起来好温馨"),
    ("user", "下个月我要去杭州出差，住在西湖边。"),
]
POINTS = ["他和孩子们喜欢一起画画", "他下个月去杭州出差", "他很开心"]
SUMMARY = {"summary": "聊画画和出差", "emotion_tags": {"basic_emotion": "开心", "scene": "闲聊", "atmosphere": "轻松"}}


def remember(services, server: FakeLLMServer, clock) -> list[str]:
    server.script("qwen-plus", Reply.json(SUMMARY))
    ids = [services.topics.record(PAIR, role, text).id for role, text in SAID]
    mid = services.compression.compress_now(PAIR)[0]
    clock.advance(hours=25)
    memory = {"title": "画画和出差", "key_points": POINTS, "detail_content": "聊了画画", "source_mid_ids": [mid.id]}
    server.script("doubao-pro-32k", Reply.json({"memories": [memory]}))
    services.extractor.extract(PAIR, ZONE)
    return ids


def entry(runtime) -> dict:
    [found] = query_all(runtime.store, keys.pair_pk(PAIR), KeyRange(prefix=keys.LONG_PREFIX))
    return found


def quotes_of(services, message: str) -> str:
    context = services.context.context(PAIR, AI, message, "")
    return next(s.text for s in context.sections if s.name == "long_term_details")


def test_each_key_point_is_anchored_to_the_message_it_came_from(runtime, fake_llm, clock) -> None:
    services = services_with_fake_llm(runtime, fake_llm)
    painted, _, travel = remember(services, fake_llm, clock)
    assert entry(runtime)["sources"] == [painted, travel, ""]  # "很开心" was said by no message


def test_a_turn_about_a_memory_shows_what_was_said_behind_it(runtime, fake_llm, clock) -> None:
    services = services_with_fake_llm(runtime, fake_llm)
    remember(services, fake_llm, clock)
    text = quotes_of(services, "你和孩子们最近画了什么画？")
    assert "【当时的原话】" in text and "对方：「" in text and "棕榈树" in text


def test_small_talk_shows_no_quote(runtime, fake_llm, clock) -> None:
    services = services_with_fake_llm(runtime, fake_llm)
    remember(services, fake_llm, clock)
    assert quotes_of(services, "哈哈") == ""


def test_a_message_the_person_deleted_is_never_quoted(runtime, fake_llm, clock) -> None:
    services = services_with_fake_llm(runtime, fake_llm)
    painted, _, _ = remember(services, fake_llm, clock)
    assert services.repo.log.delete_message(PAIR, painted)
    assert "棕榈树" not in quotes_of(services, "你和孩子们最近画了什么画？")


def test_quotes_stay_within_their_share_of_the_budget(runtime, fake_llm, clock) -> None:
    services = services_with_fake_llm(runtime, fake_llm)
    services.topics.record(PAIR, "user", "画画 " + "我们画了好多好多的画，" * 200)
    server = fake_llm
    server.script("qwen-plus", Reply.json(SUMMARY))
    mid = services.compression.compress_now(PAIR)[0]
    clock.advance(hours=25)
    memory = {"title": "画", "key_points": ["他们画了好多画"], "detail_content": "画", "source_mid_ids": [mid.id]}
    server.script("doubao-pro-32k", Reply.json({"memories": [memory]}))
    services.extractor.extract(PAIR, ZONE)
    context = services.context.context(PAIR, AI, "你们画了什么画？", "")
    text = next(s for s in context.sections if s.name == "long_term_details")
    said = text.text.split("\n【相关回忆详情】")[0]  # the quotes; the detail document follows them
    assert "好多好多的画" in said
    assert estimate_tokens(said) <= QUOTE_SHARE * services.runtime.settings.memory_tokens


def test_editing_key_points_keeps_the_sources_of_the_unchanged_ones(runtime, fake_llm, clock) -> None:
    services = services_with_fake_llm(runtime, fake_llm)
    painted, _, _ = remember(services, fake_llm, clock)
    found = entry(runtime)
    editor = MemoryEditService(services.repo, Storage(services.runtime.store), runtime.clock, services.retriever)
    editor.long_term(PAIR, found["id"], False, {"key_points": ["他很开心", POINTS[0], "新写的"]})
    assert entry(runtime)["sources"] == ["", painted, ""]


def test_recall_memory_returns_the_words_said_behind_the_memory(runtime, fake_llm, clock) -> None:
    services = services_with_fake_llm(runtime, fake_llm)
    painted, _, _ = remember(services, fake_llm, clock)
    [recalled] = services.context.recall(PAIR, "孩子们画的画")
    assert recalled.detail.detail_content == "聊了画画"
    assert [q.message_id for q in recalled.said] == [painted] and "棕榈树" in recalled.said[0].text
    assert services.repo.log.delete_message(PAIR, painted)
    assert services.context.recall(PAIR, "孩子们画的画")[0].said == []
