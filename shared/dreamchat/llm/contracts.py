"""The output formats of the structured model calls, exactly as DESIGN.md's "LLM contracts".

Extra keys a model adds are ignored; labels and levels are restricted to the spec's sets.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from dreamchat.domain.models import EmotionTags, RelationshipLevel


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

    summary: str = Field(min_length=1)
    emotion_tags: EmotionTags


class ExtractedMemory(Contract):
    """One long-term memory: its index (title, key points) and its detail document."""

    title: str = Field(min_length=1)
    key_points: list[str]
    detail_content: str
    source_mid_ids: list[str]


class ExtractOutput(Contract):
    """Mid-term to long-term: the memories distilled from a batch of mid-term summaries."""

    memories: list[ExtractedMemory]


class CoreJudgment(Contract):
    """Whether new long-term memories hold one core memory; the admission rules are the domain's."""

    create: bool
    content: str = ""
    importance: int = Field(default=0, ge=0, le=10)
    category: str = "其他"

    _content_when_created = _text_required("create", "content")


class SelfSoulReflection(Contract):
    """The AI's reflection on itself: changed or not, and the (new) self_soul."""

    changed: bool
    self_soul: str = ""

    _text_when_changed = _text_required("changed", "self_soul")


class RelationshipJudgment(Contract):
    """The relationship level after recent conversations, why, and whether a major event (the only
    thing that may move it more than one level at once) happened."""

    level: RelationshipLevel
    reason: str = ""
    major_event: bool = False


class QualityScore(Contract):
    """A judge's score (0-100) of one compression's completeness or one extraction's accuracy."""

    score: int = Field(ge=0, le=100)
    reason: str = ""
