"""All services of one app or handler, built once from the runtime's adapters."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from dreamchat.adapters.embeddings import build_embedder
from dreamchat.adapters.events import EXTRACTION_DUE, HEARTBEAT_DUE, LocalEventBus, LocalWorkQueue, MissingQueue
from dreamchat.adapters.private import signing_secret
from dreamchat.adapters.search import NoSearch, WebSearch, bocha, searxng, tavily
from dreamchat.config import Settings
from dreamchat.domain.models import Message, MidTermMemory, PairId
from dreamchat.domain.relationship import judgment_due
from dreamchat.errors import NotFound
from dreamchat.llm.gateway import OpenAIGateway
from dreamchat.llm.memory_models import FallbackMemoryModels, build_memory_models
from dreamchat.llm.port import LLMGateway
from dreamchat.ports import Counter, Embedder, Event, WorkQueue
from dreamchat.services.ai_users import AIUserService, Caps
from dreamchat.services.auth import AuthService
from dreamchat.services.chat import ChatService
from dreamchat.services.extraction import ExtractionService, ExtractOutcome, ExtractWork
from dreamchat.services.heartbeat import HeartbeatService, Work
from dreamchat.services.heartbeat_state import HeartbeatStates
from dreamchat.services.leases import Leases
from dreamchat.services.memory import TOPIC_ENDED, ExtractResult, MemoryService, pair_of
from dreamchat.services.memory_repo import MemoryRepository
from dreamchat.services.quality import OnFigure, QualityService
from dreamchat.services.recall import Retriever
from dreamchat.services.soul import SoulService
from dreamchat.services.tombstones import Erasures, Gone
from dreamchat.wiring import Runtime


@dataclass
class Services:
    runtime: Runtime
    auth: AuthService
    ai_users: AIUserService
    memory: MemoryService
    soul: SoulService
    heartbeats: HeartbeatStates
    chat: ChatService
    heartbeat: HeartbeatService
    extraction: ExtractionService
    gateway: LLMGateway | None
    models: FallbackMemoryModels
    erasures: Erasures
    quality: QualityService

    def on_topic_ended(self, event: Event) -> None:
        pair, topic_id = pair_of(event)
        self.compress_topic(pair, topic_id)

    def compress_topic(self, pair: PairId, topic_id: str) -> MidTermMemory | None:
        """Compress an ended topic; every few topics the AI also reflects on itself, and judges the
        relationship every few topics and after a topic with strong emotion."""
        again = self.memory.repo.mid_term(pair, topic_id) is not None  # a repeated delivery: reflected, judged
        judged = self.memory.repo.short_term(pair, topic_id) if not again and self.quality.sample() else None
        try:
            mid, stored = self.memory.compress_once(pair, topic_id)
            if mid is not None and stored:  # not when another delivery or a compress-now stored it
                self._after_compression(pair, mid, judged)
        except Gone:  # the pair was erased meanwhile: nothing to keep
            return None
        return mid

    def _after_compression(self, pair: PairId, mid: MidTermMemory, judged: list[Message] | None) -> None:
        self.quality.after_compression(pair, mid, judged)
        settings, topics = self.runtime.settings, len(self.memory.repo.mid_terms(pair))
        reflect = bool(settings.reflect_every_topics) and topics % settings.reflect_every_topics == 0
        judge = judgment_due(topics, settings.judge_relationship_every_topics, mid.emotion_tags)
        if not (reflect or judge):
            return
        try:
            ai_user = self.ai_users.visible(pair.account_id, pair.ai_user_id)
        except NotFound:
            return
        if reflect:
            self.soul.reflect(pair, ai_user)
        if judge:
            self.soul.judge_relationship(pair, ai_user)

    def compress_now(self, pair: PairId) -> list[MidTermMemory]:
        """End the open topic and compress every topic still in short-term, as a TopicEnded would."""
        produced = [self.compress_topic(pair, topic_id) for topic_id in self.memory.end_topic_now(pair)]
        return [mid for mid in produced if mid is not None]

    def compress_leftovers(self, has_time: Callable[[], bool] = lambda: True) -> int:
        """Compress ended topics whose TopicEnded was lost, as it would have, while `has_time()` says
        another fits; the rest wait for the next sweep."""
        done = 0
        for pair, topic_id in self.memory.leftovers():
            if not has_time():
                break
            self.compress_topic(pair, topic_id)
            done += 1
        return done

    def on_heartbeat_due(self, event: Event) -> None:
        self.heartbeat.run(Work.parse(event.detail))

    def erase_again(self) -> int:
        """The second erasure of what was deleted a while ago (after in-flight work ended)."""
        return self.erasures.erase_again().items

    def on_extraction_due(self, event: Event) -> None:
        self.extract_work(ExtractWork.parse(event.detail))

    def extract_work(self, work: ExtractWork) -> ExtractOutcome:
        """One queued pair's extraction, its quality figures recorded."""
        outcome = self.extraction.run(work)
        if outcome.result is not None:
            result = outcome.result
            self.quality.after_extraction(work.pair, result.considered, result.extracted, result.long_term)
        return outcome

    def extract(self, pair: PairId, zone: str, *, force: bool = False) -> ExtractResult:
        """One pair's extraction, its quality figures recorded."""
        result = self.memory.extract(pair, zone, force=force)
        self.quality.after_extraction(pair, result.considered, result.extracted, result.long_term)
        return result


