from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Query
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, StringConstraints, ValidationError

from dreamchat.api.deps import CurrentCaller, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.model_work import ModelPoolDep
from dreamchat.domain.models import (
    Conversation,
    EmotionTags,
    MemoryType,
    Message,
    ShortTermTopic,
)
from dreamchat.domain.text import is_blank
from dreamchat.errors import Invalid, NotFound
from dreamchat.llm.chat_prompts import chat_instructions
from dreamchat.services.container import Services
from dreamchat.services.memory_edit import MemoryEditor

router = APIRouter(prefix="/api/memory", tags=["memory"], responses=documented(401, 404, 422))


def _visible(text: str) -> str:
    if is_blank(text):
        raise ValueError("needs a visible character (spaces and zero-width characters alone say nothing)")
    return text


# Text that shows something, the rule messages already follow, of at most so many characters
Visible2000 = Annotated[str, StringConstraints(min_length=1, max_length=2000), AfterValidator(_visible)]
Visible500 = Annotated[str, StringConstraints(min_length=1, max_length=500), AfterValidator(_visible)]
Visible300 = Annotated[str, StringConstraints(min_length=1, max_length=300), AfterValidator(_visible)]
Visible60 = Annotated[str, StringConstraints(min_length=1, max_length=60), AfterValidator(_visible)]
Visible40 = Annotated[str, StringConstraints(min_length=1, max_length=40), AfterValidator(_visible)]


class Edit(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=1, max_length=100)
    delete: StrictBool = False  # "yes" or "1" is not true


class ShortTermEdit(Edit):
    content: Visible2000 | None = None


class MidTermEdit(Edit):
    summary: Visible2000 | None = None
    emotion_tags: EmotionTags | None = None


class LongTermEdit(Edit):
    title: Visible60 | None = None
    key_points: list[Visible300] | None = Field(default=None, max_length=20)
    detail_content: str | None = Field(default=None, max_length=8000)


class CoreEdit(Edit):
    # A new core memory has no id yet: optional here, unlike every other edit (pydantic allows the narrowing)
    id: str | None = Field(default=None, min_length=1, max_length=100)  # type: ignore[assignment]
    content: Visible500 | None = None
    importance: int | None = Field(default=None, ge=1, le=10, strict=True)
    category: Visible40 | None = None


EDITS: dict[str, type[Edit]] = {
    "short_term": ShortTermEdit,
    "mid_term": MidTermEdit,
    "long_term": LongTermEdit,
    "core": CoreEdit,
}


@router.get("/{user_id}")
def memory_context(
    user_id: str, caller: CurrentCaller, services: ServicesDep, q: str | None = Query(default=None, max_length=2000)
) -> dict[str, Any]:
    """The context the model would see now, with tokens per section; `q` previews retrieval for a message."""
    pair, ai_user = services.ai_users.companion(caller.id, user_id)
    relationship = services.memory.repo.relationship(pair)
    now = services.runtime.clock.now()
    instructions = chat_instructions(ai_user.name, now, services.memory.repo.zone(pair, ai_user), relationship.level)
    context = services.memory.context(pair, ai_user, q, instructions)
    return {
        "sections": [{"name": s.name, "tokens": s.tokens, "text": s.text} for s in context.sections],
        "total_tokens": context.tokens,
        "long_term_in_context": context.long_term_ids,
        "messages": context.messages,
        "quality": services.quality.figures(pair).report(),
    }


@router.get("/{user_id}/files")
def memory_files(user_id: str, caller: CurrentCaller, services: ServicesDep) -> dict[str, Any]:
    """Every tier with the spec's field names: `short_term` is the current topic; topics that
    ended but are not compressed yet are listed in `short_term_pending`."""
    pair = services.ai_users.pair(caller.id, user_id)
    repo = services.memory.repo
    topics = _topics(repo.short_term(pair))
    state = repo.topic_state(pair)
    current = next((t for t in topics if state and t["topic_id"] == state.topic_id and not state.ended), None)
    self_soul = repo.self_soul(pair)
    relationship = repo.relationship(pair)
    return {
        "short_term": current or {"topic_id": None, "conversations": [], "created_at": None, "message_ids": []},
        "short_term_pending": [t for t in topics if t is not current],
        "mid_term": [m.model_dump() for m in repo.mid_terms(pair)],
        "long_term": [e.model_dump() for e in repo.long_index(pair)],
        "core": [c.model_dump() for c in repo.core(pair)],
        "self_soul": self_soul.model_dump(),
        "relationship": relationship.model_dump(),
    }


