"""How the AI answers: the reply decision, one message per line (at most five, 2,000 characters
each), typing delays.

The decision is a draw against the relationship's reply rate (the spec's 95/80/60/30/5 %),
nudged by the current mood, the time of day and the message itself (urgent, a question,
boring). When the draw says no, the turn is 已读不回 and the model is not asked; when it says
yes, the model reads guidance and may still answer nothing. Given the same random number it
is the same.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dreamchat.domain.bounds import MESSAGE_CHARS
from dreamchat.domain.clock import usual_night
from dreamchat.domain.models import BasicEmotion, RelationshipLevel
from dreamchat.domain.relationship import DEFAULT_LEVEL, reply_rate
from dreamchat.domain.text import is_blank

MAX_MESSAGES = 5
READ_PAUSE_MIN, READ_PAUSE_MAX = 2.0, 8.0
CRISIS_MAX_DELAY_SECONDS = 3.0  # a person in crisis (or distress) never waits on a simulated typist
_BORING = re.compile(r"^(嗯+|哦+|噢+|额+|呃+|好+|行|ok|okay|k|哈+|呵呵|。+|…+|\.+|\?+|？+)$", re.IGNORECASE)
_QUESTION = re.compile(r"[?？吗呢]\s*$|为什么|怎么|什么|能不能|可不可以|好不好")
_URGENT = re.compile(r"救命|难过|伤心|想哭|崩溃|害怕|生病|不舒服|分手|去世|想你|在吗")
COLD_LEVELS: tuple[RelationshipLevel, ...] = ("关系冷淡", "决裂")  # answers may be curt
LATE_NIGHT_NUDGE = 0.1  # deep in the night the AI is a little less likely to pick up the phone
# a low mood makes answering a little less likely, curiosity and care a little more
_MOOD_NUDGE: dict[str, float] = {"失落": -0.1, "严肃": -0.05, "关心": 0.05, "好奇": 0.05}
# a sentence ends at 。！？!?… (with closing quotes or brackets), or at . ! ? followed by a space
_SENTENCE_END = re.compile(r"(?:[。！？!?…~～]+|[.!?]+(?=\s))[”’」』）)\]\"']*")


@dataclass(frozen=True)
class ReplyDecision:
    """The draw's outcome and what the model's guidance for the turn says (its words are the llm layer's:
    `dreamchat.llm.chat_prompts.reply_guidance`, which `ReplyDrawService.decide` puts in `guidance`)."""

    inclined: bool
    probability: float
    guidance: str = ""
    warm: bool = False
    draw: float = 0.0  # the random number drawn
    mood: BasicEmotion | None = None
    late_night: bool = False
    cold: bool = False  # the relationship is cool: answers may be curt


def warm_start(
    level: RelationshipLevel, level_set: bool, person_message_number: int | None, warm_messages: int
) -> bool:
    """A new friendship's first day is warm: while the level is still the starting one and nobody has
    set it (`level_set`: a judgment, a tool or the person changed it), the person's first
    `warm_messages` messages are never read without a reply. `person_message_number` counts from 1
    (None: beyond the window looked at)."""
    return (
        level == DEFAULT_LEVEL
        and not level_set
        and person_message_number is not None
        and 1 <= person_message_number <= warm_messages
    )


def read_pause_seconds(random: float, cap_seconds: float) -> float:
    """How long before 已读 shows: a person glances at the phone a few seconds later (2-8 s), capped."""
    return min(READ_PAUSE_MIN + random * (READ_PAUSE_MAX - READ_PAUSE_MIN), cap_seconds)


def decide_reply(
    level: RelationshipLevel,
    mood: BasicEmotion | None,
    local_hour: int,
    message: str,
    random: float,
    *,
    warm: bool = False,
    night_owl: bool = False,
) -> ReplyDecision:
    """Whether the AI answers (`inclined`: `random` fell under the probability, or always on a warm
    first day) and what its guidance tells the model."""
    probability = reply_probability(level, message, mood, local_hour, night_owl=night_owl)
    inclined = warm or random < probability
    late = is_late_night(local_hour, night_owl)
    cold = level in COLD_LEVELS
    return ReplyDecision(inclined, probability, warm=warm, draw=random, mood=mood, late_night=late, cold=cold)


def reply_probability(
    level: RelationshipLevel,
    message: str,
    mood: BasicEmotion | None = None,
    local_hour: int = 12,
    *,
    night_owl: bool = False,
) -> float:
    """The level's reply rate, nudged by what the message is, the AI's mood and the hour.
    An ordinary message in daytime with no particular mood gets the level's rate exactly."""
    text = message.strip()
    rate = reply_rate(level) + _MOOD_NUDGE.get(mood or "", 0.0)
    if _URGENT.search(text):
        rate += 0.3
    elif _QUESTION.search(text):
        rate += 0.15
    if _BORING.fullmatch(text):
        rate -= 0.25
    if is_late_night(local_hour, night_owl):
        rate -= LATE_NIGHT_NUDGE
    return min(max(rate, 0.02), 0.99)


def is_late_night(local_hour: int, night_owl: bool = False) -> bool:
    """Deep in the night on the pair's clock: within the AI user's usual night (its heartbeat night window)."""
    return usual_night(night_owl).contains_hour(local_hour)


def split_messages(text: str, max_chars: int = MESSAGE_CHARS) -> list[str]:
    """One message per non-empty line; lines beyond the fifth are merged into the fifth; each
    message is cut to `max_chars` at a sentence end, so no answer can flood the history."""
    lines = [line.strip() for line in text.splitlines() if not is_blank(line)]  # zero-width lines say nothing
    if len(lines) > MAX_MESSAGES:
        lines = [*lines[: MAX_MESSAGES - 1], " ".join(lines[MAX_MESSAGES - 1 :])]
    return [shorten(line, max_chars) for line in lines]


def shorten(message: str, max_chars: int) -> str:
    """The message cut after its last sentence end within `max_chars` (at `max_chars` when no
    sentence ends in its second half)."""
    if len(message) <= max_chars:
        return message
    head = message[:max_chars]
    ends = [match.end() for match in _SENTENCE_END.finditer(head)]
    cut = ends[-1] if ends and ends[-1] > max_chars // 2 else max_chars
    return head[:cut].rstrip()


def typing_delay(content: str, random: float, cap_seconds: float) -> float:
    """The spec's (0.5 + r × 0.7) × characters seconds, capped."""
    return min((0.5 + random * 0.7) * len(content), cap_seconds)
