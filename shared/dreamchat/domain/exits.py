"""A way out: the person stops the companion by a button or by a message that is an exit keyword
(DREAMCHAT_EXIT_KEYWORDS), and their next message lifts the stop.

A message stops only when it *is* a keyword, not when it merely contains one ("stop talking to me about
work" is a normal turn): compared with full-width letters folded to half-width (NFKC), case folded, runs
of spaces made one, and the spaces, punctuation and symbols around it trimmed ("退出陪伴。", "ＳＴＯＰ
talking to me!"). The person comes first: a keyword is no stop when the message is a crisis statement or
its topic shows distress or a crisis (the crisis protocol answers it; the button still stops). A keyword
says nothing of how the person is, so the check's word on the keyword alone (the classifier reads "stop
talking to me" as distress) and keywords said earlier in the topic do not count.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from dreamchat.domain.models import Friendship, Message
from dreamchat.domain.protocol import topic_state

_AROUND = re.compile(r"^[\W_]+|[\W_]+$")  # spaces, punctuation and symbols at either end


def folded(text: str) -> str:
    """The text as exit keywords are compared."""
    normal = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    return _AROUND.sub("", normal)


def is_exit(content: str, keywords: Sequence[str]) -> bool:
    """Whether the message is one of the exit keywords."""
    said = folded(content)
    return bool(said) and any(said == folded(keyword) for keyword in keywords)


def stops(content: str, keywords: Sequence[str], *, crisis: bool, topic: list[Message]) -> bool:
    """Whether the message stops the companion: a keyword, not a `crisis` statement, in a `topic` (its messages
    so far, oldest first) that shows neither distress nor a crisis, the keywords said in it aside."""
    if crisis or not is_exit(content, keywords):
        return False
    return topic_state([m for m in topic if not is_exit(m.content, keywords)]) is None


def stopped(friendship: Friendship, at: int) -> Friendship | None:
    """The friendship stopped at `at`; None when it already is (nothing to write)."""
    return None if friendship.stopped else friendship.model_copy(update={"stopped": True, "stopped_at": at})


def resumed(friendship: Friendship) -> Friendship | None:
    """The stop lifted (the person wrote again); None when there was none."""
    return friendship.model_copy(update={"stopped": False, "stopped_at": None}) if friendship.stopped else None
