"""All services of one app or handler, built once from the runtime's adapters: wiring only."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from dreamchat import keys
from dreamchat.adapters.embeddings import build_embedder
from dreamchat.adapters.events import MissingQueue
from dreamchat.adapters.images import PillowAvatars
from dreamchat.adapters.private import signing_secret
from dreamchat.domain.answering import ANSWER_MARGIN_SECONDS
from dreamchat.events import ExtractionDue, HeartbeatDue, TopicEnded
from dreamchat.llm.gateway import OpenAIGateway
from dreamchat.llm.memory_models import FallbackMemoryModels, build_memory_models
from dreamchat.llm.port import LLMGateway
from dreamchat.ports import Counter, Embedder, Event
from dreamchat.services.ai_users import AIUserService, Caps
from dreamchat.services.answering import RETRIES_PER_MESSAGE, Answering
from dreamchat.services.auth import AuthService
from dreamchat.services.cards import CardService
from dreamchat.services.chat import ChatService
from dreamchat.services.chat_messages import ChatMessages
from dreamchat.services.chat_turns import ChatTurns
from dreamchat.services.compression import AfterCompression, Compression
from dreamchat.services.context import ContextBuilder
from dreamchat.services.core_judgment import CoreJudge
from dreamchat.services.crisis_protocol import CrisisProtocol
from dreamchat.services.export import MemoryExport
from dreamchat.services.extract_now import ExtractNow
from dreamchat.services.extraction import ExtractionService
from dreamchat.services.friend_lists import FriendLists
from dreamchat.services.healing import Healing
from dreamchat.services.heartbeat import HeartbeatService
from dreamchat.services.heartbeat_state import HeartbeatStates
from dreamchat.services.idempotency import Idempotency
from dreamchat.services.leases import Leases
from dreamchat.services.limits import AccountBudget, ModelCallBudget
from dreamchat.services.long_term import Extractor
from dreamchat.services.memory_edit import MemoryEditor
from dreamchat.services.memory_import import MemoryImport
from dreamchat.services.memory_repo import MemoryRepository
from dreamchat.services.model_pool import ModelPool
from dreamchat.services.person_settings import PersonSettings
from dreamchat.services.presence import Presence
from dreamchat.services.profile import Profiles
from dreamchat.services.push import PushSender, PushService
from dreamchat.services.quality import OnFigure, QualityService
from dreamchat.services.recall import Retriever
from dreamchat.services.redo import Redo
from dreamchat.services.reply_draw import ReplyDraw
from dreamchat.services.sessions import Sessions
from dreamchat.services.soul import SoulService
from dreamchat.services.speaker import Speaker
from dreamchat.services.storage.unit_of_work import Storage
from dreamchat.services.tombstones import Erasures
from dreamchat.services.topics import Topics
from dreamchat.services.vectors import VectorRefresh
from dreamchat.services.views import Views
from dreamchat.wiring import Runtime, build_push, build_search, extract_queue


@dataclass
class Services:
    runtime: Runtime
    auth: AuthService
    ai_users: AIUserService
    friend_lists: FriendLists  # the lists of AI users a person sees
    repo: MemoryRepository  # the reads of a pair's memory that decide nothing
    retriever: Retriever
    context: ContextBuilder  # what the AI remembers in a turn, recall on demand
    topics: Topics
    compression: Compression
    extractor: Extractor
    core_judge: CoreJudge
    vectors: VectorRefresh
    soul: SoulService
    heartbeat_states: HeartbeatStates
    chat: ChatService
    chat_turns: ChatTurns  # a chat turn, and its answer asked for again
    chat_messages: ChatMessages  # the greeting, a message saved, the history
    model_pool: ModelPool  # where model calls run, a bounded share per account
    person_settings: PersonSettings  # 关于我, clock, locale, heartbeat settings
    extract_now: ExtractNow
    heartbeat: HeartbeatService
    extraction: ExtractionService
    healing: Healing  # degraded results redone once the model answers again
    gateway: LLMGateway | None
    memory_models: FallbackMemoryModels
    erasures: Erasures
    quality: QualityService
    push: PushService
    presence: Presence
    views: Views  # read models: what a screen shows, gathered from several reads
    profiles: Profiles
    memory_editor: MemoryEditor
    cards: CardService  # character cards in and out
    exports: MemoryExport  # a pair's memories out
    imports: MemoryImport  # and back in


def build_services(
    runtime: Runtime,
    *,
    gateway: LLMGateway | None = None,
    memory_models: FallbackMemoryModels | None = None,
    embedder: Embedder | None = None,
    on_quality: OnFigure | None = None,
    on_count: Counter | None = None,
    push_sender: PushSender | None = None,
) -> Services:
    settings, clock, store = runtime.settings, runtime.clock, runtime.store
    if gateway is None and settings.llm_configured:
        gateway = OpenAIGateway.from_settings(settings)
    models = memory_models or build_memory_models(settings, gateway)
    storage = Storage(store)
    repo, profiles = MemoryRepository(storage, runtime.blobs), Profiles(storage)
    retriever = Retriever(embedder or build_embedder(settings), settings.embedding_batch)
    topics = Topics(repo, storage, runtime.bus, clock, runtime.random, settings)
    context = ContextBuilder(repo, profiles, retriever, clock, settings)
    heartbeats = HeartbeatStates(storage, clock, settings)
    soul = SoulService(repo, storage, models, heartbeats, clock, settings)
    search = build_search(settings)
    presence = Presence(storage, clock, settings.presence_seconds)
    push = PushService(storage, presence, push_sender or build_push(settings), clock, settings)
    speaker = Speaker(repo, topics, context, soul, heartbeats, gateway, search, clock, runtime.random, settings)
    protocol = CrisisProtocol(repo, profiles, heartbeats, clock, settings, on_count)

    def budget(scope: Callable[[str], str], limit: int, window: int, message: str) -> Callable[[str], None]:
        return AccountBudget(storage, clock, scope, limit, window, message).spend

    draw = ReplyDraw(repo.log, clock, runtime.random, settings)
    sessions = Sessions(storage, clock, settings.break_reminder_minutes)
    messages = budget(keys.message_limit_scope, settings.messages_per_minute, 60, "too many messages; wait a moment")
    parts = (repo, topics, context, speaker, heartbeats, protocol, draw, sessions, messages)
    chat = ChatService(*parts, clock, runtime.random, settings, on_reply=push.after_turn)
    ai_users = AIUserService(storage, runtime.blobs, clock, Caps(settings.max_ai_users, settings.max_friends))
    friend_lists = FriendLists(storage)
    leases = Leases(storage, clock, settings.lease_seconds, settings.lease_attempts)
    quality = QualityService(repo, storage, gateway, clock, runtime.random, settings, on_quality)
    vectors = VectorRefresh(storage, retriever)

    core_judge = CoreJudge(storage, models, clock, settings.heal_backoff)
    after = AfterCompression(repo, storage, quality, soul, ai_users, clock, settings)
    compression = Compression(repo, storage, topics, models, vectors, after, clock, settings)
    extractor = Extractor(repo, storage, models, core_judge, vectors, quality, clock, settings)
    heartbeat = HeartbeatService(
        storage,
        heartbeats,
        ai_users,
        repo,
        topics,
        context,
        speaker,
        runtime.queue or MissingQueue(),
        leases,
        clock,
        settings,
        on_sent=push.after_heartbeat,
        presence=presence,
    )
    healing = Healing(
        repo, storage, Redo(repo, storage, models, vectors, clock), core_judge, soul, ai_users, clock, settings
    )
    extraction = ExtractionService(storage, extractor, healing, leases, extract_queue(runtime), clock, settings)
    views = Views(ai_users, friend_lists, repo, context, heartbeats, quality, clock)
    model_calls = ModelCallBudget(storage, clock, settings.model_calls_per_minute)
    model_pool = ModelPool(settings.model_concurrency, model_calls.spend)
    # leases on answering a person's message again, each as long as a turn can run
    answers = Leases(storage, clock, math.ceil(settings.chat_turn_seconds) + ANSWER_MARGIN_SECONDS, RETRIES_PER_MESSAGE)
    answering, idempotency = Answering(answers, clock, settings.chat_turn_seconds), Idempotency(storage, clock)
    said = (chat, topics, repo, repo.log, heartbeats, ai_users, views, idempotency, answering)
    services = Services(
        runtime=runtime,
        auth=AuthService(storage, clock, settings, signing_secret(settings)),
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
        chat_turns=ChatTurns(chat, protocol, repo.log, model_pool, idempotency, answering),
        chat_messages=ChatMessages(*said),
        model_pool=model_pool,
        person_settings=PersonSettings(profiles, protocol, heartbeats, friend_lists, repo, views),
        extract_now=ExtractNow(healing, extractor, repo),
        heartbeat=heartbeat,
        extraction=extraction,
        healing=healing,
        gateway=gateway,
        memory_models=models,
        erasures=Erasures(storage, runtime.blobs, clock),
        quality=quality,
        push=push,
        presence=presence,
        views=views,
        profiles=profiles,
        memory_editor=MemoryEditor(repo, storage, clock, retriever, settings.max_person_core_memories),
        cards=CardService(
            ai_users,
            runtime.blobs,
            PillowAvatars(),
            settings.timezone,
            budget(keys.card_limit_scope, settings.card_uploads_per_minute, 60, "too many cards; wait a moment"),
        ),
        exports=MemoryExport(
            repo,
            profiles,
            heartbeats,
            ai_users,
            friend_lists,
            clock,
            budget(keys.export_limit_scope, settings.account_exports_per_hour, 3600, "too many exports; wait a while"),
        ),
        imports=MemoryImport(
            repo,
            storage,
            runtime.blobs,
            ai_users,
            heartbeats,
            vectors,
            clock,
            runtime.random,
            protocol.check,
            budget(keys.import_limit_scope, settings.memory_imports_per_hour, 3600, "too many imports; wait a while"),
        ),
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
