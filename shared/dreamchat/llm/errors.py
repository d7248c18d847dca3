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
