"""Language models: the gateway over the OpenAI protocol, the contracts, the prompts and the offline provider."""

from dreamchat.llm.contracts import (
    CompressOutput,
    CoreJudgment,
    ExtractedMemory,
    ExtractOutput,
    RelationshipJudgment,
    SelfSoulReflection,
)
from dreamchat.llm.errors import (
    LLMError,
    LLMNotConfigured,
    LLMOutputError,
    LLMUnavailable,
)
from dreamchat.llm.gateway import (
    CallRecord,
    Completion,
    LLMGateway,
    OpenAIGateway,
    TokenUsage,
    ToolCall,
    UsageTotals,
)
from dreamchat.llm.memory_models import (
    Degradable,
    FallbackMemoryModels,
    LLMMemoryModels,
    MemoryModels,
    build_memory_models,
)
from dreamchat.llm.offline import OfflineMemoryModels, offline_reply
from dreamchat.llm.registry import ModelConfig, build_registry

__all__ = [
    "CallRecord",
    "Completion",
    "CompressOutput",
    "CoreJudgment",
    "Degradable",
    "ExtractOutput",
    "ExtractedMemory",
    "FallbackMemoryModels",
    "LLMError",
    "LLMGateway",
    "LLMMemoryModels",
    "LLMNotConfigured",
    "LLMOutputError",
    "LLMUnavailable",
    "MemoryModels",
    "ModelConfig",
    "OfflineMemoryModels",
    "OpenAIGateway",
    "RelationshipJudgment",
    "SelfSoulReflection",
    "TokenUsage",
    "ToolCall",
    "UsageTotals",
    "build_memory_models",
    "build_registry",
    "offline_reply",
]
