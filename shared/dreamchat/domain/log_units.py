"""The log as the memory of last resort: the person's own sentences that carry a fact.

A summary or an extraction may drop a detail ("我养了一只叫团子的橘猫" summarised as "聊了养猫"); the
log still holds it word for word. The person's messages are cut into sentences, and a sentence is kept
as a unit when it carries a fact (`FACT_CUES`: a number or a date, a name, a possession, a relation, a
preference, where one lives or works) and is not a greeting, a filler or a short acknowledgement. At
most LOG_UNITS units, the newest first, each cut to LOG_UNIT_CHARS characters: derived when read, so a
message deleted or a pair erased takes its units with it.

Searching them: BM25 over jieba's words plus, for Chinese, single characters and character bigrams
(jieba cuts "我的猫叫什么" into 猫叫 and 什么, the unit's words are 橘, 猫, 叫, 团子: the characters
still meet). A unit is about the query when they share a rare word or bigram, or two rare characters.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from rank_bm25 import BM25Okapi

from dreamchat.domain.retrieval import RARE_SHARE, SMALL_TALK, words

LOG_MESSAGES = 300  # the person's newest messages (before the open topic) the units are drawn from
LOG_UNITS = 100  # units kept from the log, newest first
LOG_UNIT_CHARS = 80  # the most of one sentence a unit holds
LOG_MIN_CHARS = 5  # shorter sentences (嗯嗯好的, ok thanks) carry no fact worth a unit
LOG_HITS = 2  # units a query brings at most

_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[。！？!?；;…~～])|\n+")
_CJK = re.compile(r"[\u4e00-\u9fff]+")
_CJK_STOP = frozenset("的了是我你他她它们在和与也都就吗呢吧啊呀哦嗯这那有没不要会一个很还又把被让给么什怎")
# What a greeting, a filler or an acknowledgement is made of: a sentence of these alone says nothing.
FILLERS = frozenset(
    """
