"""Every service of one app or handler, by name: what `dreamchat.services.container.build_services` builds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from dreamchat.llm.memory_models import FallbackMemoryModels
from dreamchat.llm.port import LLMGateway
from dreamchat.services.account_password import PasswordService
from dreamchat.services.ai_users import AIUserService
from dreamchat.services.answers import AnswerService
from dreamchat.services.auth import AuthService
from dreamchat.services.cards import CardService
from dreamchat.services.chat import ChatService
from dreamchat.services.chat_messages import ChatMessageService
from dreamchat.services.chat_turns import ChatTurnService
from dreamchat.services.compression import CompressionService
from dreamchat.services.context import ContextService
from dreamchat.services.core_judgment import CoreJudgeService
from dreamchat.services.escalations import EscalationService
from dreamchat.services.exits import ExitService
from dreamchat.services.export import ExportService
from dreamchat.services.extract_now import ExtractNowService
from dreamchat.services.extraction import ExtractionService
from dreamchat.services.friend_lists import FriendListService
from dreamchat.services.healing import HealingService
from dreamchat.services.heartbeat import HeartbeatService
from dreamchat.services.heartbeat_state import HeartbeatStateService
from dreamchat.services.long_term import LongTermService
from dreamchat.services.media import MediaService
from dreamchat.services.memory_edit import MemoryEditService
from dreamchat.services.memory_import import ImportService
from dreamchat.services.memory_repo import MemoryRepository
from dreamchat.services.model_pool import ModelPool
from dreamchat.services.operators import OperatorService
from dreamchat.services.person_settings import PersonSettingsService
from dreamchat.services.presence import PresenceService
from dreamchat.services.profile import ProfileService
from dreamchat.services.protection import ProtectionService
from dreamchat.services.push import PushService
from dreamchat.services.quality import QualityService
from dreamchat.services.ratings import RatingService
from dreamchat.services.recall import RecallService
from dreamchat.services.referrals import ReferralService
from dreamchat.services.reports import ReportService
from dreamchat.services.soul import SoulService
from dreamchat.services.starters import StarterService
from dreamchat.services.suspensions import SuspensionService
from dreamchat.services.tombstones import ErasureService
from dreamchat.services.topics import TopicService
from dreamchat.services.usage import UsageService
from dreamchat.services.vectors import VectorService
from dreamchat.services.views import ViewService

if TYPE_CHECKING:  # the runtime is wiring's: named, never imported, by the services layer
    from dreamchat.wiring import Runtime


@dataclass
class Services:
    runtime: Runtime
    auth: AuthService
    passwords: PasswordService  # a password changed, every login ended
    ai_users: AIUserService
    friend_lists: FriendListService  # the lists of AI users a person sees
    repo: MemoryRepository  # the reads of a pair's memory that decide nothing
    retriever: RecallService
    context: ContextService  # what the AI remembers in a turn, recall on demand
    topics: TopicService
    compression: CompressionService
    extractor: LongTermService
    core_judge: CoreJudgeService
    vectors: VectorService
    soul: SoulService
    heartbeat_states: HeartbeatStateService
    chat: ChatService
    chat_turns: ChatTurnService  # a chat turn, and its answer asked for again
    answers: AnswerService  # 换一个回答, an earlier answer shown again, the last message edited
    ratings: RatingService  # 👍/👎 on the AI's messages
    chat_messages: ChatMessageService  # the greeting, a message saved, the history
    model_pool: ModelPool  # where model calls run, a bounded share per account
    person_settings: PersonSettingsService  # 关于我, clock, locale, heartbeat settings
    extract_now: ExtractNowService
    heartbeat: HeartbeatService
    extraction: ExtractionService
    healing: HealingService  # degraded results redone once the model answers again
    gateway: LLMGateway | None
    memory_models: FallbackMemoryModels
    erasures: ErasureService
    quality: QualityService
    push: PushService
    presence: PresenceService
    views: ViewService  # read models: what a screen shows, gathered from several reads
    profiles: ProfileService
    memory_editor: MemoryEditService
    cards: CardService  # character cards in and out
    media: MediaService  # photos and voice notes a person uploads, served back to them
    exports: ExportService  # a pair's memories out
    imports: ImportService  # and back in
    protections: ProtectionService  # minors' mode, guardian consent, emergency contact, daily limit
    usage: UsageService  # conversation time: the daily limit, the time notices, the AI disclosure, curfew
    operators: OperatorService  # who runs the service, and the audit of what they did
    suspensions: SuspensionService  # accounts an operator suspended
    reports: ReportService  # reports (举报/投诉), acting on them, takedowns and restores
    escalations: EscalationService  # the pairs the crisis protocol fired on, for operators to take over
    referrals: ReferralService  # the crisis protocol's monthly counts (the referral report)
    exits: ExitService  # a way out: the person stops the companion by button or keyword
    starters: StarterService  # the starter characters a fresh install ships with
