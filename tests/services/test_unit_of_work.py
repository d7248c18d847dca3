"""The unit of work on both item stores: versioned reads, one commit, a lost race as Contended."""

from __future__ import annotations

import pytest

from dreamchat import keys
from dreamchat.domain.models import CoreMemory, EmotionTags, MidTermMemory, PairId, Relationship
from dreamchat.domain.topics import TopicState
from dreamchat.errors import Contended
from dreamchat.ports import MAX_TRANSACTION_ITEMS, KeyRange, query_all
from dreamchat.services.storage.session import NOT_STORED
from dreamchat.services.storage.unit_of_work import Storage

pytestmark = pytest.mark.every_store

PAIR = PairId(account_id="acc_uow", ai_user_id="ai_uow")
TAGS = EmotionTags(basic_emotion="开心", scene="闲聊", atmosphere="轻松")


def mid(topic: str) -> MidTermMemory:
    return MidTermMemory(
        id=f"mid_{topic}",
        topic_id=topic,
        summary="聊了海边",
        emotion_tags=TAGS,
        message_count=2,
        created_at=0,
        compression_ratio=0.5,
    )


def test_what_was_never_stored_reads_as_the_default_not_stored(store) -> None:
    with Storage(store).pair(PAIR) as uow:
        read = uow.relationship.get()
    assert read.entity == Relationship() and read.version == NOT_STORED and not read.stored


def test_a_save_goes_over_the_version_read_and_the_next_read_sees_the_next_version(store) -> None:
    storage = Storage(store)
    with storage.pair(PAIR) as uow:
        uow.relationship.save(Relationship(level="关系较好"), uow.relationship.get())
        uow.commit()
    with storage.pair(PAIR) as uow:
        read = uow.relationship.get()
    assert read.entity.level == "关系较好" and read.version == 1


def test_a_write_landing_between_read_and_commit_makes_the_commit_contended_and_writes_nothing(store) -> None:
    storage = Storage(store)
    with storage.pair(PAIR) as uow:
        uow.topic.save(TopicState("topic_1", 1), None)
        uow.commit()
    with storage.pair(PAIR) as slow:
        read = slow.topic.get()
        with storage.pair(PAIR) as fast:
            fast.topic.save(TopicState("topic_2", 2), fast.topic.get())
            fast.commit()
        slow.topic.save(TopicState("topic_3", 3), read)
        slow.core.add(CoreMemory(id="core_1", content="不会写入", importance=8, created_at=0))
        with pytest.raises(Contended):
            slow.commit()
    with storage.pair(PAIR) as uow:
        assert uow.topic.get().entity.topic_id == "topic_2" and uow.core.all() == []


def test_an_item_stored_before_versions_gets_its_first_and_a_racing_upgrade_loses(store) -> None:
    storage = Storage(store)
    with storage.pair(PAIR) as uow:
        uow.mid_terms.add(mid("topic_1"), None)
        uow.commit()
    found = store.get(keys.pair_pk(PAIR), keys.mid_term("topic_1"))
    store.put({k: v for k, v in found.items() if k != "version"})  # as an older release stored it
    with storage.pair(PAIR) as first, storage.pair(PAIR) as second:
        [one], [other] = first.mid_terms.all(), second.mid_terms.all()
        assert one.version is None and one.stored
        first.mid_terms.save(one.entity.model_copy(update={"summary": "改过"}), one)
        first.commit()
        second.mid_terms.extracted(other)
        with pytest.raises(Contended):
            second.commit()
    after = store.get(keys.pair_pk(PAIR), keys.mid_term("topic_1"))
    assert after["summary"] == "改过" and after["version"] == 1 and not after["extracted_to_long"]


def core_memories(uow, count: int) -> None:
    for n in range(count):
        uow.core.add(CoreMemory(id=f"core_{n:02d}", content=f"第{n}件事", importance=8, created_at=n))


def test_a_commit_of_more_writes_than_one_transaction_takes_is_refused(store) -> None:
    with Storage(store).pair(PAIR) as uow:
        core_memories(uow, MAX_TRANSACTION_ITEMS + 1)
        with pytest.raises(ValueError, match="26 writes cannot be one transaction"):
            uow.commit()
    assert query_all(store, keys.pair_pk(PAIR), KeyRange(prefix=keys.CORE_PREFIX)) == []


def test_more_writes_than_a_transaction_takes_are_sent_by_commit_in_parts(store) -> None:
    with Storage(store).pair(PAIR) as uow:
        core_memories(uow, MAX_TRANSACTION_ITEMS + 1)
        uow.commit_in_parts()
    assert len(query_all(store, keys.pair_pk(PAIR), KeyRange(prefix=keys.CORE_PREFIX))) == 26


def test_a_commit_of_as_many_writes_as_a_transaction_takes_is_one_transaction(store) -> None:
    with Storage(store).pair(PAIR) as uow:
        core_memories(uow, MAX_TRANSACTION_ITEMS)
        uow.commit()
    assert len(query_all(store, keys.pair_pk(PAIR), KeyRange(prefix=keys.CORE_PREFIX))) == 25


def test_leaving_without_a_commit_writes_nothing(store) -> None:
    storage = Storage(store)
    with storage.pair(PAIR) as uow:
        uow.core.add(CoreMemory(id="core_1", content="没有提交", importance=8, created_at=0))
    with storage.pair(PAIR) as uow:
        uow.commit()  # nothing collected: nothing sent
        assert uow.core.all() == []


def test_a_mid_term_memory_leaves_the_due_index_once_extracted(store) -> None:
    storage = Storage(store)
    with storage.pair(PAIR) as uow:
        uow.mid_terms.add(mid("topic_1"), None)
        uow.commit()
    due = keys.due_partition(keys.EXTRACT_DUE_KIND, keys.shard(PAIR))
    assert len(store.query_due(due, "~").items) == 1
    with storage.pair(PAIR) as uow:
        [read] = uow.mid_terms.all()
        uow.mid_terms.extracted(read)
        uow.commit()
    assert store.query_due(due, "~").items == []