def build_search(settings: Settings) -> WebSearch | NoSearch:
    """The configured provider: SearXNG needs its instance's URL, Bocha and Tavily an API key."""
    key = settings.search_api_key.get_secret_value() if settings.search_api_key else None
    if settings.search_provider == "searxng":
        return searxng(settings.search_url, key) if settings.search_url else NoSearch()
    if key is None:
        return NoSearch()
    return (bocha if settings.search_provider == "bocha" else tavily)(key, settings.search_url)


def build_services(
    runtime: Runtime,
    *,
    gateway: LLMGateway | None = None,
    models: FallbackMemoryModels | None = None,
    embedder: Embedder | None = None,
    on_quality: OnFigure | None = None,
    on_count: Counter | None = None,
) -> Services:
    settings, clock = runtime.settings, runtime.clock
    if gateway is None and settings.llm_configured:
        gateway = OpenAIGateway.from_settings(settings)
    models = models or build_memory_models(settings, gateway)
    repo = MemoryRepository(runtime.store, runtime.blobs)
    retriever = Retriever(embedder or build_embedder(settings))
    memory = MemoryService(repo, runtime.bus, clock, runtime.random, models, settings, retriever)
    heartbeats = HeartbeatStates(runtime.store, clock, settings)
    soul = SoulService(repo, models, heartbeats, clock, settings)
    search = build_search(settings)
    chat = ChatService(memory, soul, heartbeats, gateway, search, clock, runtime.random, settings, on_count)
    ai_users = AIUserService(runtime.store, runtime.blobs, clock, Caps(settings.max_ai_users, settings.max_friends))
    leases = Leases(runtime.store, clock, settings.lease_seconds, settings.lease_attempts)
    heartbeat = HeartbeatService(
        runtime.store,
        heartbeats,
        ai_users,
        memory,
        soul,
        gateway,
        search,
        runtime.queue or MissingQueue(),
        leases,
        clock,
        runtime.random,
        settings,
    )
    extraction = ExtractionService(runtime.store, memory, leases, _extract_queue(runtime), clock, settings)
    services = Services(
        runtime=runtime,
        auth=AuthService(runtime.store, clock, settings, signing_secret(settings)),
        ai_users=ai_users,
        memory=memory,
        soul=soul,
        heartbeats=heartbeats,
        chat=chat,
        heartbeat=heartbeat,
        extraction=extraction,
        gateway=gateway,
        models=models,
        erasures=Erasures(runtime.store, runtime.blobs, clock),
        quality=QualityService(repo, gateway, clock, runtime.random, settings, on_quality),
    )
    subscribe = getattr(runtime.bus, "subscribe", None)
    if subscribe is not None:  # the local bus; in AWS, EventBridge invokes the compress function
        subscribe(TOPIC_ENDED, services.on_topic_ended)
        subscribe(HEARTBEAT_DUE, services.on_heartbeat_due)
        subscribe(EXTRACTION_DUE, services.on_extraction_due)
    return services


def _extract_queue(runtime: Runtime) -> WorkQueue:
    """SQS in AWS; locally the bus's worker thread, like heartbeats."""
    if runtime.extract_queue is not None:
        return runtime.extract_queue
    if isinstance(runtime.bus, LocalEventBus):
        return LocalWorkQueue(runtime.bus, EXTRACTION_DUE)
    return MissingQueue("DREAMCHAT_EXTRACT_QUEUE_URL")
