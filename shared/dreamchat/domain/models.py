"""The spec's entities, with the spec's field names. Times are epoch seconds (UTC)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from dreamchat.domain import bounds
from dreamchat.domain.discover import DEFAULT_CATEGORY, ROMANCE_CATEGORY, CharacterCategory

BasicEmotion = Literal["开心", "愉悦", "失落", "严肃", "关心", "好奇"]
Scene = Literal["闲聊", "讨论", "求助"]
Atmosphere = Literal["轻松", "平和", "热烈"]
RelationshipLevel = Literal["特别关心", "关系较好", "一般", "关系冷淡", "决裂"]
Role = Literal["user", "assistant", "staff"]  # staff: an operator's words (工作人员), never the AI's
Visibility = Literal["private", "public"]
ChatModel = Literal["chat", "reasoner"]
MemoryType = Literal["short_term", "mid_term", "long_term", "core"]
MessageKind = Literal["chat", "heartbeat", "greeting"]
Safety = Literal["crisis", "distress"]  # help lines shown; answered, never silence
MediaKind = Literal["image", "audio"]  # a photo or a voice note (`dreamchat.domain.media`)
VoiceReplies = Literal["never", "sometimes", "always"]  # when the AI answers with its voice (`dreamchat.domain.voice`)


class Entity(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PairId(Entity):
    """A companion pair: one account and one AI user. Every memory belongs to one.

    `generation` is the friendship the pair was seen in (the version of the AI user's record of the
    pair; 0: none was stored; None: not read yet). Forgetting and befriending again starts a new
    generation, and a write computed in one never lands in the next. Two ids of one pair are equal
    whatever generation they were seen in, and the generation is never serialised."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    account_id: str
    ai_user_id: str
    generation: int | None = Field(default=None, exclude=True, repr=False)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PairId):
            return NotImplemented
        return (self.account_id, self.ai_user_id) == (other.account_id, other.ai_user_id)

    def __hash__(self) -> int:
        return hash((self.account_id, self.ai_user_id))

    def seen_in(self, generation: int | None) -> PairId:
        return self.model_copy(update={"generation": generation})


class Moderation(Entity):
    """An AI user an operator took down: private at once, and the owner cannot make it public again
    until an operator restores it (then it is as public as it was)."""

    status: Literal["taken_down"] = "taken_down"
    note: str = Field(default="", max_length=bounds.NOTE_CHARS)
    at: int
    was_public: bool = True
    report_id: str | None = None


class Suspension(Entity):
    """An account an operator suspended: it cannot log in, its tokens stop, its public AI users hide."""

    reason: str = Field(max_length=bounds.SUSPENSION_REASON_CHARS)
    at: int
    by: str  # the operator's account id


class Account(Entity):
    id: str
    username: str
    password_hash: str
    created_at: int
    suspension: Suspension | None = None  # an operator suspended it (`Suspension`); None while in good standing


class TokenFamily(Entity):
    """One login's refresh tokens: only the current one may be used; an old one used revokes them all."""

    account_id: str
    family: str
    current_jti: str
    revoked: bool = False


class AIUser(Entity):
    id: str
    owner_id: str
    name: str = Field(min_length=1, max_length=bounds.NAME_CHARS)
    avatar: str = Field(default="", max_length=bounds.AVATAR_CHARS)
    base_soul: str = Field(default="", max_length=bounds.BASE_SOUL_CHARS)
    timezone: str = "Asia/Shanghai"
    night_owl: bool = False
    visibility: Visibility = "private"
    model: ChatModel = "chat"
    greeting: str = Field(default="", max_length=bounds.GREETING_CHARS)  # the opening message of every new chat
    tags: list[Annotated[str, Field(min_length=1, max_length=bounds.TAG_CHARS)]] = Field(
        default_factory=list, max_length=bounds.TAGS
    )
    category: CharacterCategory = DEFAULT_CATEGORY  # where the discover screen files it (`dreamchat.domain.discover`)
    # imported from a character card: the card's data is kept verbatim in the blob `keys.card_blob`
    from_card: bool = False
    created_at: int
    updated_at: int
    romance: bool = False  # a romantic or intimate partner: closed to a person in minors' mode
    # an operator took it down (`dreamchat.domain.moderation.Moderation`); None while it stands
    moderation: Moderation | None = None
    owner_suspended: bool = False  # its owner's account is suspended: hidden from everyone else meanwhile
    # its voice (the text-to-speech provider's voice id; None: the operator's default) and when it answers with it
    voice: str | None = Field(default=None, min_length=1, max_length=bounds.VOICE_CHARS, pattern=bounds.VOICE_ID)
    voice_replies: VoiceReplies = "never"

    @model_validator(mode="before")
    @classmethod
    def _romance_category(cls, data: object) -> object:
        """One filed under 恋爱 is a romantic partner, whatever way it comes in (API, card, starter)."""
        if isinstance(data, dict) and data.get("category") == ROMANCE_CATEGORY:
            return {**data, "romance": True}
        return data

    @property
    def listed(self) -> bool:
        """Everyone sees it: public, not taken down, its owner not suspended."""
        return self.visibility == "public" and self.moderation is None and not self.owner_suspended

    def shown_to(self, account_id: str) -> bool:
        """Its owner sees an AI user; everyone else only a listed one."""
        return self.owner_id == account_id or self.listed


