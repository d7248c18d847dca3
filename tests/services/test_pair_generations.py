"""A new friendship is a new pair generation: nothing computed in a forgotten one lands in the next.

The attack (issue 25 §1): save a secret, let a compression or a chat turn wait on the model, forget
the pair and befriend the AI user again at once. Befriending lifts the pair's tombstone, so before
generations the late summary (or reply) landed in the new friendship and its context.
"""

from __future__ import annotations

import contextlib
import threading

import pytest

from dreamchat import keys
from dreamchat.domain.models import PairId
from dreamchat.errors import Contended
from dreamchat.services.friend_lists import EndedFriendship
from dreamchat.services.tombstones import Gone
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.services.conftest import services_with_fake_llm

pytestmark = pytest.mark.every_store

SECRET = "我的秘密是银行卡密码"


class HeldModel:
    """Answers (a summary or a chat reply) only once released: the work is in flight until then."""

    def __init__(self, answer: str) -> None:
        self.released = threading.Event()
        self.answer = answer

    def __call__(self, body: dict) -> Reply:
        self.released.wait(10)
        return Reply.text(self.answer)


SUMMARY = '{"summary": "用户说了银行卡密码", "emotion_tags": {"basic_emotion": "严肃", "scene": "闲聊", "atmosphere": "平和"}}'


def friends_with_a_public_ai_user(services):
    owner, _ = services.auth.register("owner", "correct-horse-battery", "10.0.0.1")
    public = services.ai_users.create(owner.id, {"name": "公开", "visibility": "public"})
    account, _ = services.auth.register("bob", "correct-horse-battery", "10.0.0.2")
    services.ai_users.befriend(account.id, public.id)
    return services.ai_users.companion(account.id, public.id)


def in_background(work) -> tuple[threading.Thread, list]:
    outcome: list = []

    def run() -> None:
        try:
            outcome.append(work())
        except Gone as gone:
            outcome.append(gone)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def forget_and_befriend_again(services, pair: PairId) -> PairId:
    services.ai_users.unfriend(pair.account_id, pair.ai_user_id, forget=True)
    services.ai_users.befriend(pair.account_id, pair.ai_user_id)
    return services.ai_users.companion(pair.account_id, pair.ai_user_id)[0]


def pair_rows(store, pair: PairId) -> list[tuple[str, str]]:
    return [(i["pk"], i["sk"]) for pk in keys.pair_partitions(pair) for i in store.query(pk).items]


def test_a_compression_waiting_on_the_model_lands_nothing_after_forget_and_befriend(runtime) -> None:
    model = HeldModel(SUMMARY)
    with FakeLLMServer(default=model) as server:
        services = services_with_fake_llm(runtime, server)
        pair, ai_user = friends_with_a_public_ai_user(services)
        services.chat.save(pair, ai_user, SECRET)
        message, _ = services.chat.save(pair, ai_user, "再见")
        thread, outcome = in_background(lambda: services.compression.compress(pair, message.topic_id))
        while not server.requests:
            model.released.wait(0.02)

        fresh = forget_and_befriend_again(services, pair)
        model.released.set()
        thread.join(20)

    assert outcome == [None]
    assert services.repo.mid_terms(fresh) == []
    assert pair_rows(runtime.store, fresh) == []
    assert runtime.blobs.list(keys.pair_blob_prefix(fresh)) == []


def test_a_chat_turn_waiting_on_the_model_lands_nothing_after_forget_and_befriend(runtime) -> None:
    model = HeldModel("我记得你的密码")
    with FakeLLMServer(default=model) as server:
        services = services_with_fake_llm(runtime, server)
        pair, ai_user = friends_with_a_public_ai_user(services)
        person = services.chat.accept(pair, ai_user, SECRET)
        thread, outcome = in_background(lambda: services.chat.respond(pair, ai_user, person))
        while not server.requests:
            model.released.wait(0.02)

        fresh = forget_and_befriend_again(services, pair)
        model.released.set()
        thread.join(20)
        services.chat.save(fresh, ai_user, "重新认识一下")

    assert isinstance(outcome[-1], Gone)
    log = services.repo.log.messages(fresh, before=None, after=None, limit=50)[0]
    assert [m.content for m in log] == ["重新认识一下"]
    assert [m.content for m in services.repo.short_term(fresh)] == ["重新认识一下"]


def test_each_befriending_starts_a_new_generation(runtime) -> None:
    services = services_with_fake_llm(runtime, FakeLLMServer())
    pair, _ = friends_with_a_public_ai_user(services)
    seen = [pair.generation]
    for _ in range(3):
        seen.append(forget_and_befriend_again(services, pair).generation)
    assert all(seen) and len(set(seen)) == len(seen)


