"""The language-model errors that services catch: nothing from the openai SDK leaks past the gateway."""

from __future__ import annotations


class LLMError(Exception):
    """Base for every failure of a language-model call."""


class LLMUnavailable(LLMError):
    """No answer was obtained: the endpoint failed, timed out or refused the request."""


class LLMNotConfigured(LLMUnavailable):
    """The model key has no API key, so there is nothing to call (retrying cannot help)."""


class LLMOutputError(LLMError):
    """The model answered, but not in the required format, even after one corrective retry."""


class LLMOutOfTime(LLMUnavailable):
    """The deadline left too little time to call (or call again): the caller ends with what it has."""


class LLMContextTooLong(LLMUnavailable):
    """The provider answered 400 because the request is longer than the model's context."""


class LLMRefused(LLMUnavailable):
    """The provider's moderation refused the request (HTTP 400); retrying the same text cannot help."""
