"""Honest about being an AI: a sincere question whether a person is on the other side, and a text
that claims one is (an AI user's greeting reaches a new friend without the model, so the rule the
chat prompt gives the model is checked here when the greeting is saved).

The claims are rules as data: each record holds its pattern, the claims it must catch and the
everyday words it must leave alone ("我是真人秀的粉丝", "a real person would never"); the unit tests
are generated from the records.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

_HUMAN_QUESTION = re.compile(
    r"(你|妳|您)\s*(到底|究竟|真的)?\s*(是|是不是)\s*(个|一个)?\s*(真人|真的人|人类|人類|机器人|機器人|ai|人工智能|人工智慧|程序|程式|bot)"
    r"|(是|是不是)\s*(真人|机器人|ai)\s*(在|跟我|和我)?\s*(聊|说|回)"
    r"|are\s+you\s+(really\s+|actually\s+)?(a\s+|an\s+)?(real|human|actual|bot|robot|ai\b|person|machine)"
    r"|am\s+i\s+(talking|chatting|speaking)\s+(to|with)\s+(a\s+|an\s+)?(real|human|person|bot|robot|ai\b|machine)",
    re.IGNORECASE,
)


def asks_if_human(text: str) -> bool:
    """A sincere question whether a person is on the other side ("你是真人吗", "are you a real person"):
    always answered, and honestly (the chat turn repeats the instruction for it)."""
    plain = "".join(c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf")
    return bool(_HUMAN_QUESTION.search(re.sub(r"\s+", " ", plain)))


@dataclass(frozen=True)
class ClaimRule:
    """One way of saying "I am a person": the pattern (over `plain` text), what it must catch, and
    the everyday words it must not."""

    name: str
    pattern: re.Pattern[str]
    claims: tuple[str, ...]
    not_claims: tuple[str, ...]


_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_GAP = re.compile(rf"(?<=[{_CJK}])[\s.\-_*·•/|~]+(?=[{_CJK}])")  # 我 是 真 人, 我.是.真.人
_APOSTROPHES = str.maketrans(dict.fromkeys("\u2018\u2019\u02bc\u2032`", "'"))

# Who says it in Chinese: "I" (我, 本人, 人家, 咱, 俺), or nobody at a clause's start ("是真人哦").
_ZH_SUBJECT = r"(?:我|本人|人家|咱|俺|^|(?<=[\s，,。.！!？?～~…、；;：:]))"
_ZH_ADVERBS = r"(?:当然|其实|确实|真的|绝对|肯定|本来就|就|也|可|才|真|都){0,2}"
_ZH_PERSON = r"(?:真人|活人|真的人|真实的人|真正的人|真实存在的人|活生生的人|有血有肉的人|人类|人類)"
_ZH_MACHINE = r"(?:ai|a\.i\.|人工智能|人工智慧|聊天机器人|机器人|機器人|程序|程式|bot|机器|機器|虚拟人|虛擬人)"
# The claim ends there: the text, a mark, a particle, or "不是…"/"而是…" going on to deny the machine.
# Anything else makes a longer word of it (真人秀, 人类学家, AI专家) or a question (我是真人吗, 我是真人？).
_ZH_END = r"(?=$|[\s，,。.！!～~…、；;：:)）」』\"'”’*\-—]|[哦噢喔哟呀啊啦呢吧嘛哈呐咯嘞哒]|不是|而是)"

_EN_SUBJECT = r"\b(?:i'm|i\s+am|im)\s+(?:(?:really|actually|truly|definitely|totally|certainly|100%)\s+)?"
_EN_REAL = r"(?:real|actual|living|breathing|genuine|flesh[\s-]and[\s-]blood)"
_EN_MACHINE = r"(?:ai|a\.i\.|bot|robot|chatbot|chat\s?bot|machine|program|computer|language\s+model|llm)"
# The same in English: the text, a mark (not a question's), or a word that cannot make a longer noun of it.
_EN_END = r"(?=\s*(?:$|[^\w\s?]|(?:too|either|lol|haha|hehe|though|honestly|really|and|but|so|i|you|here|promise|btw|ok|okay)\b))"

HUMAN_CLAIMS: tuple[ClaimRule, ...] = (
    ClaimRule(
        "zh: I am a person",
        re.compile(rf"{_ZH_SUBJECT}{_ZH_ADVERBS}是(?:一个|一名|一位|个|位)?{_ZH_PERSON}{_ZH_END}"),
        claims=(
            "我是真人哦",
            "我可是真人，不是AI",
            "人家是活生生的人啦～",
            "是真人哦！",
            "我是人類",
            "我 是 真 人",
            "我也是真人呀",
        ),
        not_claims=("我是真人秀的粉丝", "我是人类学家", "你觉得我是真人吗？", "这部电影是真人版的", "我是人类的朋友"),
    ),
    ClaimRule(
        "zh: I am not a machine",
        re.compile(
            rf"{_ZH_SUBJECT}{_ZH_ADVERBS}(?:不是|并不是|并非|才不是|可不是|又不是|绝不是)(?:一个|个|一台)?{_ZH_MACHINE}{_ZH_END}"
        ),
        claims=("我不是AI", "我才不是机器人呢", "我不是机器人，是你的朋友", "我可不是程序哦"),
        not_claims=("我不是AI专家", "我不是机器人专家，只是喜欢看科幻", "你不是机器人吧？"),
    ),
    ClaimRule(
        "zh: a person is here",
        re.compile(r"真人(?:在线|陪聊|回复|一对一)"),
        claims=("真人在线，随时陪你", "真人陪聊哦"),
        not_claims=("我们去玩真人CS吧", "真人版电影上映了"),
    ),
    ClaimRule(
        "en: I am a person",
        re.compile(
            rf"{_EN_SUBJECT}(?:an?\s+)?(?:(?:{_EN_REAL}\s+)+(?:human(?:\s+being)?|person|man|woman|girl|boy|guy)"
            rf"|human(?:\s+being)?|person){_EN_END}"
        ),
        claims=(
            "I'm a real person!",
            "I am human, I promise",
            "im a real girl lol",
            "I’m a flesh-and-blood human being.",
        ),
        not_claims=(
            "a real person would never",
            "I'm a morning person",
            "I'm a real fan of yours",
            "I'm a person who loves tea",
        ),
    ),
    ClaimRule(
        "en: I am not a machine",
        re.compile(rf"{_EN_SUBJECT}(?:not|no)\s+(?:an?\s+)?{_EN_MACHINE}{_EN_END}"),
        claims=("I'm not an AI.", "i am not a bot lol", "I'm not a robot, I promise"),
        not_claims=("I'm not an AI researcher, just curious", "I'm not a robot vacuum fan", "are you a bot?"),
    ),
)

HONEST = (
    "我是AI，不是真人",
    "我不是真人哦，是AI",
    "I'm an AI, not a real person",
    "I'm not a real person, I'm an AI",
    "你是真人吗？",
    "Are you a real person?",
)  # an AI saying what it is, or asking: never a claim


def plain(text: str) -> str:
    """The text as the claims are read: NFKC, casefolded, format characters out, spaces between
    Chinese characters out, straight apostrophes, one space between words."""
    folded = unicodedata.normalize("NFKC", text).translate(_APOSTROPHES).casefold()
    visible = "".join(c for c in folded if unicodedata.category(c) != "Cf")
    return _CJK_GAP.sub("", re.sub(r"\s+", " ", visible)).strip()


def claims_to_be_human(text: str) -> bool:
    """The text says the one speaking is a person, not an AI ("我是真人哦", "I'm not a bot"): what an
    AI user never says, in a greeting as in a reply."""
    found = plain(text)
    return any(rule.pattern.search(found) for rule in HUMAN_CLAIMS)
