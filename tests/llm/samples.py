"""Sample conversations and memories shared by the memory-model tests."""

from __future__ import annotations

from dreamchat.domain.models import Conversation, CoreMemory, EmotionTags, MidTermMemory, Role

START = 1773554580  # 2026-03-15 14:03 in Asia/Shanghai

EXAM_TOPIC: list[tuple[Role, str]] = [
    ("user", "我最近在准备考研，每天学习到晚上十二点，感觉压力特别大。"),
    ("assistant", "辛苦啦！要注意身体，别熬太晚。你考哪个学校呀？"),
    (
        "user",
        "我打算报考浙江大学的计算机专业，目标分数是三百八十分。数学是我最薄弱的科目，尤其是高等数学的积分部分总是做不对。",
    ),
    ("assistant", "浙大计算机很厉害！积分可以先把基本公式和换元法练熟，每天做二十道题。"),
    ("user", "好的，我试试。另外我英语也一般，阅读理解经常错很多。"),
    ("assistant", "阅读可以每天精读一篇真题，把生词和长难句整理下来。"),
    ("user", "谢谢你，感觉有方向了。我周末还要去图书馆占座。"),
    ("assistant", "加油！周末记得吃早饭再去图书馆哦。"),
]

TRIP_TOPIC: list[tuple[Role, str]] = [
    ("user", "这周末想出去玩，你觉得去哪里好？"),
    ("assistant", "去海边怎么样？天气预报说周六是大晴天。"),
    ("user", "好主意！我好久没看海了，那就周六早上出发去舟山。"),
    ("assistant", "记得带防晒霜和帽子，海边紫外线很强。"),
    ("user", "哈哈好的，我还想吃海鲜大排档。"),
    ("assistant", "舟山的海鲜很新鲜，推荐沈家门夜排档！"),
]


def conversations(pairs: list[tuple[Role, str]]) -> list[Conversation]:
    """Conversations a minute apart from START."""
    return [Conversation(role=role, content=text, timestamp=START + 60 * i) for i, (role, text) in enumerate(pairs)]


def mid(mid_id: str, summary: str) -> MidTermMemory:
    """A mid-term memory with neutral tags."""
    tags = EmotionTags(basic_emotion="开心", scene="闲聊", atmosphere="轻松")
    return MidTermMemory(
        id=mid_id,
        topic_id=f"topic_{mid_id}",
        summary=summary,
        emotion_tags=tags,
        message_count=6,
        created_at=START,
        compression_ratio=0.75,
    )


def core(content: str, importance: int = 9) -> CoreMemory:
    """A core memory the person already has."""
    return CoreMemory(id="core_1", content=content, importance=importance, category="禁忌", created_at=START)
