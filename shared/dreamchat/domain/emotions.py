"""The spec's emotion tags: the label sets, mapping a stray label to the closest one, and a cue lexicon.

`closest_label` repairs what a model returns when it keeps using a label outside the spec's sets;
`infer_tags` is the offline provider's lexicon tagger. Both only ever return the spec's labels.
"""

from __future__ import annotations

import re
from typing import Literal, get_args

from dreamchat.domain.models import Atmosphere, BasicEmotion, EmotionTags, Scene

EmotionKind = Literal["basic_emotion", "scene", "atmosphere"]

LABELS: dict[EmotionKind, tuple[str, ...]] = {
    "basic_emotion": get_args(BasicEmotion),
    "scene": get_args(Scene),
    "atmosphere": get_args(Atmosphere),
}

# the fallback when nothing points anywhere: the mildest label of each set
DEFAULTS: dict[EmotionKind, str] = {"basic_emotion": "愉悦", "scene": "闲聊", "atmosphere": "平和"}

# words a model uses instead of a label; longer entries win, so "不开心" is not read as "开心"
SYNONYMS: dict[EmotionKind, dict[str, str]] = {
    "basic_emotion": {
        "高兴": "开心",
        "快乐": "开心",
        "兴奋": "开心",
        "喜悦": "开心",
        "激动": "开心",
        "欢乐": "开心",
        "happy": "开心",
        "joy": "开心",
        "excited": "开心",
        "愉快": "愉悦",
        "满足": "愉悦",
        "舒适": "愉悦",
        "温馨": "愉悦",
        "放松": "愉悦",
        "平静": "愉悦",
        "满意": "愉悦",
        "中性": "愉悦",
        "pleasant": "愉悦",
        "content": "愉悦",
        "calm": "愉悦",
        "neutral": "愉悦",
        "难过": "失落",
        "伤心": "失落",
        "悲伤": "失落",
        "沮丧": "失落",
        "失望": "失落",
        "低落": "失落",
        "孤独": "失落",
        "遗憾": "失落",
        "郁闷": "失落",
        "不开心": "失落",
        "不高兴": "失落",
        "委屈": "失落",
        "sad": "失落",
        "upset": "失落",
        "disappointed": "失落",
        "lonely": "失落",
        "认真": "严肃",
        "紧张": "严肃",
        "焦虑": "严肃",
        "生气": "严肃",
        "愤怒": "严肃",
        "正式": "严肃",
        "serious": "严肃",
        "tense": "严肃",
        "angry": "严肃",
        "anxious": "严肃",
        "担心": "关心",
        "关怀": "关心",
        "体贴": "关心",
        "心疼": "关心",
        "温暖": "关心",
        "关切": "关心",
        "caring": "关心",
        "concern": "关心",
        "worried": "关心",
        "warm": "关心",
        "好奇心": "好奇",
        "疑惑": "好奇",
        "困惑": "好奇",
        "感兴趣": "好奇",
        "惊讶": "好奇",
        "期待": "好奇",
        "curious": "好奇",
        "interested": "好奇",
        "surprised": "好奇",
    },
    "scene": {
        "聊天": "闲聊",
        "日常": "闲聊",
        "寒暄": "闲聊",
        "问候": "闲聊",
        "分享": "闲聊",
        "chat": "闲聊",
        "casual": "闲聊",
        "smalltalk": "闲聊",
        "交流": "讨论",
        "辩论": "讨论",
        "探讨": "讨论",
        "争论": "讨论",
        "学习": "讨论",
        "规划": "讨论",
        "计划": "讨论",
        "discussion": "讨论",
        "debate": "讨论",
        "咨询": "求助",
        "请教": "求助",
        "帮助": "求助",
        "倾诉": "求助",
        "安慰": "求助",
        "求教": "求助",
        "help": "求助",
        "support": "求助",
        "advice": "求助",
    },
    "atmosphere": {
        "愉快": "轻松",
        "欢快": "轻松",
        "随意": "轻松",
        "幽默": "轻松",
        "活泼": "轻松",
        "relaxed": "轻松",
        "light": "轻松",
        "casual": "轻松",
        "平静": "平和",
        "温和": "平和",
        "安静": "平和",
        "温馨": "平和",
        "和谐": "平和",
        "严肃": "平和",
        "低沉": "平和",
        "沉重": "平和",
        "calm": "平和",
        "peaceful": "平和",
        "neutral": "平和",
        "热情": "热烈",
        "激烈": "热烈",
        "热闹": "热烈",
        "兴奋": "热烈",
        "激动": "热烈",
        "lively": "热烈",
        "heated": "热烈",
        "excited": "热烈",
    },
}

