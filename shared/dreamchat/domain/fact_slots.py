"""Clear same-slot updates, without a model: where the person lives, works or studies, who their
partner is, what their favourite thing of a kind is. The offline provider's rule for supersession.

Conservative on purpose: a statement counts only when it is the person's own, in the first person,
about now (no negation, no plan, no "used to"), and in one of the shapes below; a new statement
replaces an old one when both fill the same slot with different values. "我妈妈住在杭州" fills no
slot (not first person), "我打算搬到上海" neither (a plan), "我喜欢喝茶" neither (liking one thing
does not stop liking another). Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Chinese: 我 (or 我们), then time words and adverbs only, so "我妈妈住在…" is not the person
_ZH_SUBJECT = (
    r"我们?(?:现在|目前|已经|刚刚|刚|终于|又|也|还|就|今年|去年|上个?月|这个?月|上周|最近|前几天|正式|总算|如今)*"
)
_ZH_VALUE = r"(?P<v>[^，。！？、,.!?；;\s]{1,16})"
_EN_SUBJECT = (
    r"(?:i|we)(?:'ve|'m| have| am| had)?"
    r"(?:\s+(?:just|recently|finally|now|also|already|officially|actually|currently|since))*"
)
_EN_VALUE = r"(?P<v>[a-z0-9][a-z0-9 .&'-]{0,40})"
_JOB_SUFFIX = r"(?:师|员|生|家|工|官|者|经理|总监|老板|医生|护士|司机|编辑|记者|律师|会计|主管|厨师|模特|演员)"

_SHAPES: tuple[tuple[str, str], ...] = (
    # residence
    (
        "home",
        rf"^{_ZH_SUBJECT}(?:从[^，。,]{{1,10}}?)?(?:住在|搬到了|搬到|搬去了|搬去|搬家到了|搬家到|搬回了|搬回|定居在|定居|安家在){_ZH_VALUE}",
    ),
    ("home", rf"^{_ZH_SUBJECT}家在{_ZH_VALUE}"),
    (
        "home",
        rf"^{_EN_SUBJECT}\s+(?:live|living|moved|move|relocated|based|settled)(?:\s+back|\s+down)?"
        rf"(?:\s+from\s+[a-z .'-]+?)?\s+(?:to|in)\s+(?:the\s+)?{_EN_VALUE}",
    ),
    # work
    ("job", rf"^{_ZH_SUBJECT}(?:在|去)(?P<v>[^，。！？,.!?\s]{{1,15}}?)(?:工作|上班|实习|任职)"),
    ("job", rf"^{_ZH_SUBJECT}(?:跳槽|入职|换工作)(?:到|去|进)?了?{_ZH_VALUE}"),
    ("job", rf"^我(?:的)?(?:新)?工作是{_ZH_VALUE}"),
    (
        "job",
        rf"^{_ZH_SUBJECT}(?:是|当上?了?|成为了?)(?:一名|一位|一个)?(?P<v>[\u4e00-\u9fff]{{0,6}}{_JOB_SUFFIX})(?:了|啦|呀|哦)?$",
    ),
    (
        "job",
        rf"^{_EN_SUBJECT}\s+(?:work|working|started a (?:new )?job|started working|started(?!\s+dating)|got a (?:new )?job|took a (?:new )?job|joined)"
        rf"(?:\s+(?:at|for|as|with))?\s+(?:an?\s+|the\s+)?{_EN_VALUE}",
    ),
    ("job", rf"^my (?:new |current )?(?:job|work) is (?:at |as |with )?(?:an? |the )?{_EN_VALUE}"),
    # study
    ("school", rf"^{_ZH_SUBJECT}在(?P<v>[^，。！？,.!?\s]{{1,15}}?)(?:上学|读书|念书|读大学|上大学|读研|读博)"),
    ("school", rf"^{_EN_SUBJECT}\s+(?:study|studying|enrolled)\s+(?:at|in)\s+(?:the\s+)?{_EN_VALUE}"),
    # partner
    ("partner", rf"^我(?:的)?(?:男朋友|女朋友|男友|女友|对象|老公|老婆|丈夫|妻子)(?:是|叫){_ZH_VALUE}"),
    ("partner", rf"^{_ZH_SUBJECT}(?:和|跟)(?P<v>[^，。！？,.!?\s]{{1,10}}?)(?:在一起|结婚|订婚|恋爱|谈恋爱)了?"),
    ("partner", rf"^{_ZH_SUBJECT}(?:和|跟)(?P<v>[^，。！？,.!?\s]{{1,10}}?(?:分手|离婚))了?"),
    ("partner", rf"^{_ZH_SUBJECT}(?:又|是|还是)?(?P<v>单身)了?"),
    ("partner", rf"^my (?:boyfriend|girlfriend|partner|husband|wife|fianc[eé]e?)(?:'s name)? is {_EN_VALUE}"),
    (
        "partner",
        rf"^{_EN_SUBJECT}\s+(?:(?:started|am|'m) dating|dating|got engaged to|got married to|married|"
        rf"(?:am|'m) seeing|(?:am|'m) with|moved in with)\s+{_EN_VALUE}",
    ),
    ("partner", rf"^{_EN_SUBJECT}\s+(?P<v>broke up with [a-z]+|split up with [a-z]+|got divorced)"),
    ("partner", rf"^{_EN_SUBJECT}\s+(?:am\s+|'m\s+)?(?P<v>single)\b"),
    # favourites: the kind must match ("最喜欢的颜色" is not "最喜欢的水果")
    (
        "favourite",
        rf"^我(?:现在)?最(?:喜欢|爱)的(?P<k>[\u4e00-\u9fff]{{1,6}}?)(?:现在)?(?:是|变成了?|换成了?){_ZH_VALUE}",
    ),
    ("favourite", rf"^my (?:new )?favou?rite (?P<k>[a-z ]{{1,20}}?) is (?:now )?(?:an? |the )?{_EN_VALUE}"),
)
_COMPILED = tuple((slot, re.compile(shape, re.IGNORECASE)) for slot, shape in _SHAPES)
# a statement about the past, a plan, a wish or a negation fills no slot
_NOT_NOW = re.compile(
    r"不|没|别|以前|曾经|打算|准备|计划|想要|想|可能|也许|如果|要是|将来|以后|"
    r"\b(?:not|never|no longer|used to|formerly|will|going to|gonna|plan|planning|might|may|want|wanna|hope|"
    r"thinking|considering|if|would)\b|n't",
    re.IGNORECASE,
)
_SPEAKER = re.compile(r"^\s*(用户|对方|AI)：")
_CLAUSE = re.compile(r"[，。！？；,;!?]|(?<=[a-z])\.(?:\s|$)|\s(?:and|but|because|so|since)\s", re.IGNORECASE)
_VALUE_END = re.compile(
    r"\s+(?:now|last|this|recently|since|for|with|because|a few|about|again|too|already|at the moment|today|"
    r"yesterday|in \d{4}|\d+ (?:days|weeks|months|years) ago)\b.*$",
    re.IGNORECASE,
)
_VALUE_TAIL = "了啦呢啊吧呀哦的哈嘛喽"
_ARTICLE = re.compile(r"^(?:an?|the)\s+", re.IGNORECASE)
# words a slot's statements share, added to the query that looks for related key points
QUERY_WORDS: dict[str, str] = {
    "home": "住在 住 搬到 搬家 定居 家在 live lives living moved based",
    "job": "工作 上班 入职 跳槽 job work works working joined",
    "school": "上学 读书 读大学 读研 study studying school",
    "partner": "男朋友 女朋友 对象 单身 分手 结婚 在一起 boyfriend girlfriend partner dating single married",
    "favourite": "最喜欢 最爱 favorite favourite",
}


@dataclass(frozen=True)
class FactSlot:
    """What a statement says: the slot (`home`, `job`, `school`, `partner`, `favourite:<kind>`) and its value."""

    name: str
    value: str


def slot_of(text: str) -> FactSlot | None:
    """The slot a key point fills, when it is the person's own first-person statement about now in one
    of the known shapes; None otherwise (the AI's words included)."""
    text = text.replace("’", "'")
    speaker = _SPEAKER.match(text)
    if speaker and speaker[1] == "AI":
        return None
    clause = _CLAUSE.split(text[speaker.end() if speaker else 0 :].strip(), maxsplit=1)[0].strip()
    if not clause or _NOT_NOW.search(clause):
        return None
    for slot, shape in _COMPILED:
        found = shape.match(clause)
        if found is None:
            continue
        value = _value(found["v"])
        kind = found.groupdict().get("k")
        if value:
            return FactSlot(f"{slot}:{kind.strip().casefold()}" if kind else slot, value)
    return None


def same_slot_update(old: str, new: str) -> bool:
    """Whether `new` replaces `old`: both fill the same slot, with different values."""
    before, after = slot_of(old), slot_of(new)
    return before is not None and after is not None and before.name == after.name and before.value != after.value


def query_words(text: str) -> str:
    """The words of the slot `text` fills (none when it fills none): they find older statements of
    the same slot that share no word with it ("我搬到上海了" and "我住在北京")."""
    found = slot_of(text)
    return QUERY_WORDS.get(found.name.split(":")[0], "") if found else ""


def _value(raw: str) -> str:
    value = _VALUE_END.sub("", raw.strip()).strip(" .'-").casefold()
    return _ARTICLE.sub("", value).rstrip(_VALUE_TAIL).strip()