def _topics(messages: list[Message]) -> list[dict[str, Any]]:
    """Short-term messages grouped by topic, in the spec's shape (plus the message ids, for edits)."""
    topics = []
    for topic_id in dict.fromkeys(m.topic_id for m in messages):
        of_topic = [m for m in messages if m.topic_id == topic_id]
        conversations = [Conversation(role=m.role, content=m.content, timestamp=m.timestamp) for m in of_topic]
        topic = ShortTermTopic(topic_id=topic_id, conversations=conversations, created_at=of_topic[0].timestamp)
        topics.append({**topic.model_dump(), "message_ids": [m.id for m in of_topic]})
    return topics


@router.get("/{user_id}/files/long_term_details/{detail_file}")
def memory_detail(user_id: str, detail_file: str, caller: CurrentCaller, services: ServicesDep) -> dict[str, Any]:
    """One long-term detail document."""
    pair = services.ai_users.pair(caller.id, user_id)
    known = {e.detail_file for e in services.memory.repo.long_index(pair)}
    detail = services.memory.repo.detail(pair, detail_file) if detail_file in known else None
    if detail is None:
        raise NotFound("no such detail document")
    return detail.model_dump()


@router.put("/{user_id}/{memory_type}", responses=documented(400, 409, 413))
def edit_memory(
    user_id: str,
    memory_type: MemoryType,
    caller: CurrentCaller,
    services: ServicesDep,
    body: dict[str, Any] = Body(...),
) -> dict[str, Any]:
    """The person corrects or deletes one memory (or adds a core memory, without an id)."""
    pair = services.ai_users.pair(caller.id, user_id)
    try:
        edit = EDITS[memory_type].model_validate(body)
    except ValidationError as error:
        raise Invalid("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())) from error
    changes = edit.model_dump(exclude={"id", "delete"}, exclude_none=True)
    if not edit.delete and not changes:
        raise Invalid("nothing to change")
    settings = services.runtime.settings
    editor = MemoryEditor(
        services.memory.repo, services.runtime.clock, services.memory.retriever, settings.max_person_core_memories
    )
    result = getattr(editor, memory_type)(pair, edit.id, edit.delete, changes)
    return {"memory_type": memory_type, "deleted": edit.delete, "memory": result}


@router.post("/{user_id}/compress", responses=documented(429, 503))
async def compress_now(
    user_id: str, caller: CurrentCaller, services: ServicesDep, models: ModelPoolDep
) -> dict[str, Any]:
    """End the current topic and compress short-term memory into mid-term now."""
    return await models.call(caller.id, _compress_now, services, caller.id, user_id)


def _compress_now(services: Services, account_id: str, user_id: str) -> dict[str, Any]:
    pair = services.ai_users.pair(account_id, user_id)
    produced = services.compression.compress_now(pair)
    return {"mid_term": [m.model_dump() for m in produced]}


@router.post("/{user_id}/extract", responses=documented(429, 503))
async def extract_now(
    user_id: str, caller: CurrentCaller, services: ServicesDep, models: ModelPoolDep
) -> dict[str, Any]:
    """Distil every un-extracted mid-term memory into long-term memory now, then judge core memory."""
    return await models.call(caller.id, _extract_now, services, caller.id, user_id)


def _extract_now(services: Services, account_id: str, user_id: str) -> dict[str, Any]:
    pair, ai_user = services.ai_users.companion(account_id, user_id)
    result = services.extractor.extract(pair, services.memory.repo.zone(pair, ai_user), force=True)
    return {
        "long_term": [e.model_dump() for e in result.long_term],
        "core": [c.model_dump() for c in result.core],
        "degraded": result.degraded,
    }
