"""Response bodies of the HTTP API, each field listed: a field added to a stored entity is not shipped
until it is added here. Routes declare these as their `response_model` (the OpenAPI shows them)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from dreamchat.domain.discover import CharacterCategory
from dreamchat.domain.heartbeat import Mode, Prefs
from dreamchat.domain.media import Media
from dreamchat.domain.models import (
    AIUser,
    Atmosphere,
    BasicEmotion,
    ChatModel,
    MediaKind,
    MessageKind,
    RelationshipLevel,
    Role,
    Safety,
    Scene,
    Visibility,
)
from dreamchat.domain.moderation import Escalation, EscalationStatus, ReportAction, ReportKind, ReportStatus
from dreamchat.domain.owed import OwedKind
from dreamchat.domain.protection import CURFEW_END_HOUR, CURFEW_START_HOUR, REALITY_MINUTES, EmergencyContact
from dreamchat.services.media import PendingUpload
from dreamchat.services.protection import Standing
from dreamchat.services.reports import ReportDetail, ReportView
from dreamchat.services.views import ContextView, FriendView, HeartbeatRow, HeartbeatStatusView


class Out(BaseModel):
    """Built from entities or dicts; what a schema does not list is left out."""

    model_config = ConfigDict(from_attributes=True)


# accounts and sessions


class AccountOut(Out):
    id: str
    username: str
    created_at: int


class TokensOut(Out):
    access_token: str
    refresh_token: str
    token_type: Literal["bearer"] = "bearer"
    expires_in: int


class NoticeOut(Out):
    """An in-app notice (the AI disclosure): the app's words, shown as a card, never the AI's."""

    kind: str
    text: str


class LoginOut(TokensOut):
    user: AccountOut
    notices: list[NoticeOut] = []  # the AI disclosure, at every login (暂行办法, NY GBL art. 47)


class LoggedOut(Out):
    logged_out: bool


class ErasedOut(Out):
    items: int
    blobs: int


class DeletedOut(Out):
    deleted: bool
    erased: ErasedOut


# AI users and friends


class ModerationOut(Out):
    """Why an operator took an AI user down, as its owner sees it."""

    status: Literal["taken_down"]
    note: str
    at: int


class AIUserOut(Out):
    """An AI user as the caller sees it: the owner's account id is never shown, nor to anyone but the owner
    whether an operator took it down (`moderation`; everyone else no longer sees it at all)."""

    id: str
    user_id: str  # the spec's paths call it user_id
    name: str
    avatar: str
    base_soul: str
    timezone: str
    night_owl: bool
    visibility: Visibility
    model: ChatModel
    greeting: str
    tags: list[str]
    category: CharacterCategory  # where the discover screen files it
    romance: bool  # a romantic or intimate partner: closed to a person in minors' mode
    from_card: bool
    created_at: int
    updated_at: int
    is_owner: bool
    moderation: ModerationOut | None

    @classmethod
    def of(cls, ai_user: AIUser, account_id: str) -> AIUserOut:
        owner = ai_user.owner_id == account_id
        moderation = ai_user.moderation.model_dump() if owner and ai_user.moderation else None
        return cls.model_validate(
            {**ai_user.model_dump(), "user_id": ai_user.id, "is_owner": owner, "moderation": moderation}
        )


class AIUserPageOut(Out):
    ai_users: list[AIUserOut]
    next_cursor: str | None


class CutOut(Out):
    field: str
    original: int
    kept: int


class ImportedOut(Out):
    spec: str
    cuts: list[CutOut]
    unused: list[str]


class ImportedAIUserOut(AIUserOut):
    imported: ImportedOut


class LastMessageOut(Out):
    role: Role
    content: str
    timestamp: int
    kind: MessageKind


class FriendOut(AIUserOut):
    since: int
    relationship: RelationshipLevel
    unread: int
    next_heartbeat: int | None
    pinned: bool
    muted: bool
    heartbeat: Mode  # this friend's heartbeats: on, off or only the scheduled ones
    last_message: LastMessageOut | None
    stopped: bool  # the person stopped it (a way out): it sends nothing until they write again

    @classmethod
    def from_view(cls, view: FriendView, account_id: str) -> FriendOut:
        friendship = view.friendship
        return cls.model_validate(
            {
                **AIUserOut.of(view.ai_user, account_id).model_dump(),
                "since": friendship.since,
                "relationship": view.relationship,
                "unread": view.unread,
                "next_heartbeat": view.next_heartbeat,
                "pinned": friendship.pinned,
                "muted": friendship.muted,
                "heartbeat": view.heartbeat,
                "last_message": view.last_message,
                "stopped": friendship.stopped,
            }
        )


class FriendHeartbeatOut(Out):
    ai_user_id: str
    heartbeat: Mode
    next_heartbeat: int | None


class EndedFriendshipOut(Out):
    ai_user_id: str
    name: str | None  # the AI user's name, so the client can say which friend (None: it was deleted)
    reason: Literal["no_longer_visible", "taken_down"]


class FriendListOut(Out):
    friends: list[FriendOut]
    # friendships that ended because an operator took the AI user down, or its owner made it private or deleted
    # it (the memory is kept: exporting and forgetting still work)
    ended: list[EndedFriendshipOut]


class BefriendedOut(Out):
    friend: AIUserOut
    created: bool


class UnfriendedOut(Out):
    removed: bool
    forgot: bool
    erased: ErasedOut


class FriendSettingsOut(Out):
    ai_user_id: str
    pinned: bool
    muted: bool


class StoppedOut(Out):
    ai_user_id: str
    stopped: bool


# the conversation


class MessageOut(Out):
    id: str
    role: Role
    content: str
    timestamp: int
    topic_id: str
    kind: MessageKind
    delay_ms: int
    read_no_reply: bool
    reasoning: str
    safety: Safety | None
    alternatives: list[str]  # every answer of the exchange, on an answer's first message (换一个回答)
    alternative: int  # which of `alternatives` is shown
    rating: Literal[1, -1] | None  # the person's 👍 (1) or 👎 (-1)
    rating_reason: str
    media_id: str | None  # a photo or voice note (`GET /api/media/{media_id}`); `content` is then its words
    media_kind: MediaKind | None
    duration_s: float | None  # a voice note's length


class MessagePageOut(Out):
    messages: list[MessageOut]
    next_cursor: str | None
    retry_message_id: str | None


class GreetingOut(Out):
    message: MessageOut | None


class CrisisResourceOut(Out):
    name: str
    phone: str
    url: str
    hours: str


class HelpLinesOut(Out):
    kind: str
    resources: list[CrisisResourceOut]


class LocaleOut(Out):
    locale: str | None  # the person's choice; null: the server's
    effective: str  # what a crisis uses: theirs, else DREAMCHAT_CRISIS_LOCALE
    resources: list[CrisisResourceOut]  # the help lines a crisis would show now


class SavedMessageOut(Out):
    message: MessageOut
    topic_ended: bool
    safety: HelpLinesOut | None


class MessageDeletedOut(Out):
    deleted: str


class ReadUpToOut(Out):
    read_up_to: str


# memory


class ConversationOut(Out):
    role: Role
    content: str
    timestamp: int


class TopicOut(Out):
    topic_id: str | None
    conversations: list[ConversationOut]
    created_at: int | None
    message_ids: list[str]


class EmotionTagsOut(Out):
    basic_emotion: BasicEmotion
    scene: Scene
    atmosphere: Atmosphere


class MidTermOut(Out):
    id: str
    topic_id: str
    summary: str
    emotion_tags: EmotionTagsOut
    message_count: int
    time_precision: Literal["hour"]
    extracted_to_long: bool
    created_at: int
    compression_ratio: float
    degraded: bool
    summary_cut: bool
    first_message_id: str | None
    last_message_id: str | None


class SupersessionOut(Out):
    point: int
    superseded_by: str
    at: int


class LongTermOut(Out):
    id: str
    title: str
    key_points: list[str]
    detail_file: str
    created_at: int
    time_precision: Literal["day", "month"]
    degraded: bool
    sources: list[str]
    superseded: list[SupersessionOut]


class LongTermDetailOut(Out):
    title: str
    detail_content: str
    emotion_tags: EmotionTagsOut | None
    source_mid_ids: list[str]


class CoreOut(Out):
    id: str
    content: str
    importance: int
    category: str
    created_at: int
    source: Literal["ai", "person", "relationship"]


class SelfSoulOut(Out):
    self_soul: str
    updated_at: int


class RelationshipOut(Out):
    level: RelationshipLevel
    heartbeat_hours: float | None
    reason: str
    updated_at: int


class MemoryFilesOut(Out):
    short_term: TopicOut
    short_term_pending: list[TopicOut]
    mid_term: list[MidTermOut]
    long_term: list[LongTermOut]
    core: list[CoreOut]  # every entry but the relationship's history (its current entry among them)
    self_soul: SelfSoulOut
    relationship: RelationshipOut
    relationship_history: list[CoreOut]  # every change of level, oldest first


class SectionOut(Out):
    name: str
    tokens: int
    text: str


class QualityFigureOut(Out):
    value: float | None
    runs: int
    target: float


class MemoryContextOut(Out):
    sections: list[SectionOut]
    total_tokens: int
    long_term_in_context: list[str]
    messages: list[dict[str, str]]  # the chat messages the model would get ({"role", "content"})
    quality: dict[str, QualityFigureOut]

    @classmethod
    def of(cls, view: ContextView) -> MemoryContextOut:
        context = view.context
        return cls.model_validate(
            {
                "sections": context.sections,
                "total_tokens": context.tokens,
                "long_term_in_context": context.long_term_ids,
                "messages": context.messages,
                "quality": view.quality,
            }
        )


class MemoryEditedOut(Out):
    memory_type: str
    deleted: bool
    # the required fields tell the four apart: only a message has a role, only a mid-term memory a summary...
    memory: MessageOut | MidTermOut | LongTermOut | CoreOut | None


class CompressedOut(Out):
    mid_term: list[MidTermOut]


class HealedOut(Out):
    """One piece of owed work (a degraded result) redone: what it was, and what came of it."""

    kind: OwedKind  # "embed": the vectors an import left owed
    id: str  # the mid-term or long-term memory; "" for the pair's own
    # healed: replaced by the model's answer; degraded: the model failed again (still owed);
    # cancelled: a person's edit or deletion (or a newer result) made it moot; contended: changed meanwhile
    outcome: Literal["healed", "degraded", "cancelled", "contended"]


class ExtractedOut(Out):
    long_term: list[LongTermOut]
    core: list[CoreOut]
    degraded: bool
    superseded: int
    supersessions_dropped: int
    healed: list[HealedOut] = []  # the pair's owed work, redone before extracting
    still_owed: int = 0  # of it, what is owed still (the model failed again, or it changed meanwhile)


# soul and relationship


class SoulOut(Out):
    base_soul: str
    self_soul: str
    updated_at: int
    persona: str


class ReflectedOut(Out):
    changed: bool
    self_soul: str
    degraded: bool
    refused: str | None  # why the rules refused the new self-image, if they did


class JudgedOut(Out):
    relationship: RelationshipOut
    changed: bool
    degraded: bool


# heartbeat


class PrefsOut(Out):
    enabled: bool
    night_start: int | None
    night_end: int | None
    daily_cap: int
    quiet_minutes: int
    max_backoff: int
    pause_after_days: float


class ScheduledOut(Out):
    hour: int
    minute: int
    message_template: str


class HeartbeatEntryOut(Out):
    ai_user_id: str
    name: str
    avatar: str
    enabled: bool
    level: RelationshipLevel
    next_due: int | None
    next_kind: Literal["timed", "scheduled", "checkin"] | None
    last_sent: int | None
    unanswered: int
    scheduled: list[ScheduledOut]

    @classmethod
    def of(cls, row: HeartbeatRow, prefs: Prefs) -> HeartbeatEntryOut:
        state = row.state
        return cls(
            ai_user_id=row.ai_user.id,
            name=row.ai_user.name,
            avatar=row.ai_user.avatar,
            enabled=prefs.enabled,
            level=row.level,
            next_due=state.next_due,
            next_kind=state.next_kind,
            last_sent=state.last_sent_at,
            unanswered=state.unanswered,
            scheduled=[ScheduledOut.model_validate(s) for s in state.scheduled],
        )


class HeartbeatStatusOut(Out):
    prefs: PrefsOut
    ai_users: list[HeartbeatEntryOut]

    @classmethod
    def of(cls, view: HeartbeatStatusView) -> HeartbeatStatusOut:
        return cls(
            prefs=PrefsOut.model_validate(view.prefs), ai_users=[HeartbeatEntryOut.of(r, view.prefs) for r in view.rows]
        )


class TriggeredOut(Out):
    status: str
    reason: str
    messages: list[MessageOut]


class ScheduleOut(Out):
    ai_user_id: str
    scheduled: list[ScheduledOut]


# push, presence, health


class PublicKeyOut(Out):
    public_key: str


class SubscribedOut(Out):
    id: str
    devices: int


class RemovedOut(Out):
    removed: bool


class PushSettingsOut(Out):
    show_content: bool


class PresenceOut(Out):
    present: bool
    seconds: int


class ProfileOut(Out):
    about_me: str
    timezone: str | None  # the person's own clock; null: each AI user's
    nickname: str | None  # what every AI friend calls them (`{{user}}` in a card); null: 对方 / 你


class EmergencyContactOut(Out):
    """Shown to the person, an operator with a crisis escalation and the export; never to the AI."""

    name: str
    phone: str


class ProtectionLimitsOut(Out):
    """What holds for the person now (minors' mode); null or false: no such limit."""

    daily_minutes: int | None  # chat a day, in the person's own day
    romance_blocked: bool  # AI users marked `romance` cannot be befriended or talked with
    heartbeat_curfew: str | None  # "22:00-08:00": no heartbeats then, in the person's zone
    reality_reminder_minutes: int | None  # a reality reminder every this many minutes of continuous talk
    guardian_consent_required: bool  # chat and heartbeats wait for a guardian's consent


class ProtectionOut(Out):
    """The person's protections, whether they are in minors' mode now and the limits in force."""

    birth_year: int | None
    minor_mode: bool  # switched on by the person
    guardian_consent: bool
    guardian_name: str | None
    consent_at: int | None  # when the consent was recorded
    emergency_contact: EmergencyContactOut | None
    daily_minutes: int | None  # the person's own choice; null: the server's (DREAMCHAT_MINOR_DAILY_MINUTES)
    minor: bool  # in minors' mode now: under 18, or switched on
    limits: ProtectionLimitsOut
    suggest_emergency_contact: bool  # over 60 (by birth year) with none recorded

    @classmethod
    def of(cls, standing: Standing) -> ProtectionOut:
        minor = standing.minor
        limits = ProtectionLimitsOut(
            daily_minutes=standing.daily_minutes,
            romance_blocked=minor,
            heartbeat_curfew=f"{CURFEW_START_HOUR:02d}:00-{CURFEW_END_HOUR:02d}:00" if minor else None,
            reality_reminder_minutes=REALITY_MINUTES if minor else None,
            guardian_consent_required=standing.needs_consent,
        )
        shown = standing.protection.model_dump()
        return cls.model_validate(
            {**shown, "minor": minor, "limits": limits, "suggest_emergency_contact": standing.suggests_contact}
        )


class UsageOut(Out):
    calls: int
    failures: int
    prompt_tokens: int
    cached_prompt_tokens: int
    completion_tokens: int
    cached_share: float


class HealthOut(Out):
    status: str
    storage: str
    llm: str
    retrieval: str
    embedding_model: str
    usage: dict[str, UsageOut]


# Running the service: operators and the audit log


class AuditEntryOut(Out):
    id: str
    at: int
    operator_id: str
    operator: str
    action: str
    target: str | None
    account_id: str | None
    ai_user_id: str | None


class AuditPageOut(Out):
    entries: list[AuditEntryOut]
    next_cursor: str | None


class OperatorOut(Out):
    """What the console shows on its first screen: whether the caller is an operator, and the badges."""

    operator: bool
    username: str


# Reports (举报/投诉) and takedowns


class ReportOut(Out):
    """A report as its reporter sees it: its status and, once acted on, the operator's answer (`note`)."""

    id: str
    kind: ReportKind
    ai_user_id: str
    message_id: str | None
    reason: str
    status: ReportStatus
    created_at: int
    respond_by: int
    action: ReportAction | None
    note: str
    resolved_at: int | None


class ReportPageOut(Out):
    reports: list[ReportOut]
    next_cursor: str | None


class AdminReportOut(ReportOut):
    """A report as an operator lists it: who reported it, and whether it is open past `respond_by`."""

    account_id: str
    overdue: bool

    @classmethod
    def of(cls, view: ReportView) -> AdminReportOut:
        return cls.model_validate({**view.report.model_dump(), "overdue": view.overdue})


class AdminReportPageOut(Out):
    reports: list[AdminReportOut]
    next_cursor: str | None


class ReportedAIUserOut(Out):
    id: str
    name: str
    owner_id: str
    visibility: Visibility
    moderation: ModerationOut | None


class AdminReportDetailOut(AdminReportOut):
    """One report with what it names: the AI user (null once deleted) and, for a message, that message and
    the 10 before it (an audited read)."""

    ai_user: ReportedAIUserOut | None
    messages: list[MessageOut]

    @classmethod
    def of_detail(cls, detail: ReportDetail) -> AdminReportDetailOut:
        return cls.model_validate(
            {**AdminReportOut.of(detail.view).model_dump(), "ai_user": detail.ai_user, "messages": detail.messages}
        )


class RestoredOut(Out):
    ai_user_id: str
    visibility: Visibility
    moderation: None


class SummaryOut(Out):
    """The console's badges: counts only."""

    open_reports: int
    open_escalations: int
    ratings_up: int  # 👍 on the AI's messages this UTC month
    ratings_down: int  # 👎 this UTC month


# Suspensions


class SuspensionOut(Out):
    reason: str
    at: int
    by: str  # the operator's account id


class AdminAccountOut(Out):
    """An account as an operator sees it: who, since when, whether an operator, whether suspended."""

    id: str
    username: str
    created_at: int
    operator: bool
    suspension: SuspensionOut | None


class AccountSuspensionOut(Out):
    account_id: str
    suspension: SuspensionOut | None


# Crisis escalations and the referral report


class EscalationOut(Out):
    """A pair the crisis protocol fired on: ids, times and counts, never a word of the chat."""

    id: str
    ai_user_id: str
    account_id: str
    opened_at: int
    status: EscalationStatus
    messages_flagged: int
    taken_over_by: str | None  # the operator's account id
    emergency_contact: EmergencyContactOut | None  # the person's, if they recorded one (never shown to the AI)

    @classmethod
    def of(cls, escalation: Escalation, contact: EmergencyContact | None) -> EscalationOut:
        return cls.model_validate({**escalation.model_dump(), "emergency_contact": contact})


class EscalationPageOut(Out):
    escalations: list[EscalationOut]
    next_cursor: str | None


class EscalationMessageOut(Out):
    id: str
    role: Role
    content: str
    timestamp: int
    flagged: bool  # the crisis protocol fired on it


class EscalationDetailOut(EscalationOut):
    # each flagged message and the 10 before it, and the chat since the takeover (to the release), oldest first
    messages: list[EscalationMessageOut]


class StaffMessageOut(Out):
    id: str
    role: Literal["staff"]
    content: str
    timestamp: int


class ReferralMonthOut(Out):
    month: str  # YYYY-MM (UTC)
    protocol_fired: int
    help_lines_shown: int
    escalations_opened: int
    taken_over: int


class ReferralReportOut(Out):
    year: int
    months: list[ReferralMonthOut]


class MediaOut(Out):
    """A kept photo (`width`, `height`: as kept, at most 1600 px a side) or voice note (`duration_s`)."""

    media_id: str
    kind: Literal["image", "audio"]
    duration_s: float | None = None
    width: int | None = None
    height: int | None = None

    @classmethod
    def of(cls, media: Media) -> MediaOut:
        return cls(
            media_id=media.id, kind=media.kind, duration_s=media.duration_s, width=media.width, height=media.height
        )


class MediaUploadOut(Out):
    """A presigned POST: post `fields` and then the file (the form field `file`, last) to `url` within
    `expires_in` seconds, then name `media_id` in a message (or `…/uploads/{media_id}/done`)."""

    media_id: str
    url: str
    fields: dict[str, str]
    expires_in: int

    @classmethod
    def of(cls, pending: PendingUpload) -> MediaUploadOut:
        form = pending.form
        return cls(media_id=pending.media_id, url=form.url, fields=form.fields, expires_in=pending.seconds)
