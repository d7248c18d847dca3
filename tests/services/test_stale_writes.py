"""The person's changes are never reverted by a turn's stale copy of their message (issue 25 §2).

The attack: the person deletes or edits their message while its turn waits on the model; the turn
then ends in 已读不回 (the turn stored its copy again, marked read) or with `[TOPIC_SWITCH]` (the
turn moved its copy to the next topic): the deleted message came back, the edit was reverted. A
compress-now during such a turn left the message stuck in short-term under a compressed topic.
"""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from dreamchat import keys
from dreamchat.domain.models import Message
from dreamchat.errors import Contended
from dreamchat.ports import Put
from dreamchat.services.memory_edit import MemoryEditService
from dreamchat.services.storage.unit_of_work import Storage
from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.services.conftest import services_with_settings

pytestmark = pytest.mark.every_store

SUMMARY = {
    "summary": "用户说了一件事",
    "emotion_tags": {"basic_emotion": "严肃", "scene": "闲聊", "atmosphere": "平和"},
}


class HeldChat:
    """The chat request waits until released and answers `reply`; any other request (a compression)
    is answered at once with a summary."""

    def __init__(self, reply: str) -> None:
        self.released = threading.Event()
        self.waiting = threading.Event()
        self.reply = reply

    def __call__(self, body: dict) -> Reply:
        if body.get("model") == "deepseek-chat":
            self.waiting.set()
            self.released.wait(30)
            return Reply.text(self.reply)
        return Reply.text(json.dumps(SUMMARY, ensure_ascii=False))


def turn_waiting(runtime, server: FakeLLMServer, model: HeldChat, content: str):
    services = services_with_settings(runtime, server, reply_decision="model", llm_timeout_seconds=40)
    ai_user = services.ai_users.create("acc_stale", {"name": "小梦"})
    pair, ai_user = services.ai_users.companion("acc_stale", ai_user.id)
    person = services.chat.accept(pair, ai_user, content)
    outcome: list = []
    thread = threading.Thread(target=lambda: outcome.extend(services.chat.respond(pair, ai_user, person)))
    thread.start()
    assert model.waiting.wait(60)  # the first turn of a run loads the tokenizer's dictionary
    return services, pair, person, thread, outcome


def finish(model: HeldChat, thread: threading.Thread) -> None:
    model.released.set()
    thread.join(20)


def stored(services, pair, person: Message) -> tuple[Message | None, list[Message]]:
    return services.repo.log.message(pair, person.id), services.repo.short_term(pair)


def test_a_message_deleted_while_its_turn_waits_stays_deleted_after_a_read_without_reply(runtime) -> None:
    model = HeldChat("")
    with FakeLLMServer(default=model) as server:
        # words the crisis check reads as everyday: a message showing distress is never left unanswered
        services, pair, person, thread, _ = turn_waiting(runtime, server, model, "今天天气不错")
        assert services.repo.log.delete_message(pair, person.id)
        finish(model, thread)
    assert stored(services, pair, person) == (None, [])


def test_a_message_edited_while_its_turn_waits_keeps_the_edit_after_a_read_without_reply(runtime) -> None:
    model = HeldChat("")
    with FakeLLMServer(default=model) as server:
        services, pair, person, thread, _ = turn_waiting(runtime, server, model, "原来的话")
        MemoryEditService(services.repo, Storage(services.runtime.store), runtime.clock).short_term(
            pair, person.id, False, {"content": "改过的话"}
        )
        finish(model, thread)
    log, short = stored(services, pair, person)
    assert log is not None and log.content == "改过的话"
    assert [m.content for m in short] == ["改过的话"]


def test_a_message_deleted_while_its_turn_waits_stays_deleted_after_a_topic_switch(runtime) -> None:
    model = HeldChat("[TOPIC_SWITCH]换个话题吧")
    with FakeLLMServer(default=model) as server:
        services, pair, person, thread, _ = turn_waiting(runtime, server, model, "删掉这句")
        assert services.repo.log.delete_message(pair, person.id)
        finish(model, thread)
    log, short = stored(services, pair, person)
    assert log is None
    assert [m.content for m in short] == ["换个话题吧"]


def test_a_compress_now_during_the_turn_leaves_nothing_in_short_term_under_the_compressed_topic(runtime) -> None:
    model = HeldChat("")
    with FakeLLMServer(default=model) as server:
        services, pair, person, thread, _ = turn_waiting(runtime, server, model, "压缩前的话")
        assert [m.topic_id for m in services.compression.compress_now(pair)] == [person.topic_id]
        finish(model, thread)
    log, short = stored(services, pair, person)
    assert short == []
    assert log is not None and log.read_no_reply is True  # the log still shows it was read


class DeletedFirst:
    """A store on which the person's deletion of `key` lands just before the first write to it."""

    def __init__(self, inner, key: tuple[str, str]) -> None:
        self._inner, self._key, self._fired = inner, key, False

    def __getattr__(self, name: str):
        return getattr(self._inner, name)

    def transact(self, operations) -> None:
        touched = {(op.item["pk"], op.item["sk"]) for op in operations if isinstance(op, Put)}
        if self._key in touched and not self._fired:
            self._fired = True
            self._inner.delete(*self._key)
        self._inner.transact(operations)


def test_a_core_memory_deleted_during_an_edit_does_not_come_back(runtime) -> None:
    services = services_with_settings(runtime, FakeLLMServer())
    ai_user = services.ai_users.create("acc_core", {"name": "小梦"})
    pair = services.ai_users.pair("acc_core", ai_user.id)
    editor = MemoryEditService(services.repo, Storage(services.runtime.store), runtime.clock)
    added = editor.core(pair, None, False, {"content": "对花生过敏"})
    editor._storage = Storage(DeletedFirst(runtime.store, (keys.pair_pk(pair), keys.core(added["id"]))))

    with pytest.raises(Contended):
        editor.core(pair, added["id"], False, {"content": "对花生严重过敏"})

    assert services.repo.core(pair) == []


def test_parallel_edits_of_one_memory_each_land_or_lose_their_race_never_fail(runtime) -> None:
    services = services_with_settings(runtime, FakeLLMServer())
    ai_user = services.ai_users.create("acc_mid", {"name": "小梦"})
    pair = services.ai_users.pair("acc_mid", ai_user.id)
    services.topics.record(pair, "user", "周末去海边")
    [mid] = services.compression.compress_now(pair)
    editor = MemoryEditService(services.repo, Storage(services.runtime.store), runtime.clock)
    barrier = threading.Barrier(6)

    def edit(n: int) -> str:
        barrier.wait(10)
        try:
            editor.mid_term(pair, mid.id, False, {"summary": f"第{n}次修改"})
        except Contended:
            return "409"
        return "200"

    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(edit, range(6)))
    assert "200" in answers and set(answers) <= {"200", "409"}
    assert services.repo.mid_term(pair, mid.topic_id).summary in {f"第{n}次修改" for n in range(6)}
