"""When the AI answers with its voice, and what the voice says.

An AI user's owner sets `voice_replies`: "never" (the default), "sometimes" (a draw at `VOICE_SHARE` for each
reply and heartbeat) or "always". A spoken reply is one voice message: the reply's lines joined into one text
(`spoken_text`), at most `VOICE_MAX_CHARS` long (about a minute spoken, as long as the person's own voice
notes may be; a longer reply goes as text). Its typing delay is the spec's formula on that text.

Words that must be read stay text whatever the setting (the services decide these, each where it knows):
a reply in distress or a crisis (the help lines and words of care), what the code writes itself (the offline
replies, care when the model fails, a check-in after a crisis), and every reply to a person in minors' mode
(a voice makes a companion feel like a person, which minors' mode works against, as it closes romance).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import get_args

from dreamchat.domain.models import VoiceReplies

VOICE_REPLIES: tuple[VoiceReplies, ...] = get_args(VoiceReplies)  # what an owner may choose, in order

VOICE_SHARE = 0.3  # of the replies of an AI user that speaks "sometimes", the share spoken
VOICE_MAX_CHARS = 300  # the longest text spoken: about a minute (a person's voice note may be 60 s)
VOICE_MAX_SECONDS = 120.0  # the longest voice kept: twice a slow minute; longer is a provider's error
VOICE_MIN_SECONDS_PER_CHAR = 0.03  # the shortest voice a text can have (33 characters a second): less is cut off


def speaks(mode: VoiceReplies, draw: Callable[[], float]) -> bool:
    """Whether this reply is spoken; `draw` (a random number in [0, 1)) is called only for "sometimes"."""
    if mode == "always":
        return True
    return mode == "sometimes" and draw() < VOICE_SHARE


def spoken_text(lines: list[str]) -> str:
    """The reply's lines as the one text a voice message says (and shows on tap): joined by a space, so
    a stored message stays one line as every message is."""
    return " ".join(line.strip() for line in lines if line.strip())


def fits(text: str) -> bool:
    """Whether a text is short enough to be spoken as one voice message."""
    return 0 < len(text) <= VOICE_MAX_CHARS


def plausible(text: str, seconds: float) -> bool:
    """Whether a voice of `seconds` can be `text` spoken: not cut off (a provider's truncated body still holds
    whole frames) and not minutes long (a provider that rambles or loops); anything else goes as text."""
    return len(text) * VOICE_MIN_SECONDS_PER_CHAR <= seconds <= VOICE_MAX_SECONDS
