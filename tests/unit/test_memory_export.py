"""The memory export's document: ids re-issued with every reference following, the checks across
fields, and the published JSON Schema kept equal to the model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from dreamchat.adapters.runtime import SeededRandom
from dreamchat.domain.core_memory import RELATIONSHIP_ID, relationship_entry
from dreamchat.domain.memory_export import (
    DocumentProblem,
    ExportedLongTerm,
    ExportedRelationship,
    ExportedTopic,
    MemoryDocument,
    check,
    document_schema,
    head_version,
    reissue,
)
from dreamchat.domain.models import (
    CoreMemory,
    EmotionTags,
    LongTermDetail,
    LongTermIndex,
    Message,
    MidTermMemory,
    Relationship,
)

SCHEMA = Path(__file__).resolve().parents[2] / "docs" / "memory-export.schema.json"
TAGS = EmotionTags(basic_emotion="开心", scene="闲聊", atmosphere="轻松")
T = 1_770_000_000


def message(n: int, topic: str, micros_offset: int = 0) -> Message:
    return Message(
        id=f"m{(T + n) * 1_000_000 + micros_offset:016d}00000{n % 10}",
        role="user",
        content=f"第{n}句",
        timestamp=T + n,
        topic_id=topic,
    )


def document() -> MemoryDocument:
    old, now = "topic_1770000000_aaaaaa", "topic_1770000100_bbbbbb"
    log = [
        message(0, old),
        message(1, old),
        message(1, old, 0).model_copy(update={"id": f"m{(T + 1) * 1_000_000:016d}000009"}),
        message(100, now),
    ]
    mid = MidTermMemory(
        id="mid_1770000000_aaaaaa",
        topic_id=old,
        summary="聊了海边",
        emotion_tags=TAGS,
        message_count=3,
        created_at=T,
        compression_ratio=0.5,
        first_message_id=log[0].id,
        last_message_id=log[2].id,
    )
    index = LongTermIndex(
        id="long_1770000000_12345678",
        title="海边",
        key_points=["去海边", "看日出"],
        detail_file="2026-02-02_海边.json",
        created_at=T,
        sources=[log[1].id, "m_gone"],
    )
    detail = LongTermDetail(title="海边", detail_content="约好去海边", source_mid_ids=[mid.id, "mid_gone"])
    change = CoreMemory(id="core_rel_1", content="关系变好", importance=8, created_at=T, source="relationship")
    return MemoryDocument(
        format="dreamchat.memory",
        version=1,
        exported_at=T + 200,
        ai_user={"id": "ai_1", "name": "小梦"},
        topic=ExportedTopic(topic_id=now, created_at=T + 100),
        short_term=[log[3]],
        mid_term=[mid],
        long_term=[ExportedLongTerm(index=index, detail=detail)],
        core=[CoreMemory(id="core_a", content="怕高", importance=9, created_at=T)],
        relationship=ExportedRelationship(current=Relationship(level="关系较好"), history=[change]),
        messages=log,
    )


def test_reissued_ids_are_all_new_and_keep_their_order() -> None:
    before = document()
    after = reissue(before, SeededRandom(3).random)
    old_ids = [m.id for m in before.messages]
    new_ids = [m.id for m in after.messages]
    assert set(new_ids).isdisjoint(old_ids)
    assert new_ids == sorted(new_ids) and len(set(new_ids)) == len(new_ids)
    assert [m.content for m in after.messages] == [m.content for m in before.messages]
    assert [m.timestamp for m in after.messages] == [m.timestamp for m in before.messages]
    assert after.mid_term[0].id != before.mid_term[0].id
    assert after.long_term[0].index.id.startswith("long_1770000000_")
    assert after.core[0].id.startswith("core_1770000000_") and after.relationship.history[0].id.startswith("core_rel_")


def test_the_current_relationship_entry_keeps_its_id_and_its_changes_get_new_ones() -> None:
    before = document()
    entry = relationship_entry("一般", "关系较好", "一起看日出", T)
    after = reissue(before.model_copy(update={"core": [*before.core, entry]}), SeededRandom(3).random)
    assert [c.id for c in after.core if c.source == "relationship"] == [RELATIONSHIP_ID]
    assert after.relationship.history[0].id != before.relationship.history[0].id
    check(after)


def test_every_reference_follows_its_reissued_id() -> None:
    after = reissue(document(), SeededRandom(3).random)
    mid, entry = after.mid_term[0], after.long_term[0]
    assert after.short_term[0] == after.messages[3]
    assert after.topic is not None and after.topic.topic_id == after.messages[3].topic_id
    assert mid.topic_id == after.messages[0].topic_id != after.topic.topic_id
    assert mid.id == "mid_" + mid.topic_id.removeprefix("topic_")
    assert (mid.first_message_id, mid.last_message_id) == (after.messages[0].id, after.messages[2].id)
    assert entry.index.sources == [after.messages[1].id, ""]  # a message that is gone stays unanchored
    assert entry.detail is not None and entry.detail.source_mid_ids == [mid.id]


def test_ids_of_one_moment_keep_their_order_whatever_the_random_numbers() -> None:
    times = iter([0.9, 0.1, 0.5, 0.0])
    after = reissue(document(), lambda: next(times, 0.0))
    ids = [m.id for m in after.messages]
    assert ids == sorted(ids)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda d: d.model_copy(update={"messages": d.messages + d.messages[:1]}), "messages"),
        (lambda d: d.model_copy(update={"mid_term": d.mid_term * 2}), "mid_term"),
        (lambda d: d.model_copy(update={"core": d.core + d.relationship.history}), "core"),
        (
            lambda d: d.model_copy(
                update={
                    "long_term": [
                        d.long_term[0].model_copy(
                            update={"index": d.long_term[0].index.model_copy(update={"detail_file": "a/b.json"})}
                        )
                    ]
                }
            ),
            "detail_file",
        ),
        (
            lambda d: d.model_copy(
                update={
                    "relationship": d.relationship.model_copy(
                        update={"history": [CoreMemory(id="c", content="x", importance=8, created_at=T)]}
                    )
                }
            ),
            "source",
        ),
        (
            lambda d: d.model_copy(
                update={
                    "relationship": d.relationship.model_copy(
                        update={"history": [d.relationship.history[0].model_copy(update={"id": RELATIONSHIP_ID})]}
                    )
                }
            ),
            "current entry",
        ),
    ],
)
def test_a_document_that_does_not_hold_together_says_where(change, says) -> None:
    with pytest.raises(DocumentProblem, match=says):
        check(change(document()))


def test_a_detail_revision_is_hex_never_a_path() -> None:
    dumped = document().model_dump()
    dumped["long_term"][0]["index"]["detail_revision"] = "../../x"
    with pytest.raises(ValidationError, match="detail_revision"):
        MemoryDocument.model_validate(dumped)
    dumped["long_term"][0]["index"]["detail_revision"] = "0a1b2c3d4e5f"
    assert MemoryDocument.model_validate(dumped).long_term[0].index.detail_revision == "0a1b2c3d4e5f"
    del dumped["long_term"][0]["index"]["detail_revision"]  # a document written before revisions
    assert MemoryDocument.model_validate(dumped).long_term[0].index.detail_revision == ""


def test_the_format_and_version_are_read_before_the_fields() -> None:
    assert head_version({"format": "dreamchat.memory", "version": 1}) is None
    assert "version 1" in (head_version({"format": "dreamchat.memory", "version": 2}) or "")
    assert "format" in (head_version({"version": 1}) or "")
    assert "object" in (head_version([]) or "")


def test_the_published_schema_is_the_models() -> None:
    assert json.loads(SCHEMA.read_text()) == document_schema(), "regenerate docs/memory-export.schema.json"
