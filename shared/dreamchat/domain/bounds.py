"""The bounds of what a pair and an AI user hold, each defined once.

Every way data comes in reads them here: the API's request bodies (`dreamchat.api.schemas`, the memory
edits), the memory import (`dreamchat.domain.memory_export.check`), a character card
(`dreamchat.domain.cards`), the AI's tools and the models' structured output (`dreamchat.llm.contracts`).
What a person or a document sends beyond a bound is refused (422, naming the field), never cut; only a
model's output is cut to fit (it cannot be asked for less), and a card's texts are cut with every cut
listed in the answer. docs/api.md ("Bounds") lists them.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime

# Times are epoch seconds within the product's range: a stored time outside it would break every
# date a turn, a view or a sweep computes from it.
EARLIEST = datetime(2000, 1, 1, tzinfo=UTC)
LATEST = datetime(2100, 1, 1, tzinfo=UTC)
MIN_TIME = int(EARLIEST.timestamp())
MAX_TIME = int(LATEST.timestamp())

# a conversation
MESSAGE_CHARS = 2000  # a message, the person's or the AI's
REASONING_CHARS = 20_000  # a reasoning model's chain of thought, kept beside the AI's message
ALTERNATIVES = 10  # answers kept for one exchange (换一个回答); past it the oldest goes
RATING_REASON_CHARS = 500  # why the person rated an AI message 👍 or 👎
SEARCH_QUERY_CHARS = 100  # the longest history search
NICKNAME_CHARS = 40  # what the person wants to be called

# memory tiers
SUMMARY_CHARS = 2000  # a mid-term summary
TITLE_CHARS = 60  # a long-term entry's title
KEY_POINTS = 20  # key points of one long-term entry
KEY_POINT_CHARS = 300
DETAIL_CHARS = 8000  # a long-term detail document's text
SOURCE_IDS = 100  # the mid-term memories a long-term detail names
DETAIL_FILE_BYTES = 200  # a detail document's file name (UTF-8): with its revision within a file name's 255
CORE_CHARS = 500
CATEGORY_CHARS = 40
CORE_MEMORIES = 1000  # current core memories of one pair, from every source
RELATIONSHIP_CHANGES = 1000  # the relationship's history, one core memory a change
SELF_SOUL_CHARS = 1000
REASON_CHARS = 500  # why the relationship changed

# heartbeats
MAX_HEARTBEAT_HOURS = 24 * 999  # a relationship's own heartbeat interval: more than 0, at most this
SCHEDULED_HEARTBEATS = 10
TEMPLATE_CHARS = 200  # what a scheduled heartbeat means to say
RECENT_HEARTBEATS = 50  # the heartbeats kept so the next does not repeat them
UNANSWERED_HEARTBEATS = 1000  # heartbeats in a row without an answer (the back-off doubles per one)

# an AI user
NAME_CHARS = 40
BASE_SOUL_CHARS = 4000
GREETING_CHARS = 500
AVATAR_CHARS = 2048
TAGS = 30
TAG_CHARS = 40
VOICE_CHARS = 64  # a voice id of the text-to-speech provider ("alloy", "zh-CN-XiaoxiaoNeural")
VOICE_ID = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"  # letters, digits, _ . - : what providers name their voices with

# running the service
REPORT_REASON_CHARS = 500  # a report's reason, as the person writes it
NOTE_CHARS = 1000  # an operator's note to the reporter or the owner
SUSPENSION_REASON_CHARS = 500


def time_problem(value: int) -> str | None:
    """Why `value` is not a time the product can hold, or None."""
    if MIN_TIME <= value <= MAX_TIME:
        return None
    return f"a time between {EARLIEST:%Y-%m-%d} and {LATEST:%Y-%m-%d} (epoch seconds), not {value}"


def heartbeat_hours_problem(hours: float | None) -> str | None:
    """Why `hours` is not a relationship's heartbeat interval (None: the level's own), or None."""
    if hours is None or (math.isfinite(hours) and 0 < hours <= MAX_HEARTBEAT_HOURS):
        return None
    return f"more than 0 and at most {MAX_HEARTBEAT_HOURS} hours, not {hours}"


def encodable(text: str) -> bool:
    """Whether the text can be stored and sent as UTF-8 (no unpaired surrogate)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
