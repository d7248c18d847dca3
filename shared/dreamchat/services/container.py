"""All services of one app or handler, built once from the runtime's adapters: wiring only."""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial

from dreamchat import keys
from dreamchat.adapters.embeddings import build_embedder
from dreamchat.adapters.events import MissingQueue
from dreamchat.adapters.images import PillowAvatars
from dreamchat.adapters.media_files import inspect as inspect_media
from dreamchat.adapters.media_files import mp3_seconds
from dreamchat.adapters.private import signing_secret
from dreamchat.domain.answering import ANSWER_MARGIN_SECONDS
from dreamchat.events import ExtractionDue, HeartbeatDue, TopicEnded
from dreamchat.llm.gateway import OpenAIGateway
from dreamchat.llm.media_models import OpenAIMediaModels
from dreamchat.llm.memory_models import FallbackMemoryModels, build_memory_models
from dreamchat.llm.port import LLMGateway
from dreamchat.ports import Counter, Embedder, Event
from dreamchat.services.account_password import PasswordService
from dreamchat.services.ai_users import AIUserService, Caps
from dreamchat.services.answering import RETRIES_PER_MESSAGE, AnsweringService
from dreamchat.services.answers import AnswerService
from dreamchat.services.auth import AuthService
from dreamchat.services.cards import CardService
from dreamchat.services.chat import ChatService
from dreamchat.services.chat_messages import ChatMessageService
from dreamchat.services.chat_turns import ChatTurnService
from dreamchat.services.compression import AfterCompressionService, CompressionService
from dreamchat.services.context import ContextService
from dreamchat.services.core_judgment import CoreJudgeService
from dreamchat.services.crisis_protocol import CrisisService
from dreamchat.services.escalations import EscalationService
from dreamchat.services.exits import ExitService
from dreamchat.services.export import ExportService
from dreamchat.services.extract_now import ExtractNowService
from dreamchat.services.extraction import ExtractionService
from dreamchat.services.friend_lists import FriendListService
from dreamchat.services.healing import HealingService
from dreamchat.services.heartbeat import HeartbeatService
from dreamchat.services.heartbeat_state import HeartbeatStateService
from dreamchat.services.idempotency import IdempotencyService
from dreamchat.services.leases import LeaseService
from dreamchat.services.limits import AccountBudget, ModelCallBudget
from dreamchat.services.long_term import LongTermService
from dreamchat.services.media import MediaService
from dreamchat.services.media_redo import MediaRedoService
from dreamchat.services.media_words import MediaModels, MediaTurnService, MediaWordsService
from dreamchat.services.memory_edit import MemoryEditService
from dreamchat.services.memory_import import ImportService
from dreamchat.services.memory_repo import MemoryRepository
from dreamchat.services.model_pool import ModelPool
from dreamchat.services.operators import OperatorService
from dreamchat.services.person_settings import PersonSettingsService
from dreamchat.services.presence import PresenceService
from dreamchat.services.profile import ProfileService
from dreamchat.services.protection import ProtectionService
from dreamchat.services.push import PushSender, PushService
from dreamchat.services.quality import OnFigure, QualityService
from dreamchat.services.ratings import RatingService
from dreamchat.services.recall import RecallService
from dreamchat.services.redo import RedoService
from dreamchat.services.referrals import ReferralService
from dreamchat.services.registry import Services as Services  # re-exported: the app and the handlers name it here
from dreamchat.services.reply_draw import ReplyDrawService
from dreamchat.services.reports import ReportService
from dreamchat.services.sessions import SessionService
from dreamchat.services.soul import SoulService
from dreamchat.services.speaker import SpeakerService
from dreamchat.services.starters import StarterService
from dreamchat.services.storage.unit_of_work import Storage
from dreamchat.services.suspensions import SuspensionService
from dreamchat.services.takedowns import TakedownService
from dreamchat.services.tombstones import ErasureService
from dreamchat.services.topics import TopicService
from dreamchat.services.usage import UsageService
from dreamchat.services.vectors import VectorService
from dreamchat.services.views import ViewService
from dreamchat.services.voice import VoiceService
from dreamchat.wiring import Runtime, build_alerts, build_push, build_search, extract_queue