class Friendship(Entity):
    """An account's friendship with an AI user, as its chat list shows it."""

    ai_user_id: str
    since: int
    last_read: str | None = None  # the newest message the person has seen
    pinned: bool = False
    muted: bool = False
    stopped: bool = False  # the person asked the AI to stop (a way out): it sends nothing until they write
    stopped_at: int | None = None


class EmotionTags(Entity):
    basic_emotion: BasicEmotion
    scene: Scene
    atmosphere: Atmosphere


class Message(Entity):
    """One message of the conversation log; short-term memory holds the current topic's."""

    id: str
    role: Role
    content: str
    timestamp: int
    topic_id: str
    kind: MessageKind = "chat"
    delay_ms: int = 0
    read_no_reply: bool = False  # the AI read this message and chose not to answer (已读不回)
    reasoning: str = ""  # the reasoning model's chain of thought behind this reply; never in a context
    safety: Safety | None = None  # the person's message showed a crisis or distress (see domain/crisis.py)
    # on the first message of an AI answer asked for anew: every answer of its exchange, and the one shown
    # (`dreamchat.domain.answers`); empty for an answer never asked for again
    alternatives: list[str] = Field(default_factory=list, max_length=bounds.ALTERNATIVES)
    alternative: int = Field(default=0, ge=0)
    rating: Literal[1, -1] | None = None  # the person's 👍 (1) or 👎 (-1) on an AI message; never shown to a model
    rating_reason: str = Field(default="", max_length=bounds.RATING_REASON_CHARS)
    # the photo or voice note the message carries (its record: `dreamchat.domain.media.Media`); `content` is
    # then its words (`[语音] …`, `[图片：…]`, or an AI voice reply's transcript)
    media_id: str | None = None
    media_kind: MediaKind | None = None
    duration_s: float | None = None


class Conversation(Entity):
    role: Role
    content: str
    timestamp: int


class ShortTermTopic(Entity):
    topic_id: str
    conversations: list[Conversation]
    created_at: int


class MidTermMemory(Entity):
    id: str
    topic_id: str
    summary: str
    emotion_tags: EmotionTags
    message_count: int = Field(ge=0)
    time_precision: Literal["hour"] = "hour"
    extracted_to_long: bool = False
    created_at: int
    compression_ratio: float
    degraded: bool = False
    # the model's summary was longer than its topic's budget (`dreamchat.domain.quality.summary_budget`) and was cut
    summary_cut: bool = False
    # the topic's first and last message in the conversation log (None for memories stored before them)
    first_message_id: str | None = None
    last_message_id: str | None = None


class Supersession(Entity):
    """A key point of an entry that a later key point replaced ("我住在北京" by "我搬到上海了"): the old
    point stays, as history; `superseded_by` names the new one as `<long-term id>#<number>` (the id
    of its retrieval unit), `at` is when the new fact holds from (epoch seconds)."""

    point: int = Field(ge=0)  # which key point of the entry (0-based)
    superseded_by: str = Field(min_length=1, max_length=200)
    at: int


class LongTermIndex(Entity):
    id: str
    title: str
    key_points: list[str]
    detail_file: str
    # which write of the detail document is current: each is stored under its own revision before the
    # commit naming it, so the index entry that wins also wins the document ("" before revisions)
    detail_revision: str = Field(default="", pattern=r"^[0-9a-f]{0,32}$")  # part of a blob key: never a path
    created_at: int
    time_precision: Literal["day", "month"] = "day"
    degraded: bool = False
    # per key point, the id of the message in the conversation log it was drawn from ("" when none)
    sources: list[str] = Field(default_factory=list)
    # the key points later ones replaced (none for entries stored before supersession)
    superseded: list[Supersession] = Field(default_factory=list)
    # the feeling and scene of the talk it came from (its detail's tags; matched by retrieval); none before issue 39
    emotion_tags: EmotionTags | None = None


class LongTermDetail(Entity):
    title: str
    detail_content: str
    emotion_tags: EmotionTags | None = None
    source_mid_ids: list[str]


class CoreMemory(Entity):
    id: str
    content: str = Field(min_length=1, max_length=bounds.CORE_CHARS)
    importance: int = Field(ge=1, le=10)
    category: str = Field(default="其他", max_length=bounds.CATEGORY_CHARS)
    created_at: int
    source: Literal["ai", "person", "relationship"] = "ai"


class SelfSoul(Entity):
    self_soul: str = ""
    updated_at: int = 0


class Relationship(Entity):
    level: RelationshipLevel = "一般"
    heartbeat_hours: float | None = None
    reason: str = ""
    updated_at: int = 0


class ScheduledHeartbeat(Entity):
    hour: int = Field(ge=0, le=23)
    minute: int = Field(ge=0, le=59)
    message_template: str = Field(default="", max_length=bounds.TEMPLATE_CHARS)
