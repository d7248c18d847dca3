"""The output formats of the structured model calls, exactly as docs/design.md's "LLM contracts".

Extra keys a model adds are ignored; labels and levels are restricted to the spec's sets. Every
text and list is bounded as a person's own edit of the same memory is (`dreamchat.domain.bounds`):
a model that writes more is cut, at a sentence end where one is near, so no output of any size is
stored and no later prompt grows with it.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from dreamchat.domain import bounds
from dreamchat.domain.models import EmotionTags, RelationshipLevel
from dreamchat.domain.reply import shorten

MEMORIES = 20  # per extraction run
SUPERSEDES = 20  # per memory: the existing key points its key points replace


def _cut(limit: int) -> Any:
    return BeforeValidator(lambda value: shorten(value, limit) if isinstance(value, str) else value)


def _first(limit: int) -> Any:
    return BeforeValidator(lambda value: value[:limit] if isinstance(value, list) else value)


Summary = Annotated[str, _cut(bounds.SUMMARY_CHARS)]
Title = Annotated[str, _cut(bounds.TITLE_CHARS)]
KeyPoint = Annotated[str, _cut(bounds.KEY_POINT_CHARS)]
Detail = Annotated[str, _cut(bounds.DETAIL_CHARS)]
SourceId = Annotated[str, _cut(100)]
CoreText = Annotated[str, _cut(bounds.CORE_CHARS)]
Category = Annotated[str, _cut(bounds.CATEGORY_CHARS)]
SelfSoulText = Annotated[str, _cut(bounds.SELF_SOUL_CHARS)]
Reason = Annotated[str, _cut(bounds.REASON_CHARS)]


class Contract(BaseModel):
    model_config = ConfigDict(extra="ignore")


def _text_required(flag: str, text: str) -> Any:
    """A model validator: when the boolean field `flag` is true, the text field `text` must say something."""

    def check(model: BaseModel) -> BaseModel:
        if getattr(model, flag) and not getattr(model, text).strip():
            raise ValueError(f"{text} must not be empty when {flag} is true")
        return model

    return model_validator(mode="after")(check)


class CompressOutput(Contract):
    """Short-term to mid-term: one summary of the ended topic and its emotion tags."""

    summary: Summary = Field(min_length=1)
    emotion_tags: EmotionTags


class Supersedes(Contract):
    """An existing key point (`id`: one of those the prompt showed, `k1`, `k2`, ...) that this memory's
    key point number `key_point` (0-based) replaces: "我搬到上海了" replaces "我住在北京". Whether the id
    was shown and the number is in range is checked by the service (`domain/supersession.accepted`)."""

    id: Annotated[str, BeforeValidator(lambda value: str(value) if isinstance(value, int) else value), _cut(20)]
    key_point: int = 0


UNREADABLE = {"id": "", "key_point": -1}  # a proposal of the wrong shape: names nothing, dropped and counted


def _proposals(value: Any) -> Any:
    """The model's `supersedes` as proposals: anything not a list of `{id, key_point}` objects (a string,
    an object, a null) stands as an unreadable one, which the service drops and counts; the memory stays."""
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    return [item if _readable(item) else UNREADABLE for item in items[:SUPERSEDES]]


def _readable(item: Any) -> bool:
    try:
        Supersedes.model_validate(item)
    except ValueError:  # pydantic's ValidationError
        return False
    return True


class ExtractedMemory(Contract):
    """One long-term memory: its index (title, key points), its detail document, and the existing key
    points it makes past (none when nothing changed)."""

    title: Title = Field(min_length=1)
    key_points: Annotated[list[KeyPoint], _first(bounds.KEY_POINTS)]
    detail_content: Detail
    source_mid_ids: Annotated[list[SourceId], _first(bounds.SOURCE_IDS)]
    supersedes: Annotated[list[Supersedes], BeforeValidator(_proposals)] = Field(default_factory=list)


class ExtractOutput(Contract):
    """Mid-term to long-term: the memories distilled from a batch of mid-term summaries."""

    memories: Annotated[list[ExtractedMemory], _first(MEMORIES)]


class CoreJudgment(Contract):
    """Whether new long-term memories hold one core memory; the admission rules are the domain's."""

    create: bool
    content: CoreText = ""
    importance: int = Field(default=0, ge=0, le=10)
    category: Category = "其他"

    _content_when_created = _text_required("create", "content")


class SelfSoulReflection(Contract):
    """The AI's reflection on itself: changed or not, and the (new) self_soul."""

    changed: bool
    self_soul: SelfSoulText = ""

    _text_when_changed = _text_required("changed", "self_soul")


class RelationshipJudgment(Contract):
    """The relationship level after recent conversations, why, and whether a major event (the only
    thing that may move it more than one level at once) happened."""

    level: RelationshipLevel
    reason: Reason = ""
    major_event: bool = False


class QualityScore(Contract):
    """A judge's score (0-100) of one compression's completeness or one extraction's accuracy."""

    score: int = Field(ge=0, le=100)
    reason: Reason = ""
