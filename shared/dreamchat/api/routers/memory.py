from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Query
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, StringConstraints, ValidationError

from dreamchat.api.deps import CompanionDep, ModelPoolDep, PairDep, ServicesDep
from dreamchat.api.errors import documented
from dreamchat.api.responses import (
    CompressedOut,
    CoreOut,
    ExtractedOut,
    HealedOut,
    LongTermDetailOut,
    MemoryContextOut,
    MemoryEditedOut,
    MemoryFilesOut,
)
from dreamchat.domain import bounds
from dreamchat.domain.models import EmotionTags, MemoryType
from dreamchat.domain.text import is_blank
from dreamchat.errors import Invalid

router = APIRouter(prefix="/api/memory", tags=["memory"], responses=documented(401, 404, 422))


def _visible(text: str) -> str:
    if is_blank(text):
        raise ValueError("needs a visible character (spaces and zero-width characters alone say nothing)")
    return text


# Text that shows something, the rule messages already follow, within its bound (`dreamchat.domain.bounds`)
_SHOWS = AfterValidator(_visible)
MessageText = Annotated[str, StringConstraints(min_length=1, max_length=bounds.MESSAGE_CHARS), _SHOWS]
SummaryText = Annotated[str, StringConstraints(min_length=1, max_length=bounds.SUMMARY_CHARS), _SHOWS]
TitleText = Annotated[str, StringConstraints(min_length=1, max_length=bounds.TITLE_CHARS), _SHOWS]
KeyPointText = Annotated[str, StringConstraints(min_length=1, max_length=bounds.KEY_POINT_CHARS), _SHOWS]
PersonCoreText = Annotated[str, StringConstraints(min_length=1, max_length=bounds.CORE_CHARS), _SHOWS]
CategoryText = Annotated[str, StringConstraints(min_length=1, max_length=bounds.CATEGORY_CHARS), _SHOWS]


class Edit(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=1, max_length=100)
    delete: StrictBool = False  # "yes" or "1" is not true


class ShortTermEdit(Edit):
    content: MessageText | None = None


class MidTermEdit(Edit):
    summary: SummaryText | None = None
    emotion_tags: EmotionTags | None = None


class LongTermEdit(Edit):
    title: TitleText | None = None
    key_points: list[KeyPointText] | None = Field(default=None, max_length=bounds.KEY_POINTS)
    detail_content: str | None = Field(default=None, max_length=bounds.DETAIL_CHARS)
    # key point numbers (0-based) whose supersession the person undoes: current again; any point the
    # entry has (`undo_problem`), as many as the body holds (at least one: an empty undo changes nothing,
    # so it must not make a degraded entry the person's)
    undo_supersede: list[Annotated[int, Field(ge=0, strict=True)]] | None = Field(default=None, min_length=1)


class CoreEdit(Edit):
    # A new core memory has no id yet: optional here, unlike every other edit (pydantic allows the narrowing)
    id: str | None = Field(default=None, min_length=1, max_length=100)  # type: ignore[assignment]
    content: PersonCoreText | None = None
    importance: int | None = Field(default=None, ge=1, le=10, strict=True)
    category: CategoryText | None = None


EDITS: dict[str, type[Edit]] = {
    "short_term": ShortTermEdit,
    "mid_term": MidTermEdit,
    "long_term": LongTermEdit,
    "core": CoreEdit,
}


@router.get("/{user_id}", response_model=MemoryContextOut)
def memory_context(
    user_id: str,
    companion: CompanionDep,
    services: ServicesDep,
    q: str | None = Query(default=None, max_length=bounds.MESSAGE_CHARS),
) -> MemoryContextOut:
    """The context the model would see now, with tokens per section; `q` previews retrieval for a message."""
    return MemoryContextOut.of(services.views.context(companion.pair, companion.ai_user, q))


@router.get("/{user_id}/files", response_model=MemoryFilesOut)
def memory_files(user_id: str, pair: PairDep, services: ServicesDep) -> MemoryFilesOut:
    """Every tier with the spec's field names: `short_term` is the current topic; topics that
    ended but are not compressed yet are listed in `short_term_pending`."""
    return MemoryFilesOut.model_validate(services.views.memory_files(pair))


@router.get("/{user_id}/files/long_term_details/{detail_file}", response_model=LongTermDetailOut)
def memory_detail(user_id: str, detail_file: str, pair: PairDep, services: ServicesDep) -> LongTermDetailOut:
    """One long-term detail document."""
    return LongTermDetailOut.model_validate(services.views.detail(pair, detail_file))


class Remember(BaseModel):
    model_config = ConfigDict(extra="forbid")
    message_id: str = Field(min_length=1, max_length=64)


@router.post("/{user_id}/core", status_code=201, response_model=CoreOut, responses=documented(400, 409, 413))
def remember(user_id: str, body: Remember, pair: PairDep, services: ServicesDep) -> CoreOut:
    """让 TA 记住这条: a core memory holding the message's words (its first 500 characters), source `person`,
    importance 8. 409 past the core memories a person may add (DREAMCHAT_MAX_PERSON_CORE_MEMORIES) or a pair
    holds; 404 for a message not in this conversation."""
    return CoreOut.model_validate(services.memory_editor.remember(pair, body.message_id))


@router.put("/{user_id}/{memory_type}", response_model=MemoryEditedOut, responses=documented(400, 409, 413))
def edit_memory(
    user_id: str,
    memory_type: MemoryType,
    pair: PairDep,
    services: ServicesDep,
    body: dict[str, Any] = Body(...),
) -> MemoryEditedOut:
    """The person corrects or deletes one memory (or adds a core memory, without an id)."""
    try:
        edit = EDITS[memory_type].model_validate(body)
    except ValidationError as error:
        raise Invalid("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())) from error
    changes = edit.model_dump(exclude={"id", "delete"}, exclude_none=True)
    if not edit.delete and not changes:
        raise Invalid("nothing to change")
    result = getattr(services.memory_editor, memory_type)(pair, edit.id, edit.delete, changes)
    return MemoryEditedOut(memory_type=memory_type, deleted=edit.delete, memory=result)


@router.post("/{user_id}/compress", response_model=CompressedOut, responses=documented(429, 503))
async def compress_now(user_id: str, pair: PairDep, services: ServicesDep, pool: ModelPoolDep) -> CompressedOut:
    """End the current topic and compress short-term memory into mid-term now."""
    return CompressedOut.model_validate(
        {"mid_term": await pool.call(pair.account_id, services.compression.compress_now, pair)}
    )


@router.post("/{user_id}/extract", response_model=ExtractedOut, responses=documented(429, 503))
async def extract_now(user_id: str, companion: CompanionDep, services: ServicesDep, pool: ModelPoolDep) -> ExtractedOut:
    """Redo the pair's degraded results now, then distil every un-extracted mid-term memory into
    long-term memory and judge core memory."""
    pair = companion.pair
    done = await pool.call(pair.account_id, services.extract_now.run, pair, companion.ai_user)
    healed = [HealedOut(kind=h.kind, id=h.subject, outcome=h.outcome) for h in done.healed]
    return ExtractedOut.model_validate(done.result).model_copy(update={"healed": healed, "still_owed": done.still_owed})
