"""The structured-output path: one JSON object, parsed tolerantly and validated by a pydantic schema.

The call asks for JSON mode unless the provider refuses it (then the prompt's words ask for JSON and
parsing is tolerant: code fences, text around the object). An invalid answer gets one corrective
retry with the validation error; after that, `coerce` may repair the last object, else LLMOutputError.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from dreamchat.llm.client import OpenAIClient
from dreamchat.llm.errors import LLMOutputError
from dreamchat.llm.parsing import extract_json_object
from dreamchat.llm.port import Coerce, ModelMessage
from dreamchat.llm.provider_errors import Refusals

logger = logging.getLogger(__name__)


class StructuredOutput:
    """Structured calls through `client`, in JSON mode where the provider takes it."""

    def __init__(self, client: OpenAIClient, refusals: Refusals, *, json_mode: bool = True) -> None:
        self._client = client
        self._refusals = refusals
        self._json_mode = json_mode

    def call[T: BaseModel](
        self, key: str, messages: Sequence[ModelMessage], schema: type[T], *, coerce: Coerce[T] | None = None
    ) -> T:
        """One JSON object validated as `schema`; one corrective retry, then `coerce`, else LLMOutputError."""
        conversation = list(messages)
        last_object: dict[str, Any] | None = None
        problem = ""
        for attempt in range(2):
            text = self._text(key, conversation)
            found = extract_json_object(text)
            last_object = found if found is not None else last_object
            try:
                return _validate(schema, found)
            except (ValidationError, LLMOutputError) as error:
                problem = _describe_invalid(error)
                logger.warning("llm invalid output key=%s attempt=%d", key, attempt + 1)
                conversation += [{"role": "assistant", "content": text}, _correction(problem)]
        if coerce is not None and last_object is not None:
            return _coerced(coerce, last_object, key)
        raise LLMOutputError(f"{key}: no valid {schema.__name__} after a retry: {problem}")

    def _text(self, key: str, conversation: list[ModelMessage]) -> str:
        def ask(**options: Any) -> str:
            message, _ = self._client.chat(key, conversation, **options)
            return message.content or ""

        if not self._json_mode:
            return ask()
        return self._refusals.attempt("json_mode", key, lambda: ask(response_format={"type": "json_object"}), ask)


def _validate[T: BaseModel](schema: type[T], found: dict[str, Any] | None) -> T:
    if found is None:
        raise LLMOutputError("the reply contained no JSON object")
    return schema.model_validate(found)


def _coerced[T: BaseModel](coerce: Callable[[dict[str, Any]], T], raw: dict[str, Any], key: str) -> T:
    try:
        return coerce(raw)
    except (ValidationError, ValueError, TypeError, KeyError) as error:
        raise LLMOutputError(f"{key}: output could not be coerced ({type(error).__name__})") from error


def _describe_invalid(error: ValidationError | LLMOutputError) -> str:
    if isinstance(error, LLMOutputError):
        return str(error)
    return "; ".join(f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}" for e in error.errors())


def _correction(problem: str) -> ModelMessage:
    return {
        "role": "user",
        "content": f"上面的输出不符合要求：{problem}。请修正，只输出一个符合格式要求的 JSON 对象，不要输出其他文字。",
    }
