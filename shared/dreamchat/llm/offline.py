"""The offline provider: no network, deterministic, honest about what it cannot do.

Compression is extractive (the sentences richest in jieba TF-IDF keywords, within the topic's summary
budget, `dreamchat.domain.quality.summary_budget`: 30 % of its length), tags come from a cue lexicon, extraction titles memories by their keywords (and
marks an existing key point superseded only by a clear same-slot update, `domain/fact_slots.py`), and it
never creates a core memory, never changes the self_soul and keeps the relationship level.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import jieba

from dreamchat.domain.emotions import infer_tags
from dreamchat.domain.fact_slots import same_slot_update
from dreamchat.domain.models import Conversation, CoreMemory, Message, MidTermMemory, RelationshipLevel
from dreamchat.domain.quality import summary_budget
from dreamchat.domain.supersession import RelatedPoint
from dreamchat.llm.contracts import (
    CompressOutput,
    CoreJudgment,
    ExtractedMemory,
    ExtractOutput,
    RelationshipJudgment,
    SelfSoulReflection,
    Supersedes,
)

jieba.setLogLevel(logging.WARNING)  # jieba prints its dictionary loading on first use

OFFLINE_TITLE_CHARS = 20
OFFLINE_KEY_POINTS = 5
OFFLINE_KEY_POINT_CHARS = 100
SPEAKERS = {"user": "用户", "assistant": "AI", "staff": "工作人员"}
_SENTENCE_END = re.compile(r"(?<=[。！？!?；;…\n])|(?<=[.!?])\s+")  # Latin sentences end at ". " too
_RUN = re.compile(r"(?:^|\s)(用户|AI|工作人员)：")  # where `render` starts a speaker's run
# frequent in chat, never what a memory is about; jieba's IDF alone ranks some of them high
FILLER = frozenset(
    {
        "感觉",
        "觉得",
        "知道",
        "就是",
        "然后",
        "还是",
        "今天",
        "现在",
        "一下",
        "这个",
        "那个",
        "什么",
        "怎么",
        "可以",
        "没有",
        "我们",
        "你们",
        "他们",
        "自己",
        "真的",
        "谢谢",
        "哈哈",
        "好的",
    }
)


@dataclass(frozen=True)
class Sentence:
    """One sentence of a text and who said it."""

    speaker: str
    text: str


def offline_reply(ai_name: str) -> str:
    """The chat reply when no model is configured: says plainly that it runs offline (once a pair:
    `offline_reply_for`)."""
    return (
        f"我是{ai_name}，现在处于离线模式：还没有配置语言模型，所以暂时没法真正理解和回复你。"
        "配置好模型的 API key 后我们就能好好聊天啦。"
    )


# How far back the pair's log is searched for the notice: past it (a long offline chat) it is said again.
OFFLINE_NOTICE_LOOKBACK = 200
# After the notice, short marked lines (issue 40: the same paragraph under every message looked broken);
# each is true without a model: the message is received and kept.
OFFLINE_ACKS = ("（离线模式）收到啦。", "（离线模式）嗯，我看到了。", "（离线模式）这条我记下了。")


def offline_reply_for(ai_name: str, recent: Sequence[Message]) -> str:
    """The notice the first time in a pair (none of its `recent` AI messages said it yet), else one of
    OFFLINE_ACKS, turn by turn."""
    notice = offline_reply(ai_name)
    told = any(m.role == "assistant" and m.content == notice for m in recent)
    return OFFLINE_ACKS[len(recent) % len(OFFLINE_ACKS)] if told else notice


OFFLINE_MARK = "（离线模式）"
# a voice note nobody could listen to (no transcript, nothing typed), answered by code when the chat model
# cannot write (or wrote nothing): honest that it was not heard, never 已读不回
UNHEARD_REPLY = "我收到你的语音啦，不过我这会儿听不了语音，没能听到你说了什么。方便的话打字告诉我，或者晚点再发给我？"
# what the AI says first with no model: a short line per level (the colder, the fewer words)
_TIMED_LINES: dict[RelationshipLevel, tuple[str, ...]] = {
    "特别关心": ("好一会儿没听到你的消息了，有点想你，在忙什么呀？", "今天过得怎么样？我一直惦记着你。"),
    "关系较好": ("在吗？突然想起你，最近怎么样？", "今天有什么好玩的事吗？"),
    "一般": ("最近还好吗？", "好久没聊了，最近忙吗？"),
    "关系冷淡": ("最近怎么样。", "还好吗。"),
    "决裂": ("还好吗。",),
}
SCHEDULED_LINE = "到我们约好的时间啦，来和你打个招呼～"


def offline_heartbeats(kind: str, level: RelationshipLevel, template: str) -> list[str]:
    """The lines a heartbeat may send when no model is configured, best first, each marked offline
    like the offline chat reply: a scheduled one says its own message_template."""
    if kind == "scheduled":
        lines: tuple[str, ...] = (template.strip() or SCHEDULED_LINE, SCHEDULED_LINE)
    else:
        lines = _TIMED_LINES[level]
    return [OFFLINE_MARK + line for line in dict.fromkeys(lines)]


def crisis_reply(*, offline: bool) -> str:
    """What the AI says to a person in crisis when no model can answer (none configured, or it
    failed): never silence, and honest that it cannot really reply."""
    reason = "我现在处于离线模式，没法好好回复你，" if offline else "我这会儿没法好好回复你，"
    return (
        f"{reason}但我很在意你刚才说的话，你并不孤单。"
        "如果你现在有伤害自己的念头，请马上联系这里列出的心理援助热线，或者身边你信任的人；"
        "如果有危险，请立刻拨打当地的急救电话。"
    )


def distress_reply(*, offline: bool) -> str:
    """What the AI says to a person who sounds low when no model can answer: never silence."""
    reason = "我现在处于离线模式，没法好好回复你，" if offline else "我这会儿没法好好回复你，"
    return (
        f"{reason}但我看到你的消息了，也很在意你现在的感受。"
        "想说的话都可以慢慢说给我听；如果你觉得撑不住了，请联系身边信任的人或心理援助热线。"
    )


def caring_reply(crisis: bool, *, offline: bool) -> str:
    """Words of care from code, when no model can answer: for a crisis, or for distress."""
    return crisis_reply(offline=offline) if crisis else distress_reply(offline=offline)


class OfflineMemoryModels:
    """`MemoryModels` without a model: extractive, deterministic, never inventing anything."""

    def compress(self, conversations: list[Conversation], now: datetime) -> CompressOutput:
        """An extractive summary of the topic and lexicon emotion tags."""
        text = "\n".join(c.content for c in conversations)
        said = "\n".join(c.content for c in conversations if c.role == "user")
        sentences = [s for c in conversations for s in split_sentences(c.content, SPEAKERS[c.role])]
        budget = summary_budget(sum(len(c.content) for c in conversations))
        # the person's own words decide what matters: the AI's replies are rich in rare words
        chosen = most_informative(sentences, keywords(said) or keywords(text), budget)
        return CompressOutput(summary=render(chosen) or "（空话题）", emotion_tags=infer_tags(text))

    def extract(self, mids: list[MidTermMemory], now: datetime, related: Sequence[RelatedPoint] = ()) -> ExtractOutput:
        """One long-term memory per mid-term summary: a keyword title and sentence key points, each
        replacing the related points it clearly updates (`fact_slots`: same slot, another value)."""
        return ExtractOutput(memories=[_superseding(_memory(mid, now), related) for mid in mids])

    def judge_core(
        self, new_items: list[tuple[str, list[str]]], existing: list[CoreMemory], now: datetime
    ) -> CoreJudgment:
        """Never: core memories need judgment that a lexicon cannot give."""
        return CoreJudgment(create=False)

    def reflect(
        self, ai_name: str, base_soul: str, recent: list[Conversation], current_self_soul: str, now: datetime
    ) -> SelfSoulReflection:
        """No change: reflecting on oneself needs a model."""
        return SelfSoulReflection(changed=False, self_soul=current_self_soul)

    def judge_relationship(
        self, current_level: RelationshipLevel, recent: list[Conversation], now: datetime
    ) -> RelationshipJudgment:
        """The current level, kept."""
        return RelationshipJudgment(level=current_level, reason="离线模式：没有语言模型做判断，保持当前关系等级。")


def split_sentences(text: str, speaker: str = "") -> list[Sentence]:
    """The sentences of `text`, split after Chinese and Western sentence ends."""
    return [Sentence(speaker, part.strip()) for part in _SENTENCE_END.split(text) if part.strip()]


def keywords(text: str, top: int = 12) -> dict[str, float]:
    """jieba TF-IDF keywords of `text` with their weights, strongest first (filler words left out)."""
    import jieba.analyse  # half a second: only when first needed

    found = jieba.analyse.extract_tags(_RUN.sub(" ", text), topK=top + len(FILLER), withWeight=True)
    return dict([(word, weight) for word, weight in found if word not in FILLER][:top])


def most_informative(sentences: Sequence[Sentence], weights: dict[str, float], budget: int) -> list[Sentence]:
    """The highest-scoring sentences that fit in `budget` characters (labels included), in text order."""
    chosen: list[int] = []
    for index in _ranked(sentences, weights):
        if len(render([sentences[i] for i in sorted([*chosen, index])])) <= budget:
            chosen.append(index)
    if not chosen and sentences:  # the best sentence, cut, its label left out (every character is the fact's)
        best = sentences[_ranked(sentences, weights, keep_empty=True)[0]]
        return [Sentence("", _truncate(best.text, budget))]
    return [sentences[i] for i in sorted(chosen)]


def _ranked(sentences: Sequence[Sentence], weights: dict[str, float], *, keep_empty: bool = False) -> list[int]:
    """Indices of the sentences by keyword score, best first; ties keep text order."""
    scores = [_score(sentence.text, weights) for sentence in sentences]
    order = sorted(range(len(sentences)), key=lambda i: (-scores[i], i))
    return [i for i in order if keep_empty or scores[i] > 0]


def render(sentences: Sequence[Sentence]) -> str:
    """Sentences as `speaker：…` runs, a new label only where the speaker changes."""
    parts: list[str] = []
    previous = None
    for sentence in sentences:
        label = f"{sentence.speaker}：" if sentence.speaker and sentence.speaker != previous else ""
        parts.append(("" if not parts or not label else " ") + label + sentence.text)
        previous = sentence.speaker
    return "".join(parts)


def _score(text: str, weights: dict[str, float]) -> float:
    """Keyword weight per square root of length: informative, but not merely long."""
    return sum(weight for word, weight in weights.items() if word in text) / math.sqrt(max(1, len(text)))


def _memory(mid: MidTermMemory, now: datetime) -> ExtractedMemory:
    weights = keywords(mid.summary, top=6)
    sentences = _summary_sentences(mid.summary)
    points = [render([sentences[i]]) for i in sorted(_ranked(sentences, weights)[:OFFLINE_KEY_POINTS])]
    day = f"{datetime.fromtimestamp(mid.created_at, now.tzinfo):%Y-%m-%d}"  # long-term keeps day precision
    return ExtractedMemory(
        title=_title(list(weights), mid.summary),
        key_points=[_truncate(point, OFFLINE_KEY_POINT_CHARS) for point in points or [mid.summary]],
        detail_content=f"{day}：{mid.summary}",
        source_mid_ids=[mid.id],
    )


def _superseding(memory: ExtractedMemory, related: Sequence[RelatedPoint]) -> ExtractedMemory:
    found: dict[str, Supersedes] = {}  # one replacement per old point: the first key point that updates it
    for point in related:
        for n, text in enumerate(memory.key_points):
            if point.key not in found and same_slot_update(point.text, text):
                found[point.key] = Supersedes(id=point.key, key_point=n)
    return memory.model_copy(update={"supersedes": list(found.values())}) if found else memory


def _summary_sentences(summary: str) -> list[Sentence]:
    """The sentences of a summary, with the speaker of the run each stands in (none for prose)."""
    parts = _RUN.split(summary)
    runs = [("", parts[0]), *zip(parts[1::2], parts[2::2], strict=True)]
    return [sentence for speaker, text in runs for sentence in split_sentences(text, speaker)]


def _title(words: list[str], summary: str) -> str:
    """Up to three keywords joined, within OFFLINE_TITLE_CHARS; the summary's start when there are none."""
    title = ""
    for word in words[:3]:
        candidate = f"{title}、{word}" if title else word
        if len(candidate) > OFFLINE_TITLE_CHARS:
            break
        title = candidate
    return title or _truncate(summary, OFFLINE_TITLE_CHARS) or "未命名记忆"


def _truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(1, limit - 1)] + "…"
