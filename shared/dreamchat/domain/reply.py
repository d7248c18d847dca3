"""How the AI answers: the reply decision, one message per line (at most five, 2,000 characters
each), typing delays.

The decision reads the message first (`dreamchat.domain.asked`): a question or request to the AI, a
message that names a memory, a goodnight or goodbye, or an answer to the AI's own question is always
answered, at every level but 决裂. The rest is a draw against the level's rate for the rest
(`rest_rate`: the spec's 95/80/60/30/5 % lowered so that, over a realistic mix of messages, the overall
rate is still the spec's), nudged by the current mood, the time of day and the message (urgent, boring).
When the draw says no, the turn is 已读不回 and the model is not asked; when it says yes, the model reads
guidance and may still answer nothing. Given the same random number it is the same.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dreamchat.domain.asked import AnswerReason
from dreamchat.domain.bounds import MESSAGE_CHARS
from dreamchat.domain.clock import usual_night
from dreamchat.domain.models import BasicEmotion, RelationshipLevel
from dreamchat.domain.relationship import DEFAULT_LEVEL, reply_rate
from dreamchat.domain.text import is_blank

MAX_MESSAGES = 5
READ_PAUSE_MIN, READ_PAUSE_MAX = 2.0, 8.0
CRISIS_MAX_DELAY_SECONDS = 3.0  # a person in crisis (or distress) never waits on a simulated typist
_URGENT = re.compile(r"救命|难过|伤心|想哭|崩溃|害怕|生病|不舒服|分手|去世|想你|在吗")
# The share of a realistic mix of the person's messages that is always answered (bench/data/reply_mix, measured
# by bench/reply_rates.py). The rest is drawn at (rate - share) / (1 - share), so that over the mix
# share × 1 + (1 - share) × rest = rate, the spec's rate of the level.
ALWAYS_ANSWERED_SHARE = 0.30
NEVER_ALWAYS: tuple[RelationshipLevel, ...] = ("决裂",)  # the break-up: nothing is always answered
COLD_LEVELS: tuple[RelationshipLevel, ...] = ("关系冷淡", "决裂")  # answers may be curt
URGENT_NUDGE = 0.3  # an urgent message (想你, 生病, 在吗) is likelier answered
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
    reason: AnswerReason | None = None  # why it is always answered (the message's kind), None when drawn


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
    asked: AnswerReason | None = None,
) -> ReplyDecision:
    """Whether the AI answers (`inclined`: the message is always answered, `random` fell under the
    probability, or a warm first day) and what its guidance tells the model. `asked`: the message's
    kind (`dreamchat.domain.asked.always_answered`), the decision's `reason` at every level but 决裂."""
    reason = asked if level not in NEVER_ALWAYS else None
    probability = 1.0 if reason else reply_probability(level, message, mood, local_hour, night_owl=night_owl)
    inclined = warm or reason is not None or random < probability
    late = is_late_night(local_hour, night_owl)
    cold = level in COLD_LEVELS
    return ReplyDecision(
        inclined, probability, warm=warm, draw=random, mood=mood, late_night=late, cold=cold, reason=reason
    )


def rest_rate(level: RelationshipLevel) -> float:
    """The rate of the messages not always answered: (rate - s) / (1 - s) with s the
    `ALWAYS_ANSWERED_SHARE`, so the overall rate over a realistic mix stays the spec's (at 决裂, where
    nothing is always answered, the spec's rate itself; never below 0)."""
    rate = reply_rate(level)
    if level in NEVER_ALWAYS:
        return rate
    share = ALWAYS_ANSWERED_SHARE
    return max((rate - share) / (1 - share), 0.0)


def reply_probability(
    level: RelationshipLevel,
    message: str,
    mood: BasicEmotion | None = None,
    local_hour: int = 12,
    *,
    night_owl: bool = False,
) -> float:
    """The draw's probability for a message not always answered: the level's `rest_rate`, nudged by an
    urgent message, the AI's mood and the hour. An ordinary message in daytime with no particular mood
    gets the rest rate exactly; a boring one ("嗯", "哈哈") too: what the spec's "无聊的消息可能已读不回"
    asks is that it may go unanswered where a question is not."""
    text = message.strip()
    rate = rest_rate(level) + _MOOD_NUDGE.get(mood or "", 0.0)
    if _URGENT.search(text):
        rate += URGENT_NUDGE
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
