"""Logging failures without their messages: an exception's text can quote what a person wrote
(a validation error shows the input), so logs get its type and where it happened, never its text."""

from __future__ import annotations

import traceback


def failure(error: BaseException) -> str:
    """`ErrorType` and the stack (file, line, function), without the exception's message."""
    frames = traceback.extract_tb(error.__traceback__)
    stack = " <- ".join(f"{f.filename.rsplit('/', 1)[-1]}:{f.lineno} {f.name}" for f in reversed(frames))
    return f"{type(error).__name__} at {stack}" if stack else type(error).__name__
