"""What the AI remembers in a conversation: the context of a turn (souls, core memories, recent
topics, the memories the topic's opening calls up and what was said behind them, short-term; then
what the current message calls up beyond them) and the memories the recall_memory tool finds on demand. The
log is the memory of last resort: the person's own sentences that carry a fact (`person_units`, derived
when read, so an erased log takes them along) are searched too, and one no memory holds is quoted. In
minors' mode the instructions tell the model the person is a minor (`MINOR_GUIDANCE`), in turns and heartbeats."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

from dreamchat.config import Settings
from dreamchat.domain.log_units import LOG_MESSAGES, LogIndex, LogUnit, covered, index_units, log_units, search_units
from dreamchat.domain.models import AIUser, LongTermDetail, LongTermIndex, PairId
from dreamchat.domain.periods import named_period
from dreamchat.domain.quotes import QUOTE_RANKS, RECALL_QUOTES, Quote, excerpt
from dreamchat.domain.recall_query import turn_query
from dreamchat.domain.retrieval import Hit, Scored, Unit, strong_matches
from dreamchat.domain.supersession import Now, past_of, replacements
from dreamchat.llm.chat_context import Context, MemoryView, TurnRecall, assemble, topic_opening, with_changes
from dreamchat.llm.chat_prompts import MINOR_GUIDANCE
from dreamchat.ports import Clock
from dreamchat.services.memory_repo import MemoryRepository, PairSnapshot
from dreamchat.services.profile import ProfileService
from dreamchat.services.recall import Found, RecallService


@dataclass(frozen=True)
class Recalled:
    """A memory recalled on demand: its detail document and the words said behind it."""

    detail: LongTermDetail
    said: list[Quote]
    changed: list[tuple[str, Now]] = field(default_factory=list)  # its key points later ones replaced, and by what


class ContextService:
    def __init__(
        self,
        repo: MemoryRepository,
        profiles: ProfileService,
        retriever: RecallService,
        clock: Clock,
        settings: Settings,
        *,
        minor: Callable[[str], bool] = lambda account_id: False,  # the person is in minors' mode now
    ) -> None:
        self._minor = minor
        self.repo = repo
        self._profiles = profiles
        self.retriever = retriever
        self._clock = clock
        self._settings = settings

    def context(
        self,
        pair: PairId,
        ai_user: AIUser,
        current: str | None,
        instructions: str,
        exclude_message: str | None = None,
        snapshot: PairSnapshot | None = None,
        guidance: str = "",
    ) -> Context:
        """The turn's context: the stable memories recalled for the topic's opening, the current
        message's own (beyond them) in its per-turn block with the time and `guidance`."""
        snapshot = snapshot or self.repo.snapshot(pair)
        if self._minor(pair.account_id):  # the same every turn of theirs: the prompt cache still serves it
            instructions = f"{instructions}\n{MINOR_GUIDANCE}"
        now, zone = self._clock.now(), self.repo.zone(pair, ai_user)
        tz = ZoneInfo(zone)
        topic = self.repo.short_term(pair)
        short_term = [m for m in topic if m.id != exclude_message]
        opening = topic_opening(short_term, current)
        found = self._find(pair, snapshot, opening, named_period(opening, now, zone))
        log = self._log_index(pair, topic[0].id if topic else None, found.units) if opening.strip() else index_units([])
        quotes = self._quotes(pair, opening, found.hits)
        turn = None
        if current and current.strip() != opening.strip():
            query = turn_query(current, [(m.role, m.content) for m in short_term])
            hits = self._find(
                pair, snapshot, current, named_period(current, now, zone), query.recent, query.feeling
            ).hits
            said = self._quotes(pair, current, hits)
            turn = TurnRecall(
                hits,
                self._details(pair, current, hits, snapshot.long_index, tz),
                said,
                self._said(log, current, [*_texts(hits), *(q.text for q in said)]),
            )
        view = MemoryView(
            ai_user.base_soul,
            snapshot.self_soul.self_soul,
            snapshot.core,
            snapshot.mids,
            found.hits,
            found.units,
            self._details(pair, opening, found.hits, snapshot.long_index, tz),
            short_term,
            self._profiles.about_me(pair.account_id),
            quotes,
            turn,
            nickname=self._profiles.nickname(pair.account_id),
            said=self._said(log, opening, [*_texts(found.hits), *(q.text for q in quotes)]),
        )
        return assemble(
            view,
            instructions,
            current,
            now,
            zone,
            self._settings.memory_tokens,
            self._settings.recent_memory_tokens,
            turn_budget=self._settings.turn_memory_tokens,
            guidance=guidance,
        )

    def _find(
        self,
        pair: PairId,
        snapshot: PairSnapshot,
        message: str,
        period: tuple[int, int] | None,
        recent: str = "",
        feeling: tuple[str, ...] = (),
    ) -> Found:
        """The units ranked for the message (with the turns before it and the feeling they show), those
        made in the `period` it names favoured."""
        found = self.retriever.find
        return found(pair, snapshot.long_index, snapshot.mids, snapshot.vectors, message, recent, period, feeling)

    def _details(
        self, pair: PairId, query: str, hits: list[Hit], entries: list[LongTermIndex], tz: ZoneInfo
    ) -> list[LongTermDetail]:
        """Detail documents of the memories the message names outright (at most two); one whose facts
        later changed opens with what changed, one whose every fact changed is left out (its index line
        says it as past; recall_memory still finds it)."""
        by_id = {e.id: e for e in entries}
        best = list(dict.fromkeys(h.unit.parent_id for h in hits[:10] if h.relevant and h.unit.parent_id in by_id))
        ranked = [Scored(by_id[p], 1.0) for p in best]
        past = replacements(entries) if any(e.superseded for e in entries) else {}
        matches = [(s.entry, past_of(s.entry, past)) for s in strong_matches(query, ranked)]
        return [
            with_changes(d, changed, tz)
            for entry, changed in matches
            if len(changed) < len(entry.key_points) and (d := self.repo.detail(pair, entry))
        ]

    def _quotes(self, pair: PairId, query: str, hits: list[Hit]) -> list[Quote]:
        """What was said behind the best QUOTE_RANKS hits that share a rare word with the message: one
        read of the log per message (a message the person deleted is never shown, nor the words of a
        fact that later changed)."""
        quotes: list[Quote] = []
        for unit in (h.unit for h in hits[:QUOTE_RANKS] if h.relevant):
            if not unit.source or unit.replaced_by or any(q.message_id == unit.source for q in quotes):
                continue
            message = self.repo.log.message(pair, unit.source)
            if message is not None:
                text = excerpt(message.content, query, unit.text)
                quotes.append(Quote(message.id, message.role, message.timestamp, text))
        return quotes

    def person_units(self, pair: PairId, before: str | None) -> list[LogUnit]:
        """The fact sentences of the person's newest LOG_MESSAGES messages before `before` (the open
        topic's first message: what the context already holds whole), read from the log now."""
        read, _ = self.repo.log.messages(pair, before=before, after=None, limit=2 * LOG_MESSAGES)
        mine = [(m.id, m.timestamp, m.content) for m in read if m.role == "user"][-LOG_MESSAGES:]
        return log_units(mine)

    def _log_index(self, pair: PairId, before: str | None, units: list[Unit]) -> LogIndex:
        """The person's log units but those of a message a fact later replaced came from (the memory
        says that fact as past; the log would say it as if it still held)."""
        past = [u for u in units if u.replaced_by]
        sources = {u.source for u in past if u.source}
        own = self.person_units(pair, before)
        return index_units([u for u in own if u.message_id not in sources and not covered(u, [p.text for p in past])])

    @staticmethod
    def _said(log: LogIndex, query: str, memories: list[str]) -> list[Quote]:
        """The person's sentences about the query that none of the `memories` shown for it holds."""
        found = [u for u in search_units(log, query) if not covered(u, memories)] if query.strip() else []
        return [Quote(u.message_id, "user", u.timestamp, u.text) for u in found]

    def said_in_log(self, pair: PairId, query: str, recalled: list[Recalled]) -> list[Quote]:
        """What the person said about the query that the `recalled` memories do not hold (recall_memory)."""
        topic, snapshot = self.repo.short_term(pair), self.repo.snapshot(pair)
        units = self.retriever.prepare(pair, snapshot.long_index, snapshot.mids, snapshot.vectors).newest
        log = self._log_index(pair, topic[0].id if topic else None, units)
        memories = [text for r in recalled for text in (r.detail.detail_content, *(q.text for q in r.said))]
        return self._said(log, query, memories)

    def recall(self, pair: PairId, query: str, limit: int = 3, *, zone: str | None = None) -> list[Recalled]:
        """The detail documents of the memories that best match the query (the recall_memory tool), the
        same hybrid search as the context (with the pair's `zone`, those made in the time the query
        names favoured: "last June", "去年夏天"), each with what was said behind its two best key points
        and its facts that later changed (history: the old fact and what holds now)."""
        snapshot = self.repo.snapshot(pair)
        by_id = {e.id: e for e in snapshot.long_index}
        period = named_period(query, self._clock.now(), zone) if zone else None
        found = self.retriever.find(pair, snapshot.long_index, [], snapshot.vectors, query, period=period)
        relevant = [h for h in found.hits if h.relevant and h.unit.parent_id in by_id]
        past = replacements(snapshot.long_index)
        recalled = []
        for parent in list(dict.fromkeys(h.unit.parent_id for h in relevant))[:limit]:
            detail = self.repo.detail(pair, by_id[parent])
            if detail is not None:
                own = [h for h in relevant if h.unit.parent_id == parent][:RECALL_QUOTES]
                recalled.append(Recalled(detail, self._quotes(pair, query, own), past_of(by_id[parent], past)))
        return recalled


def _texts(hits: list[Hit]) -> list[str]:
    """The memories a message's best relevant hits show: what a log sentence must add to."""
    return [h.unit.text for h in hits[:10] if h.relevant]
