"""An Idempotency-Key as kept: which request claimed it, and the answer once that request finished."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class KeyedRequest:
    """`fingerprint` names the request; `answer` is what it answered, once `done`."""

    fingerprint: str
    done: bool = False
    answer: Any = None
