"""Deleting while work is in flight leaves nothing behind, on every storage adapter.

The attack: a chat turn waits on a slow model while its account is deleted; when the model
answers, the turn writes its reply. Before tombstones, those writes re-created the erased
pair (messages, the topic and its idle-index entry, later compressed into a mid-term memory).
"""

from __future__ import annotations

import threading

import pytest

from dreamchat import keys
from dreamchat.domain.models import PairId
from dreamchat.ports import Put
from dreamchat.services.tombstones import ERASE_AGAIN_AFTER, Gone
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.services.conftest import services_with_fake_llm

pytestmark = pytest.mark.every_store

DUE_KINDS = ("TOPIC", "COMPRESS", "HB", "EXTRACT")


class SlowModel:
    """Answers once released: the turn is in flight until then."""

    def __init__(self) -> None:
        self.released = threading.Event()

    def __call__(self, body: dict) -> Reply:
        self.released.wait(30)
        return Reply.text("我在呢\n刚才在忙")


def leftovers(store, pair: PairId) -> list[tuple[str, str]]:
    """Every item still stored for the pair or its account: partitions and due-index entries."""
    found = []
    for pk in [*keys.pair_partitions(pair), keys.account_pk(pair.account_id), keys.ai_user_pk(pair.ai_user_id)]:
        found += [(i["pk"], i["sk"]) for i in store.query(pk).items]
    for kind in DUE_KINDS:
        for shard in range(keys.DUE_SHARDS):
            items = store.query_due(keys.due_partition(kind, shard), "~").items
            found += [(i["pk"], i["sk"]) for i in items if pair.account_id in i["pk"]]
    return found


def start_turn(services, pair, ai_user, content: str) -> tuple[threading.Thread, list]:
    person = services.chat.accept(pair, ai_user, content)
    outcome: list = []

    def run() -> None:
        try:
            outcome.extend(services.chat.respond(pair, ai_user, person))
        except Gone as gone:
            outcome.append(gone)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


@pytest.fixture
def slow():
    model = SlowModel()
    with FakeLLMServer(default=model) as server:
        yield model, server
    model.released.set()


def test_a_turn_in_flight_while_the_account_is_deleted_writes_nothing(runtime, slow) -> None:
    model, server = slow
    services = services_with_fake_llm(runtime, server)
    account, _ = services.auth.register("alice", "correct-horse-battery", "10.0.0.1")
    ai_user = services.ai_users.create(account.id, {"name": "小梦", "timezone": "Asia/Shanghai"})
    pair, ai_user = services.ai_users.companion(account.id, ai_user.id)
    thread, outcome = start_turn(services, pair, ai_user, "在吗")
    while not server.requests:
        model.released.wait(0.02)

    services.ai_users.erase_account(account.id)
    services.auth.delete_account(account)
    model.released.set()
    thread.join(20)

    assert isinstance(outcome[-1], Gone)
    assert leftovers(runtime.store, pair) == []
    assert services.compression.compress(pair, "topic_any") is None


def test_a_turn_in_flight_while_the_pair_is_forgotten_writes_nothing(runtime, slow) -> None:
    model, server = slow
    services = services_with_fake_llm(runtime, server)
    owner, _ = services.auth.register("owner", "correct-horse-battery", "10.0.0.1")
    public = services.ai_users.create(owner.id, {"name": "公开", "visibility": "public"})
    account, _ = services.auth.register("bob", "correct-horse-battery", "10.0.0.2")
    services.ai_users.befriend(account.id, public.id)
    pair, ai_user = services.ai_users.companion(account.id, public.id)
    thread, outcome = start_turn(services, pair, ai_user, "你好")
    while not server.requests:
        model.released.wait(0.02)

    services.ai_users.unfriend(account.id, public.id, forget=True)
    model.released.set()
    thread.join(20)

    assert isinstance(outcome[-1], Gone)
    assert [pk for pk, _ in leftovers(runtime.store, pair) if pk.startswith("PAIR#")] == []


def test_befriending_again_after_forgetting_starts_a_pair_that_can_be_written(runtime) -> None:
    services = services_with_fake_llm(runtime, FakeLLMServer())
    account, _ = services.auth.register("carol", "correct-horse-battery", "10.0.0.3")
    ai_user = services.ai_users.create(account.id, {"name": "小梦"})
    services.ai_users.unfriend(account.id, ai_user.id, forget=True)
    services.ai_users.befriend(account.id, ai_user.id)
    pair, ai_user = services.ai_users.companion(account.id, ai_user.id)
    services.chat.save(pair, ai_user, "我回来了")
    assert [m.content for m in services.repo.short_term(pair)] == ["我回来了"]


def test_every_write_to_an_erased_owner_fails_and_others_pass(runtime) -> None:
    services = services_with_fake_llm(runtime, FakeLLMServer())
    erased = PairId(account_id="gone", ai_user_id="ai_1")
    services.erasures.mark_pair(erased)
    store = runtime.store
    for write in (
        lambda: store.put({"pk": keys.pair_pk(erased), "sk": "X"}),
        lambda: store.put_if_absent({"pk": keys.messages_pk(erased), "sk": "m1"}),
        lambda: store.put_versioned({"pk": keys.short_term_pk(erased), "sk": "t#m1"}, None),
        lambda: store.transact([Put({"pk": "PUBLIC", "sk": "x"}), Put({"pk": keys.pair_pk(erased), "sk": "Y"})]),
    ):
        with pytest.raises(Gone):
            write()
    assert store.query(keys.pair_pk(erased)).items == [] and store.get("PUBLIC", "x") is None
    other = PairId(account_id="here", ai_user_id="ai_1")
    store.put({"pk": keys.pair_pk(other), "sk": "X"})
    assert not store.put_if_absent({"pk": keys.pair_pk(other), "sk": "X"})


def test_the_erasure_runs_again_once_in_flight_work_has_had_time_to_end(runtime) -> None:
    services = services_with_fake_llm(runtime, FakeLLMServer())
    account, _ = services.auth.register("dave", "correct-horse-battery", "10.0.0.4")
    ai_user = services.ai_users.create(account.id, {"name": "小梦"})
    pair = PairId(account_id=account.id, ai_user_id=ai_user.id)
    services.ai_users.erase_account(account.id)
    services.auth.delete_account(account)
    # A blob cannot be written conditionally: an extraction finishing late leaves its document.
    late = f"{keys.pair_blob_prefix(pair)}long_term_details/2026-03-15_late.json"
    runtime.blobs.put(late, b"{}")
    assert services.erasures.erase_again().items == 0
    runtime.clock.advance(seconds=ERASE_AGAIN_AFTER.total_seconds() + 1)
    services.erasures.erase_again()
    assert runtime.blobs.get(late) is None
    assert services.erasures.erase_again().items == 0  # done once, no longer due
    with pytest.raises(Gone):  # the tombstone stays
        runtime.store.put({"pk": keys.pair_pk(pair), "sk": "X"})
