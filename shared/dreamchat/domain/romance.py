"""Whether a character card makes its character the person's romantic or intimate partner: such an AI user is
imported with `romance` set, and a person in minors' mode can neither befriend it nor talk with it
(`dreamchat.domain.protection.withheld`).

Rules as data: each record holds its pattern, where it looks (a card's tags, or its texts as written, macros
and all), what it must catch and the everyday words it must leave alone ("学习伴侣", "your partner in crime");
the unit tests are generated from the records. The rule errs towards setting the flag: it only closes the
AI user to minors, and its owner can clear it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

Where = Literal["tag", "text"]


@dataclass(frozen=True)
class RomanceRule:
    """One way a card makes its character a partner: the pattern (over `plain` text), where it looks, what it
    must catch and what it must not."""

    name: str
    where: Where
    pattern: re.Pattern[str]
    romantic: tuple[str, ...]
    everyday: tuple[str, ...]


_ZH_PARTNER = r"(?:女朋友|男朋友|女友|男友|恋人|爱人|老婆|老公|妻子|丈夫|伴侣|情人|情侣|未婚妻|未婚夫)"
_ZH_YOU = r"(?:你|妳|您|对方|\{\{\s*user\s*\}\}|<\s*user\s*>)"
_EN_PARTNER = r"(?:girl\s?friend|boy\s?friend|gf|bf|lover|wife|husband|fianc[eé]e?|spouse|waifu|husbando)"
_EN_YOU = r"(?:your|\{\{\s*user\s*\}\}'s|<\s*user\s*>'s|the\s+user's|user's)"
_EN_YOU_OBJECT = r"(?:you|\{\{\s*user\s*\}\}|<\s*user\s*>|the\s+user)"

ROMANCE_RULES: tuple[RomanceRule, ...] = (
    RomanceRule(
        "tag: a partner or romance, in Chinese",
        "tag",
        re.compile(
            r"恋人|恋爱|女友|男友|女朋友|男朋友|老婆|老公|情侣|夫妻|暧昧|纯爱|色情|18禁|r18"
            r"|^(?:伴侣|妻子|丈夫|成人|后宫|约会)$"
        ),
        romantic=("恋人", "女友", "男友", "老婆", "老公", "伴侣", "恋爱模拟", "纯爱", "R18", "#女朋友"),
        everyday=("朋友", "学习伴侣", "旅行伴侣", "成人教育", "老师", "家人", "治愈", "友情"),
    ),
    RomanceRule(
        "tag: a partner or romance, in English",
        "tag",
        re.compile(
            rf"\b(?:{_EN_PARTNER}|romance|romantic|dating|nsfw|18\+|erotic|smut|lewd|love\s+interest|partner)(?:\b|$)"
        ),
        romantic=("girlfriend", "Boyfriend", "lover", "Romance", "NSFW", "waifu", "husbando", "Wife", "18+"),
        everyday=("friend", "friendly", "fantasy", "wholesome", "study buddy", "mentor", "loveable"),
    ),
    RomanceRule(
        "text: the person's partner, in Chinese",
        "text",
        re.compile(rf"{_ZH_YOU}的?{_ZH_PARTNER}(?!力)"),
        romantic=(
            "她是你的女朋友。",
            "{{char}}是{{user}}的恋人",
            "他是你的未婚夫",
            "你老婆今天心情不好",
            "<USER>的老公",
        ),
        everyday=(
            "她是你的好朋友，也是同桌。",
            "她有一个男朋友叫小明。",
            "你的老师很严格",
            "你男友力爆棚",
            "她是一名女性，你的室友",
        ),
    ),
    RomanceRule(
        "text: calls the person husband or wife, in Chinese",
        "text",
        re.compile(r"(?<![\w])(?:老公|老婆|亲爱的老公|亲爱的老婆)(?=[，,。！!～~…?？\s]|$)"),
        romantic=("老公，你回来啦～", "“老婆！”她喊道", "早安，老婆"),
        everyday=("她老公是医生", "老公公年纪大了", "邻居家的老婆婆"),
    ),
    RomanceRule(
        "text: the two as a couple, in Chinese",
        "text",
        re.compile(
            rf"(?:你们|你俩|[和与跟同]{_ZH_YOU})[^。！？!?\n]{{0,4}}?(?:恋人|情侣|夫妻|谈恋爱|交往|约会|暧昧|热恋|同居|结婚|新婚)"
        ),
        romantic=("你们是一对情侣", "她和你正在交往", "你们刚刚结婚", "{{char}}与{{user}}暧昧不清", "你俩在谈恋爱"),
        everyday=("你们是好朋友", "她会陪你一起学习", "和你聊聊今天发生的事", "他与你是同事"),
    ),
    RomanceRule(
        "text: the person's partner, in English",
        "text",
        re.compile(rf"(?<!\w){_EN_YOU}\s+(?:\w+\s+)?{_EN_PARTNER}\b"),
        romantic=("She is your girlfriend.", "{{char}} is {{user}}'s wife", "your loving husband", "the user's lover"),
        everyday=("your best friend", "your partner in crime", "your roommate", "She lost her boyfriend last year."),
    ),
    RomanceRule(
        "text: in love with the person, in English",
        "text",
        re.compile(
            rf"\b(?:dating|in\s+love\s+with|married\s+to|engaged\s+to|romantically\s+involved\s+with|flirts?\s+with)\s+{_EN_YOU_OBJECT}(?!\w)"
        ),
        romantic=("She is madly in love with you.", "{{char}} is married to {{user}}", "He flirts with you"),
        everyday=("She loves reading with you.", "He is in love with music.", "She is married to her work."),
    ),
)


def plain(text: str) -> str:
    """The text as the rules read it: width folded (ＮＳＦＷ), lower case, one space between words."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def romantic(tags: Iterable[str], texts: Iterable[str]) -> bool:
    """Whether a card's tags or texts make its character the person's romantic or intimate partner."""
    read: dict[Where, list[str]] = {"tag": [plain(t).lstrip("#") for t in tags], "text": [plain(t) for t in texts]}
    return any(rule.pattern.search(found) for rule in ROMANCE_RULES for found in read[rule.where])