def build_services(
    runtime: Runtime,
    *,
    gateway: LLMGateway | None = None,
    memory_models: FallbackMemoryModels | None = None,
    embedder: Embedder | None = None,
    on_quality: OnFigure | None = None,
    on_count: Counter | None = None,
    push_sender: PushSender | None = None,
    media_models: MediaModels | None = None,
) -> Services:
    settings, clock, store = runtime.settings, runtime.clock, runtime.store
    if gateway is None and settings.llm_configured:
        gateway = OpenAIGateway.from_settings(settings)
    models = memory_models or build_memory_models(settings, gateway)
    storage = Storage(store)
    protections = ProtectionService(storage, clock, settings)
    repo, profiles = MemoryRepository(storage, runtime.blobs), ProfileService(storage)
    retriever = RecallService(embedder or build_embedder(settings), settings.embedding_batch)
    topics = TopicService(repo, storage, runtime.bus, clock, runtime.random, settings)
    context = ContextService(repo, profiles, retriever, clock, settings, minor=protections.minor)
    heartbeats = HeartbeatStateService(storage, clock, settings)
    soul = SoulService(repo, storage, models, heartbeats, clock, settings)
    search = build_search(settings)
    presence = PresenceService(storage, clock, settings.presence_seconds)
    push = PushService(storage, presence, push_sender or build_push(settings), clock, settings)

    def budget(scope: Callable[[str], str], limit: int, window: int, message: str) -> Callable[[str], None]:
        return AccountBudget(storage, clock, scope, limit, window, message).spend

    spoken = budget(keys.speech_limit_scope, settings.text_to_speech_per_minute, 60, "too many voice replies")
    voiced = (roles := OpenAIMediaModels.from_settings(settings), storage, runtime.blobs, clock, runtime.random, spoken)
    voice = VoiceService(*voiced, mp3_seconds, minor=protections.minor, default_voice=settings.text_to_speech_voice)
    speaker_parts = (repo, topics, context, soul, heartbeats, gateway, search, clock, runtime.random, settings)
    speaker = SpeakerService(*speaker_parts, voice)
    ai_users = AIUserService(storage, runtime.blobs, clock, Caps(settings.max_ai_users, settings.max_friends))
    operators, referrals = OperatorService(storage, clock, settings), ReferralService(storage, clock)
    usage = UsageService(storage, protections, clock, settings)
    alerts = runtime.alerts or build_alerts(settings)
    escalated = (storage, repo.log, topics, ai_users, push.after_heartbeat, operators, referrals, alerts, clock)
    escalations = EscalationService(*escalated, contacts=protections.emergency_contact)
    protocol = CrisisService(
        repo, profiles, heartbeats, clock, settings, on_count, escalations=escalations, referrals=referrals
    )
    uploads = budget(keys.media_limit_scope, settings.media_uploads_per_minute, 60, "too many photos or voice notes")
    media = MediaService(
        storage, runtime.blobs, clock, runtime.random, uploads, inspect_media, settings.media_url_seconds
    )
    role_limits = {"speech_to_text": settings.speech_to_text_per_minute, "vision": settings.vision_per_minute}
    role_budgets = {r: budget(partial(keys.media_role_scope, r), n, 60, r) for r, n in role_limits.items()}
    words = MediaWordsService(media, media_models or roles, role_budgets, protocol.locale)
    draw = ReplyDrawService(repo.log, clock, runtime.random, settings)
    sessions = SessionService(storage, clock, settings.break_reminder_minutes, on_message=usage.spoke)
    messages = budget(keys.message_limit_scope, settings.messages_per_minute, 60, "too many messages; wait a moment")
    parts = (repo, topics, context, speaker, heartbeats, protocol, draw, sessions, messages)
    shown = MediaTurnService(media, settings.chat_accepts_images)
    chat = ChatService(*parts, clock, runtime.random, settings, push.after_turn, usage.notices, shown)
    friend_lists = FriendListService(storage)
    leases = LeaseService(storage, clock, settings.lease_seconds, settings.lease_attempts)
    quality = QualityService(repo, storage, gateway, clock, runtime.random, settings, on_quality)
    vectors = VectorService(storage, retriever)
    core_judge = CoreJudgeService(storage, models, clock, settings.heal_backoff)
    after = AfterCompressionService(repo, storage, quality, soul, ai_users, clock, settings)
    compression = CompressionService(repo, storage, topics, models, vectors, after, clock, settings)
    extractor = LongTermService(repo, storage, models, core_judge, vectors, quality, clock, settings)
    exits = ExitService(storage, topics, protocol, clock, settings.exit_keywords)  # stopped: no heartbeat, no push
    beats = (storage, heartbeats, ai_users, repo, topics, context, speaker, runtime.queue or MissingQueue(), leases)
    heartbeat = HeartbeatService(
        *beats,
        clock,
        settings,
        on_sent=exits.unless_stopped(push.after_heartbeat),
        presence=presence,
        taken_over=exits.or_stopped(escalations.taken_over),
        held=usage.heartbeat_held,
    )
    redo = RedoService(repo, storage, models, vectors, clock)
    late = MediaRedoService(storage, words, repo.log, protocol, ai_users, clock)  # owed words of photos, voice notes
    healing = HealingService(repo, storage, redo, core_judge, soul, ai_users, clock, settings, media=late.redo)
    extraction = ExtractionService(storage, extractor, healing, leases, extract_queue(runtime), clock, settings)
    views = ViewService(ai_users, friend_lists, repo, context, heartbeats, quality, clock)
    model_calls = ModelCallBudget(storage, clock, settings.model_calls_per_minute)
    model_pool = ModelPool(settings.model_concurrency, model_calls.spend)
    turn_lease = math.ceil(settings.chat_turn_seconds) + ANSWER_MARGIN_SECONDS  # as long as a turn can run
    answers = LeaseService(storage, clock, turn_lease, RETRIES_PER_MESSAGE)  # on answering a message again
    answering = AnsweringService(answers, clock, settings.chat_turn_seconds)
    idempotency = IdempotencyService(storage, clock)
    said = (chat, topics, repo, repo.log, heartbeats, ai_users, views, idempotency, answering, usage, exits, profiles)
    export_budget = budget(
        keys.export_limit_scope, settings.account_exports_per_hour, 3600, "too many exports; wait a while"
    )
    imported = budget(keys.import_limit_scope, settings.memory_imports_per_hour, 3600, "too many imports; wait a while")
    imports = (runtime.random, protocol.check, imported)
    takedowns = TakedownService(ai_users, operators, clock)
    card_budget = budget(keys.card_limit_scope, settings.card_uploads_per_minute, 60, "too many cards; wait a moment")
    chat_turns = ChatTurnService(chat, protocol, repo.log, model_pool, idempotency, answering, usage, exits, words)
    auth = AuthService(storage, clock, settings, signing_secret(settings))
    services = Services(
        runtime=runtime,
        auth=auth,
        passwords=PasswordService(storage, auth, clock, settings),
        ai_users=ai_users,
        friend_lists=friend_lists,
        repo=repo,
        retriever=retriever,
        context=context,
        topics=topics,
        compression=compression,
        extractor=extractor,
        core_judge=core_judge,
        vectors=vectors,
        soul=soul,
        heartbeat_states=heartbeats,
        chat=chat,
        chat_turns=chat_turns,
        answers=AnswerService(chat_turns, repo.log, topics, answering, protocol, usage, words.forget),
        ratings=RatingService(storage, repo.log, topics, clock),
        chat_messages=ChatMessageService(*said, words),
        model_pool=model_pool,
        person_settings=PersonSettingsService(profiles, protocol, heartbeats, friend_lists, repo, views),
        extract_now=ExtractNowService(healing, extractor, repo),
        heartbeat=heartbeat,
        extraction=extraction,
        healing=healing,
        gateway=gateway,
        memory_models=models,
        erasures=ErasureService(storage, runtime.blobs, clock),
        quality=quality,
        push=push,
        presence=presence,
        views=views,
        profiles=profiles,
        memory_editor=MemoryEditService(repo, storage, clock, retriever, settings.max_person_core_memories),
        cards=CardService(ai_users, runtime.blobs, PillowAvatars(), settings.timezone, card_budget),
        media=media,
        exports=ExportService(
            *(repo, profiles, heartbeats, ai_users, friend_lists, clock, export_budget),
            protection=protections.get,
            media=media.of_pair,
        ),
        imports=ImportService(repo, storage, runtime.blobs, ai_users, heartbeats, vectors, clock, *imports),
        protections=protections,
        usage=usage,
        operators=operators,
        suspensions=SuspensionService(storage, ai_users, operators, clock),
        reports=ReportService(storage, ai_users, friend_lists, repo.log, operators, takedowns, clock, settings),
        escalations=escalations,
        referrals=referrals,
        exits=exits,
        starters=StarterService(storage, clock),
    )
    subscribe = getattr(runtime.bus, "subscribe", None)
    if subscribe is not None:  # the local bus; in AWS, EventBridge invokes the compress function
        subscribe(TopicEnded.detail_type, compression.on_topic_ended)
        subscribe(HeartbeatDue.detail_type, lambda event: _run_heartbeat(heartbeat, event))
        subscribe(ExtractionDue.detail_type, lambda event: _run_extraction(extraction, event))
    return services


def _run_heartbeat(heartbeat: HeartbeatService, event: Event) -> None:
    heartbeat.run(HeartbeatDue.of(event))


def _run_extraction(extraction: ExtractionService, event: Event) -> None:
    extraction.run(ExtractionDue.of(event))
