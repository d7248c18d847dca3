"""Which of the person's messages the AI always answers (at every level but 决裂): the spec weighs the
message itself ("无聊的消息可能已读不回"), so a message that asks something of the AI is never met with
已读不回 the way "嗯" may be.

Four kinds, read from the message's shape, not from a list of phrases:

- `memory`: it names a memory ("你还记得我家狗叫什么吗", "上次你说…", "do you remember…");
- `farewell`: a goodnight or goodbye (the farewell keywords that also end a topic: 晚安, 拜拜, 明天见…);
- `question`: a question or a request addressed to the AI: it ends in a question mark or 吗/么, asks
  with 你 and a question word (什么/怎么/为什么/哪/谁/几点…), or opens with a request (给我讲…, 陪我…,
  can you…, tell me…);
- `answer`: the AI's previous message asked a question and this one answers it (a bare 嗯/哈哈/好吧 is an
  acknowledgement, not an answer).

Each cue is a record with the texts it must match and must not (rules as data, like `domain.honesty`);
the unit tests are generated from the records. The first kind that matches, in the order above, is the
reason.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from dreamchat.domain.topics import says_farewell

AnswerReason = Literal["question", "memory", "farewell", "answer"]

# a bare acknowledgement or laugh: says nothing the AI must answer ("无聊的消息"); `domain.reply` lowers its odds
BORING = re.compile(
    r"^(嗯+|恩+|哦+|噢+|喔+|额+|呃+|好+|好吧|行|嗯哼|ok|okay|k|lol|ha(ha)+|h+|hmm+|哈+|呵+|。+|…+|\.+|\?+|!+)$"
)
_TRAILING = re.compile(r"[\s~!.,。，！、…·^*♪♡❤\-_)(）（\U0001f300-\U0001faff\u2600-\u27bf]+$")


@dataclass(frozen=True)
class Cue:
    """One way a message asks for an answer: its pattern (over `plain` text), what it must match and
    what it must not."""

    name: str
    kind: AnswerReason
    pattern: re.Pattern[str]
    matches: tuple[str, ...]
    not_matches: tuple[str, ...]


_ADDRESSEE = r"(?:你|您|u\b|you)"
_QUESTION_WORD = (
    r"(?:什么|啥|怎么|怎样|为什么|为啥|咋|哪(?!怕)|谁|几点|几岁|几号|多少|多大|多久|干嘛|干吗|如何"
    r"|是不是|有没有|要不要|会不会|能不能|可不可以|想不想|喜不喜欢|好不好)"
)
_INDEFINITE = r"(?!都|也)"  # 你什么都不懂, 怎么也: the word stands for "any", not a question

ASKING_CUES: tuple[Cue, ...] = (
    Cue(
        "zh: asks the AI to remember",
        "memory",
        re.compile(
            r"(?:^|[,，。.!！?？\s])(?:你|那你|您)?(?:还|可|一定要|要)?(?:记得|记不记得|别忘了|不要忘了|忘了没)"
            r"|记得吗|记不记得|记得不|忘了吗|忘记了吗|忘了没"
        ),
        matches=(
            "你还记得我家狗叫什么吗",
            "还记得上次我们聊的那本书",
            "记得明天叫我起床",
            "别忘了我下周考试",
            "我的生日你记得吗？",
        ),
        not_matches=("我还记得小时候常去外婆家", "我记得那天下雨了", "记录一下", "你真好"),
    ),
    Cue(
        "zh: names what was said before",
        "memory",
        re.compile(r"(?:我|我们)(?:跟你|和你|对你)?(?:说|讲|聊|提|告诉)过|告诉过你|上次(?:你|我们|跟你|和你|说|聊)"),
        matches=("我跟你说过我怕黑的", "上次你说要给我推荐书", "我们聊过这个", "上次聊的那家店我去了"),
        not_matches=("上次考试没考好", "我说了算", "你说得对"),
    ),
    Cue(
        "en: asks the AI to remember",
        "memory",
        re.compile(
            r"\b(?:do|did|don'?t|you|u)\s+(?:still\s+)?remember\b|^remember\b|\bdon'?t forget\b"
            r"|\b(?:i|we)\s+(?:told|showed)\s+you\b|\bwe\s+talked\s+about\b|\blast\s+time\s+(?:we|you)\b"
        ),
        matches=(
            "do you remember my dog's name?",
            "remember to wake me up",
            "I told you about my sister",
            "last time we talked about jazz",
        ),
        not_matches=("I remember being a kid", "I forgot my keys", "last time I checked it was fine"),
    ),
    Cue(
        "ends as a question",
        "question",
        re.compile(r"\w[^\w]*\?$|吗$|(?<![什怎这那多])么$"),
        matches=("你最近在听什么歌？", "真的吗", "are you ok?", "周末去哪玩？😊", "今天是周五么", "你吃了吗～"),
        not_matches=("嗯", "你", "我也不知道为什么", "哈哈", "？", "好吧", "我还在加班呢", "就这么"),
    ),
    Cue(
        "zh: asks the AI with a question word",
        "question",
        re.compile(
            rf"{_ADDRESSEE}.*{_QUESTION_WORD}{_INDEFINITE}|^(?:那|那么|然后)?{_ADDRESSEE}?呢$|{_QUESTION_WORD}.*呢$"
        ),
        matches=("你最近在听什么歌", "你为什么不理我", "那你呢", "你几点下班", "你喜不喜欢猫", "怎么办呢", "然后呢"),
        not_matches=("你什么都不懂", "你真好", "我不知道为什么", "我还在加班呢", "哪怕下雨也要去"),
    ),
    Cue(
        "zh: a request to the AI",
        "question",
        re.compile(
            r"^(?:你|请|那你|要不你|你能|你可以|能|可以|麻烦你?|快)?"
            r"(?:给我|跟我|和我|替我)?(?:帮我|陪我|教我|告诉我|讲个|讲讲|讲一|说个|说说(?:你|看|吧)|唱(?:首|个|一)|推荐|猜猜|夸夸|哄哄|来首|来个)"
        ),
        matches=(
            "给我讲个故事",
            "陪我聊聊天",
            "你给我唱首歌吧",
            "帮我想想晚饭吃啥",
            "推荐一部电影",
            "说说你今天干嘛了",
        ),
        not_matches=("我跟你说", "给我气死了", "说说而已", "你", "唱歌好难"),
    ),
    Cue(
        "en: a question or request to the AI",
        "question",
        re.compile(
            r"^(?:please|tell me|let'?s|help me|recommend|sing|teach me|show me|give me|talk to me)\b"
            r"|^(?:what|why|how|when|where|who|which)\b(?!\s+a\b).*\byou"
            r"|^(?:can|could|would|will|do|did|are|have|were)\s+(?:you|u)\b"
        ),
        matches=("can you tell me a story", "tell me a joke", "how was your day", "what are you doing", "are you busy"),
        not_matches=("you", "what a day", "i can do it", "you are sweet"),
    ),
)


def plain(text: str) -> str:
    """The message as the cues read it: NFKC (full-width ？ becomes ?), casefolded, trailing
    emoji, tildes and full stops out."""
    folded = unicodedata.normalize("NFKC", text).casefold().strip()
    return _TRAILING.sub("", folded) or folded


def is_boring(text: str) -> bool:
    """A bare acknowledgement or laugh (嗯, 哈哈, 好吧, ok)."""
    return bool(BORING.fullmatch(plain(text)))


def asks_a_question(text: str) -> bool:
    """The text asks something (its last line ends as a question, or asks with a question word)."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    last = plain(lines[-1]) if lines else ""
    asking = ("ends as a question", "zh: asks the AI with a question word")  # not a request: the AI makes none
    return any(cue.pattern.search(last) for cue in ASKING_CUES if cue.name in asking)


def always_answered(text: str, previous_ai: str | None, farewells: Sequence[str]) -> AnswerReason | None:
    """Why the message is always answered, or None. `previous_ai`: the AI's message just before it
    (None when the person's own message came before); `farewells`: the farewell keywords."""
    found = plain(text)
    if not found or is_boring(text):
        return None
    if _cued(found, "memory"):
        return "memory"
    if says_farewell(found, list(farewells)):
        return "farewell"
    if _cued(found, "question"):
        return "question"
    if previous_ai is not None and asks_a_question(previous_ai):
        return "answer"
    return None


def _cued(found: str, kind: AnswerReason) -> bool:
    return any(cue.pattern.search(found) for cue in ASKING_CUES if cue.kind == kind)