嗯 嗯嗯 哈 哈哈 哈哈哈 呵呵 嘿嘿 哦 噢 喔 啊 好 好的 好吧 行 可以 对 是的 没错 晚安 早安 早 午安 你好 您好 嗨 哈喽
拜拜 再见 谢谢 多谢 谢啦 嘻嘻 嘿 哇 哎 唉 ok okay yes yeah yep no nope thanks thank you hi hello hey bye lol haha
good night morning sure cool nice great wow oh ah
""".split()
)


@dataclass(frozen=True)
class FactCue:
    """One kind of fact a sentence can carry: its pattern, what it must find and what it must not."""

    name: str
    pattern: str
    finds: tuple[str, ...]
    misses: tuple[str, ...]


FACT_CUES: tuple[FactCue, ...] = (
    FactCue(
        "number",
        r"\d|[一二两三四五六七八九十百千万]+(?:个|只|岁|年|月|号|日|天|次|块|元|点|斤|公里|本|家)",
        ("我今年28岁", "I ran 5 km"),
        ("哈哈哈",),
    ),
    FactCue(
        "date",
        r"昨天|前天|上周|上个月|去年|明年|下周|生日|纪念日|周[一二三四五六日末]|星期|\b(?:yesterday|last (?:week|month|year)|"
        r"birthday|anniversary|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|"
        r"june|july|august|september|october|november|december)\b",
        ("下周三是我生日", "My birthday is in June"),
        ("好困啊",),
    ),
    FactCue(
        "name",
        r"叫|名字|名叫|\b(?:named|called|name is)\b",
        ("我养了一只叫团子的橘猫", "my dog is named Max"),
        ("嗯嗯",),
    ),
    FactCue(
        "possession",
        r"我(?:家|的|们家)?(?:养|有|买|租|开)|我的|\b(?:i have|i own|i bought|i got|my)\b",
        ("我有两个哥哥", "I bought a new guitar"),
        ("今天天气真好",),
    ),
    FactCue(
        "relation",
        r"妈|爸|爷|奶|姥|外公|外婆|哥|姐|弟|妹|老公|老婆|男朋友|女朋友|对象|儿子|女儿|孩子|同事|室友|闺蜜|朋友|老师|同学|"
        r"\b(?:mom|dad|mother|father|sister|brother|wife|husband|son|daughter|kids?|friend|boss|partner)\b",
        ("我妈妈是医生", "my sister moved away"),
        ("哈哈好的",),
    ),
    FactCue(
        "preference",
        r"喜欢|讨厌|最爱|爱吃|爱喝|不吃|过敏|害怕|怕|梦想|想当|\b(?:i (?:love|like|hate|prefer|enjoy)|allergic|afraid|dream)\b",
        ("我对芒果过敏", "I love hiking"),
        ("晚安",),
    ),
    FactCue(
        "place_or_work",
        r"住在|搬到|老家|在.{1,8}(?:工作|上班|上学|读书)|工作|上班|专业|毕业|\b(?:i live|moved to|work(?:ing)? (?:at|as)|"
        r"my job|graduated|i study)\b",
        ("我住在杭州", "I work at a bakery"),
        ("ok",),
    ),
)
_CUES = [re.compile(cue.pattern, re.IGNORECASE) for cue in FACT_CUES]


@dataclass(frozen=True)
class LogUnit:
    """A sentence the person said that carries a fact: the message it is from, when, the words."""

    message_id: str
    timestamp: int
    text: str


def sentences(text: str) -> list[str]:
    return list(_sentences(text))


@lru_cache(maxsize=16384)
def _sentences(text: str) -> tuple[str, ...]:
    # a message is cut again on every turn that reads it; its cut never changes
    return tuple(s.strip() for s in _SENTENCE.split(text) if s and s.strip())


@lru_cache(maxsize=65536)
def carries_fact(sentence: str) -> bool:
    """Long enough, not a question, not fillers alone, and names a fact of one of FACT_CUES."""
    bare = re.sub(r"[\W_]+", " ", sentence.casefold()).strip()
    if len(bare.replace(" ", "")) < LOG_MIN_CHARS or _QUESTION.search(sentence) or _only_fillers(bare):
        return False
    return any(cue.search(sentence) for cue in _CUES)


_QUESTION = re.compile(r"[?？]\s*$|[吗呢]\s*$")
_CJK_FILLERS = sorted((f for f in FILLERS if not f.isascii()), key=len, reverse=True)


def _only_fillers(bare: str) -> bool:
    rest = " ".join(w for w in bare.split() if w not in FILLERS)
    for filler in _CJK_FILLERS:
        rest = rest.replace(filler, " ")
    return not rest.strip()


def log_units(messages: Sequence[tuple[str, int, str]]) -> list[LogUnit]:
    """The fact sentences of the person's messages (id, timestamp, text), newest message first, at most
    LOG_UNITS, each cut to LOG_UNIT_CHARS; a sentence said twice is kept once (its newest)."""
    units: list[LogUnit] = []
    seen: set[str] = set()
    for message_id, timestamp, text in sorted(messages, key=lambda m: (m[1], m[0]), reverse=True):
        for sentence in sentences(text):
            cut = sentence[:LOG_UNIT_CHARS]
            if cut in seen or not carries_fact(sentence):
                continue
            seen.add(cut)
            units.append(LogUnit(message_id, timestamp, cut))
            if len(units) == LOG_UNITS:
                return units
    return units


def terms(text: str) -> list[str]:
    """Search terms: jieba's words, and for each Chinese run its characters (not the stop ones) and
    character bigrams, marked so a character never counts as a word."""
    found = list(words(text))
    for run in _CJK.findall(text):
        found += [f"1:{c}" for c in run if c not in _CJK_STOP]
        found += [f"2:{run[i : i + 2]}" for i in range(len(run) - 1)]
    return found


@dataclass(frozen=True)
class LogIndex:
    units: list[LogUnit]
    documents: list[set[str]]
    bm25: BM25Okapi | None


def index_units(units: list[LogUnit]) -> LogIndex:
    corpus = [terms(u.text) or ["∅"] for u in units]
    return LogIndex(units, [set(d) for d in corpus], BM25Okapi(corpus) if units else None)


def search_units(index: LogIndex, query: str, limit: int = LOG_HITS) -> list[LogUnit]:
    """The units about the query, best first: sharing a rare word or bigram with it, or two rare characters."""
    asked = set(terms(query)) - {w for w in SMALL_TALK}
    if index.bm25 is None or not asked:
        return []
    count = len(index.units)
    most = RARE_SHARE * count if count >= 4 else count
    rare = {t for t in asked if 0 < sum(t in d for d in index.documents) <= most}
    about = [i for i, d in enumerate(index.documents) if _about(rare & d)]
    scores = index.bm25.get_batch_scores(list(asked), about) if about else []
    ranked = sorted(zip(about, scores, strict=True), key=lambda pair: -pair[1])
    return [index.units[i] for i, _ in ranked[:limit]]


def _about(shared: set[str]) -> bool:
    return any(not t.startswith("1:") for t in shared) or len(shared) >= 2


def covered(unit: LogUnit, memories: Sequence[str]) -> bool:
    """Whether one of the memories already says every word of the unit (the log adds nothing): its
    English words and its Chinese characters (jieba may cut the same words differently in two sentences)."""
    own = _letters(unit.text)
    return bool(own) and any(own <= _letters(memory) for memory in memories)


def _letters(text: str) -> set[str]:
    return {w for w in words(text) if w.isascii()} | {c for run in _CJK.findall(text) for c in run} - _CJK_STOP
