"""The tools the AI may call during a turn, as the model reads them (OpenAI function calling, the
spec's format): each one's arguments, with their descriptions in Chinese, and what it is for.
`dreamchat.services.tools.ToolBox` runs them."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from dreamchat.domain import bounds
from dreamchat.domain.models import RelationshipLevel


class Args(BaseModel):
    model_config = ConfigDict(extra="forbid")


class UpdateSelfSoul(Args):
    new_content: str = Field(
        min_length=1,
        max_length=bounds.SELF_SOUL_CHARS,
        description="新的自我描述（后天形成的自我认知，不要重复基础性格）",
    )


class UpdateRelationship(Args):
    level: RelationshipLevel = Field(description="新的关系等级")
    heartbeat_hours: float | None = Field(
        default=None, gt=0, le=bounds.MAX_HEARTBEAT_HOURS, description="主动联系的间隔（小时），可选"
    )
    reason: str = Field(default="", max_length=bounds.REASON_CHARS, description="变化的原因")


class SetScheduledHeartbeat(Args):
    hour: int = Field(ge=0, le=23, description="小时（0-23，对方所在时区）")
    minute: int = Field(ge=0, le=59, description="分钟（0-59）")
    message_template: str = Field(
        default="", max_length=bounds.TEMPLATE_CHARS, description="到时候想说的话的大意，如“说早安”"
    )


class RemoveScheduledHeartbeat(Args):
    hour: int = Field(ge=0, le=23)
    minute: int = Field(ge=0, le=59)


class GetCurrentState(Args):
    pass


class SearchWeb(Args):
    query: str = Field(min_length=1, max_length=200, description="搜索关键词")


class RecallMemory(Args):
    query: str = Field(min_length=1, max_length=500, description="想回忆的事情的关键词")


TOOLS: dict[str, tuple[type[Args], str]] = {
    "update_self_soul": (UpdateSelfSoul, "更新你对自己性格、偏好、说话方式的认知（谨慎、低频，只在真的变了时）"),
    "update_relationship": (UpdateRelationship, "更新你和对方的关系等级，可顺便调整主动联系的间隔"),
    "set_scheduled_heartbeat": (SetScheduledHeartbeat, "设置每天固定时间主动给对方发消息（如每天 9:30 说早安）"),
    "remove_scheduled_heartbeat": (RemoveScheduledHeartbeat, "删除某个每天固定时间的主动消息"),
    "get_current_state": (GetCurrentState, "查看当前时间、关系等级、心情、下次主动联系时间和定时计划"),
    "search_web": (SearchWeb, "上网搜索最新信息"),
    "recall_memory": (RecallMemory, "在长期记忆里回忆某件事的详细内容"),
}


@lru_cache(maxsize=1)
def _schemas() -> str:
    return json.dumps(_build_schemas())


def tool_schemas() -> list[dict[str, Any]]:
    """The tools in OpenAI function-calling format (a fresh copy each call)."""
    schemas: list[dict[str, Any]] = json.loads(_schemas())
    return schemas


def _build_schemas() -> list[dict[str, Any]]:
    schemas = []
    for name, (model, description) in TOOLS.items():
        parameters = model.model_json_schema()
        parameters.pop("title", None)
        for prop in parameters.get("properties", {}).values():
            prop.pop("title", None)
        parameters.setdefault("properties", {})
        parameters.setdefault("required", [])
        schemas.append(
            {"type": "function", "function": {"name": name, "description": description, "parameters": parameters}}
        )
    return schemas