def test_a_befriending_racing_a_forget_leaves_nothing_the_ai_users_deletion_cannot_find(runtime) -> None:
    """Found by an attack: `unfriend` deleted the AI user's record of the pair unconditionally, after
    a concurrent `befriend` wrote it: the new friendship was left with no record to erase it by."""
    services = services_with_fake_llm(runtime, FakeLLMServer())
    pair, ai_user = friends_with_a_public_ai_user(services)
    services.chat.save(pair, ai_user, SECRET)
    blobs = runtime.blobs
    real_list = blobs.list
    befriended = []

    def list_then_befriend(prefix: str) -> list[str]:  # the erasure is under way: befriend lands now
        if not befriended:
            befriended.append(services.ai_users.befriend(pair.account_id, pair.ai_user_id))
        return real_list(prefix)

    blobs.list = list_then_befriend
    try:
        services.ai_users.unfriend(pair.account_id, pair.ai_user_id, forget=True)
    finally:
        blobs.list = real_list

    assert befriended
    members = {m for m in services.ai_users._storage.begin().ai_users.members(pair.ai_user_id)}
    assert pair.account_id in members  # the friendship that won the race is findable
    fresh = services.ai_users.companion(pair.account_id, pair.ai_user_id)[0]
    services.chat.save(fresh, ai_user, "又见面了")
    owner = ai_user.owner_id
    services.ai_users.delete(owner, ai_user.id)
    assert pair_rows(runtime.store, fresh) == []
    assert runtime.store.get(*keys.friend(pair.account_id, pair.ai_user_id)) is None


@pytest.mark.parametrize("visibility", ["private"])
def test_a_person_can_forget_their_pair_after_the_owner_hides_the_ai_user(runtime, visibility: str) -> None:
    services = services_with_fake_llm(runtime, FakeLLMServer())
    pair, ai_user = friends_with_a_public_ai_user(services)
    services.chat.save(pair, ai_user, SECRET)
    services.ai_users.update(ai_user.owner_id, ai_user.id, {"visibility": visibility})
    assert services.friend_lists.ended(pair.account_id) == [
        EndedFriendship(ai_user.id, ai_user.name, "no_longer_visible")
    ]

    services.ai_users.unfriend(pair.account_id, pair.ai_user_id, forget=True)

    assert pair_rows(runtime.store, pair) == []
    assert services.friend_lists.ended(pair.account_id) == []
    assert runtime.store.get(*keys.pair_member(pair.ai_user_id, pair.account_id)) is None


def test_a_forget_overtaken_by_another_forget_and_a_befriending_leaves_the_new_friendship_writable(runtime) -> None:
    services = services_with_fake_llm(runtime, FakeLLMServer())
    pair, ai_user = friends_with_a_public_ai_user(services)
    erasures = services.ai_users._erasures
    real_mark = erasures.mark_pair

    def another_tab_forgets_and_befriends(marked: PairId) -> None:
        erasures.mark_pair = real_mark
        forget_and_befriend_again(services, pair)
        real_mark(marked)  # then this forget's tombstone lands

    erasures.mark_pair = another_tab_forgets_and_befriends
    with pytest.raises(Contended):
        services.ai_users.unfriend(pair.account_id, pair.ai_user_id, forget=True)

    fresh = services.ai_users.companion(pair.account_id, pair.ai_user_id)[0]
    services.chat.save(fresh, ai_user, "还在吗")
    assert [m.content for m in services.repo.short_term(fresh)] == ["还在吗"]


def test_a_detail_document_written_after_its_entry_was_forgotten_is_not_left_behind(runtime) -> None:
    """The last window of issue 25 §1's orphans: the index entry lands, the pair is forgotten and
    befriended again, and only then is the detail document written. It must not stay behind."""
    from dreamchat.llm.memory_models import FallbackMemoryModels
    from dreamchat.llm.offline import OfflineMemoryModels
    from dreamchat.services.container import build_services

    offline = OfflineMemoryModels()
    services = build_services(
        runtime, memory_models=FallbackMemoryModels(offline, offline, attempts=1, sleep=lambda _: None)
    )
    pair, ai_user = friends_with_a_public_ai_user(services)
    services.topics.record(pair, "user", SECRET + "，周末我们去海边看日出吧")
    services.topics.record(pair, "assistant", "好呀，一起去海边")
    assert services.compression.compress_now(pair)
    repo = services.extractor.repo
    written = repo.put_detail

    def forgotten_first(at, key, detail) -> None:
        services.ai_users.unfriend(pair.account_id, ai_user.id, forget=True)
        services.ai_users.befriend(pair.account_id, ai_user.id)
        written(at, key, detail)

    repo.put_detail = forgotten_first
    # the rest of the run (core judgment, vectors) is for a generation that ended: dropped
    with contextlib.suppress(Gone):
        services.extractor.extract(pair, "Asia/Shanghai", force=True)
    details = [k for k in runtime.blobs.list(keys.pair_blob_prefix(pair)) if "long_term_details" in k]
    assert details == []
    assert services.repo.long_index(pair.seen_in(None)) == []
