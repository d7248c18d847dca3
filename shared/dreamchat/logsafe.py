"""Logging failures without their messages: an exception's text can quote what a person wrote
(a validation error shows the input), so logs get its type and where it happened, never its text."""

from __future__ import annotations

import logging
import traceback


def failure(error: BaseException) -> str:
    """`ErrorType` and the stack (file, line, function), without the exception's message."""
    frames = traceback.extract_tb(error.__traceback__)
    stack = " <- ".join(f"{f.filename.rsplit('/', 1)[-1]}:{f.lineno} {f.name}" for f in reversed(frames))
    return f"{type(error).__name__} at {stack}" if stack else type(error).__name__


# Attributes every LogRecord has; anything else on a record came in through `extra` (ids).
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime", "taskName"}


class SafeFormatter(logging.Formatter):
    """Local log lines: the message, then the `extra` ids as key=value; an exception shows its
    type and stack, never its text (uvicorn's parse errors quote the request's bytes)."""

    def format(self, record: logging.LogRecord) -> str:
        record.message = record.getMessage()
        if self.usesTime():
            record.asctime = self.formatTime(record, self.datefmt)
        ids = " ".join(f"{key}={value}" for key, value in vars(record).items() if key not in _STANDARD)
        line = f"{self.formatMessage(record)} {ids}".rstrip()
        return f"{line}\n{self.formatException(record.exc_info)}" if record.exc_info else line

    def formatException(self, exc_info) -> str:  # noqa: N802, ANN001 - logging's name and signature
        error = exc_info[1]
        return failure(error) if error is not None else ""

    def formatStack(self, stack_info: str) -> str:  # noqa: N802 - logging's name
        return ""


def configure_local_logging(level: int = logging.INFO) -> None:
    """One handler on the root logger for everything, uvicorn's loggers included."""
    handler = logging.StreamHandler()
    handler.setFormatter(SafeFormatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    logging.basicConfig(level=level, handlers=[handler], force=True)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        named = logging.getLogger(name)
        named.handlers.clear()
        named.propagate = True