# cues in the conversation itself, for tagging without a model; matched longest first
CUES: dict[EmotionKind, dict[str, tuple[str, ...]]] = {
    "basic_emotion": {
        "开心": ("开心", "高兴", "哈哈", "太好了", "太棒", "耶", "快乐", "兴奋"),
        "愉悦": ("不错", "舒服", "享受", "喜欢", "挺好", "惬意", "满足", "放松"),
        "失落": ("难过", "伤心", "失落", "遗憾", "郁闷", "想哭", "失望", "孤单", "不开心", "烦", "唉"),
        "严肃": ("工作", "考试", "必须", "严重", "认真", "重要", "医院", "问题", "压力", "截止"),
        "关心": ("注意身体", "照顾", "担心", "早点休息", "多喝水", "别太累", "还好吗", "保重", "小心"),
        "好奇": ("为什么", "好奇", "想知道", "是什么", "怎么回事", "真的吗", "有意思"),
    },
    "scene": {
        "求助": ("怎么办", "帮我", "帮帮", "请问", "求助", "救命", "能不能", "该怎么", "建议"),
        "讨论": ("觉得", "认为", "观点", "看法", "讨论", "分析", "比较", "为什么", "其实"),
    },
    "atmosphere": {
        "热烈": ("！！", "!!", "哈哈哈", "太棒", "激动", "超级", "兴奋", "天哪"),
        "轻松": ("哈哈", "嘿嘿", "嘻嘻", "好玩", "~", "～", "轻松", "随便", "😄", "😂"),
    },
}

_PUNCTUATION = re.compile(r"[\s\"'“”‘’「」『』【】\[\]()（）,，.。!！?？:：;；、/|]+")


def closest_label(kind: EmotionKind, raw: object) -> str:
    """The spec label meant by `raw`: itself, a synonym's label, one it contains, or the kind's default."""
    text = _PUNCTUATION.sub("", str(raw or "")).lower()
    if text in LABELS[kind]:
        return text
    candidates = {label: label for label in LABELS[kind]} | SYNONYMS[kind]
    for word in sorted(candidates, key=len, reverse=True):
        if word in text:
            return candidates[word]
    return DEFAULTS[kind]


def infer_tags(text: str) -> EmotionTags:
    """Emotion tags for a conversation from cue words alone (the offline provider's tagger)."""
    return EmotionTags.model_validate({kind: _strongest(kind, text) for kind in LABELS})


def cued_labels(text: str) -> tuple[str, ...]:
    """Every label (of every kind) whose cues occur in the text, strongest first within a kind; no
    default: a text that points nowhere shows no feeling (what retrieval matches against memories' tags)."""
    found: list[str] = []
    for kind in LABELS:
        counts = _counts(kind, text)
        found += sorted((label for label, n in counts.items() if n > 0), key=lambda label: -counts[label])
    return tuple(found)


def _strongest(kind: EmotionKind, text: str) -> str:
    """The label whose cues occur most often; ties go to the earlier label, none to the default."""
    counts = _counts(kind, text)
    best = max(counts, key=lambda label: counts[label])
    return best if counts[best] > 0 else DEFAULTS[kind]


def _counts(kind: EmotionKind, text: str) -> dict[str, int]:
    counts = dict.fromkeys(CUES[kind], 0)
    cues = sorted(((cue, label) for label, words in CUES[kind].items() for cue in words), key=lambda c: -len(c[0]))
    for cue, label in cues:
        counts[label] += text.count(cue)
        text = text.replace(cue, "\0")  # a longer cue consumes its text: "不开心" is not also "开心"
    return counts
