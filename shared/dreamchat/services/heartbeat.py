"""Heartbeats: the sweep finds due pairs through the sparse due index and fans them out; each work item
runs one pair's heartbeat at most once. The run follows the spec: the heartbeat prompt → the model reads the
short-term context → decides (HEARTBEAT_OK means do not disturb) → the normal chat pipeline: the messages
are ordinary AI messages in the conversation and short-term memory, with typing delays (or one voice note, as
a reply may be); none (no check-in either) while an operator has the chat or the person stopped the AI, nor
when either lands meanwhile; none but a check-in after a crisis while a protection of the person holds them
back (`held`: minors' mode, a guardian's consent, minors' night curfew, `dreamchat.services.usage`)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from dreamchat import keys
from dreamchat.budget import Deadline
from dreamchat.config import Settings
from dreamchat.domain import heartbeat as hb
from dreamchat.domain import reply as replies
from dreamchat.domain.crisis import read_crisis_marker
from dreamchat.domain.models import AIUser, Message, PairId, Relationship
from dreamchat.domain.relationship import heartbeat_interval
from dreamchat.domain.topics import read_markers
from dreamchat.errors import NotFound
from dreamchat.events import HeartbeatDue
from dreamchat.llm.chat_prompts import CHECK_IN_LINE, chat_instructions, heartbeat_prompt
from dreamchat.llm.errors import LLMError
from dreamchat.llm.offline import offline_heartbeats
from dreamchat.ports import Clock, WorkQueue
from dreamchat.services.ai_users import AIUserService
from dreamchat.services.context import ContextService
from dreamchat.services.due_index import due_pages, leased
from dreamchat.services.heartbeat_outcome import HeartbeatOutcome, SweepResult
from dreamchat.services.heartbeat_state import HeartbeatStateService
from dreamchat.services.leases import LeaseClaim, LeaseService
from dreamchat.services.memory_repo import MemoryRepository
from dreamchat.services.presence import PresenceService
from dreamchat.services.speaker import Line, SpeakerService
from dreamchat.services.storage.unit_of_work import Storage
from dreamchat.services.topics import TopicService
from dreamchat.services.voice import Voice

log = logging.getLogger(__name__)

_SLACK = timedelta(seconds=60)


class HeartbeatService:
    def __init__(
        self,
        storage: Storage,
        states: HeartbeatStateService,
        ai_users: AIUserService,
        repo: MemoryRepository,
        topics: TopicService,
        context: ContextService,
        speaker: SpeakerService,
        queue: WorkQueue,
        leases: LeaseService,
        clock: Clock,
        settings: Settings,
        *,
        presence: PresenceService,
        on_sent: Callable[[PairId, AIUser, list[Message]], object] | None = None,
        taken_over: Callable[[PairId], bool] = lambda pair: False,  # an operator has the chat, or the person stopped it
        held: Callable[[PairId, AIUser, str], HeartbeatOutcome | None] = lambda pair, ai_user, kind: None,
    ) -> None:
        self._presence = presence  # when the person last had this chat open: their silence counts from then
        self._on_sent = on_sent or (lambda pair, ai_user, messages: None)  # the push, after the messages are stored
        self._storage, self._states, self._ai_users, self._taken_over = storage, states, ai_users, taken_over
        self._repo, self._topics, self._context, self._speaker = repo, topics, context, speaker
        self._queue, self._leases, self._clock, self._settings, self._held = queue, leases, clock, settings, held

    def sweep(self) -> SweepResult:
        """Enqueue every pair whose heartbeat is due, leased so that it is in flight once (later
        sweeps skip it until the run ends or the lease lapses); reads only the due index."""
        result = SweepResult()
        until = self._leases.until()
        pages = due_pages(self._storage, keys.HEARTBEAT_DUE_KIND, keys.due_until(self._clock.now()))
        for items in leased(pages, lambda found: self._states.lease(found, until)):
            result.reads += 1
            work = [self._work(item) for item in items]
            if work:
                self._queue.send([w.detail() for w in work])
            result.due += len(work)
        return result

    def run_now(self, pair: PairId) -> HeartbeatOutcome:
        """One heartbeat now, whatever its timing (the person asked for it)."""
        return self.run(HeartbeatDue(pair.account_id, pair.ai_user_id, int(self._clock.now().timestamp())), force=True)

    def _work(self, item: dict[str, Any]) -> HeartbeatDue:
        pair = keys.pair_from_pk(item["pk"])
        return HeartbeatDue(pair.account_id, pair.ai_user_id, int(item["next_due"]))

    def run(self, work: HeartbeatDue, *, force: bool = False) -> HeartbeatOutcome:
        """Run one pair's heartbeat under a lease: the same (pair, due time) sends at most once, a
        run that died is retried once its lease lapses, and after the last attempt it moves on."""
        pair = self._storage.live(work.pair)  # a generation begun during the run gets none of its writes
        ai_user = self._ai_user(pair)
        if ai_user is None:
            with self._storage.pair(pair.seen_in(None)) as uow:
                uow.heartbeat.remove()
                uow.commit()
            return HeartbeatOutcome("gone", "the pair no longer exists")
        relationship = self._repo.relationship(pair)
        state = hb.seen_present(self._states.get(pair), self._presence.last_seen(pair.account_id, pair.ai_user_id))
        prefs, now = self._states.prefs(pair.account_id), self._clock.now()
        interval = heartbeat_interval(relationship)
        due = hb.next_heartbeat(state, interval, prefs, ai_user.night_owl, self._states.zone(pair, ai_user), now)
        if not force and (due is None or due.at > now + _SLACK):
            present_at = state.last_present_at  # the person was in the app since: the silence starts later
            self._states.change(pair, ai_user, relationship, lambda s: hb.unleased(hb.seen_present(s, present_at)))
            return HeartbeatOutcome("not_due", "the person wrote, was present or the plan changed since the sweep")
        claim = None if force else self._leases.claim(*keys.heartbeat_run(pair, str(work.due)))
        due_at, kind = (due.at, due.kind) if due else (now, "timed")
        if claim is not None and claim.status != "won":
            return self._not_claimed(claim, pair, ai_user, relationship, due_at)
        if (outcome := self._held(pair, ai_user, kind)) is None and not self._taken_over(pair):  # a protection
            outcome = self._decide(pair, ai_user, state, prefs, kind, due, now)
        if outcome is None or (outcome.status == "sent" and not outcome.messages):  # nothing stored: see _send
            outcome = HeartbeatOutcome("skipped", "an operator has taken this chat over, or the person stopped it")
        outcome.moved_hours = hb.bounded_move(outcome.moved_hours, interval, prefs.max_backoff)
        if claim is not None and outcome.status == "failed":
            if claim.attempt < self._leases.max_attempts:
                self._leases.release(claim)  # not finished: the queue delivers it again
                return outcome
            outcome = HeartbeatOutcome("abandoned", outcome.reason)
        self._record(pair, ai_user, relationship, due_at, outcome)
        if claim is not None:
            self._leases.finish(claim)
        log.info("heartbeat ran", extra={"ai_user_id": pair.ai_user_id, "status": outcome.status, "kind": kind})
        if outcome.messages:
            self._on_sent(pair, ai_user, outcome.messages)
        return outcome

    def _not_claimed(
        self, claim: LeaseClaim, pair: PairId, ai_user: AIUser, relationship: Relationship, due_at: datetime
    ) -> HeartbeatOutcome:
        if claim.status == "done":
            return HeartbeatOutcome("duplicate", "this heartbeat already ran")
        if claim.status == "held":
            return HeartbeatOutcome("leased", "another run holds this heartbeat")
        # Every attempt died (crashed or timed out): move on to the next heartbeat.
        self._record(pair, ai_user, relationship, due_at, HeartbeatOutcome("abandoned"))
        self._leases.finish(claim)
        log.warning("heartbeat abandoned", extra={"ai_user_id": pair.ai_user_id, "attempts": claim.attempt})
        return HeartbeatOutcome("abandoned", f"{claim.attempt} attempts did not finish")

    def _record(
        self, pair: PairId, ai_user: AIUser, relationship: Relationship, due_at: datetime, outcome: HeartbeatOutcome
    ) -> None:
        """The run is over: the due time moves on, what was sent counts, the lease ends."""
        now, zone = self._clock.now(), self._states.zone(pair, ai_user)
        sent_texts = [m.content for m in outcome.messages]

        def finish(s: hb.HeartbeatState) -> hb.HeartbeatState:
            ran = hb.unleased(hb.record_run(s, due_at, now, outcome.moved_hours))
            if ran.checkin_at is not None and ran.checkin_at <= due_at.timestamp():
                ran = hb.checked_in(ran)  # whatever became of the run, the check-in is not owed twice
            return hb.record_sent(ran, sent_texts, now, zone) if sent_texts else ran

        self._states.change(pair, ai_user, relationship, finish)

    def _decide(
        self,
        pair: PairId,
        ai_user: AIUser,
        state: hb.HeartbeatState,
        prefs: hb.Prefs,
        kind: str,
        due: hb.Due | None,
        now: datetime,
    ) -> HeartbeatOutcome:
        if kind == "checkin":
            return self._check_in(pair, ai_user, state, due, now)
        if kind == "scheduled" and hb.person_active(state, prefs, now):
            return HeartbeatOutcome("skipped", "the person is in the middle of a conversation")
        if hb.cap_reached(state, prefs, now, self._states.zone(pair, ai_user)):
            return HeartbeatOutcome("skipped", "today's heartbeat cap is reached")
        if not self._speaker.can_speak(ai_user):
            return self._offline(pair, state, kind, due, now)
        voice = Voice(ai_user, Deadline.after(self._settings.heartbeat_turn_seconds))  # spoken within the turn's time
        try:
            text = self._generate(pair, ai_user, state, kind, due, now)
        except LLMError as error:
            return HeartbeatOutcome("failed", f"the chat model failed ({type(error).__name__})")
        markers = read_markers(text)
        cleaned, flagged = read_crisis_marker(markers.text)  # a heartbeat the model marks as a crisis is read
        wanted, moved = hb.read_heartbeat_reply(cleaned)
        lines = [line for line in replies.split_messages(wanted) if not hb.sent_recently(state, line, now)]
        if lines:
            sent = self._send(pair, lines, None if flagged else voice)
            if markers.ended and sent:  # the model closed the topic with its heartbeat, as it may in a turn
                self._topics.end_topic(pair, sent[-1].topic_id)
            return HeartbeatOutcome("sent", "", sent, moved)
        reason = "the AI chose not to disturb" if not wanted else "the same words were sent within 24 hours"
        return HeartbeatOutcome("skipped", reason, moved_hours=moved)

    def _offline(
        self, pair: PairId, state: hb.HeartbeatState, kind: str, due: hb.Due | None, now: datetime
    ) -> HeartbeatOutcome:
        """No chat model: the offline demo still writes first, with a short line marked offline."""
        template = due.scheduled.message_template if due and due.scheduled else ""
        level = self._repo.relationship(pair).level
        fresh = [line for line in offline_heartbeats(kind, level, template) if not hb.sent_recently(state, line, now)]
        if not fresh:
            return HeartbeatOutcome("skipped", "the same words were sent within 24 hours")
        return HeartbeatOutcome("sent", "", self._send(pair, fresh[:1]))

    def _check_in(
        self, pair: PairId, ai_user: AIUser, state: hb.HeartbeatState, due: hb.Due | None, now: datetime
    ) -> HeartbeatOutcome:
        """After a crisis: the AI asks how the person is. Sent whatever the model does (HEARTBEAT_OK,
        nothing, a failure, no model at all), as only the person's own switch stops it."""
        text = ""
        if self._speaker.can_speak(ai_user):
            try:
                text = self._generate(pair, ai_user, state, "checkin", due, now)
            except LLMError as error:
                log.warning(
                    "check-in model failed", extra={"ai_user_id": pair.ai_user_id, "error": type(error).__name__}
                )
        wanted, _ = hb.read_heartbeat_reply(read_crisis_marker(read_markers(text).text)[0])
        return HeartbeatOutcome("sent", "", self._send(pair, replies.split_messages(wanted) or [CHECK_IN_LINE]))

    def _generate(
        self, pair: PairId, ai_user: AIUser, state: hb.HeartbeatState, kind: str, due: hb.Due | None, now: datetime
    ) -> str:
        silent = (now.timestamp() - (state.last_person_at or now.timestamp())) / 3600
        template = due.scheduled.message_template if due and due.scheduled else ""
        relationship, zone = self._repo.relationship(pair), self._states.zone(pair, ai_user)
        # a check-in after a crisis never plays the level's attitude (决裂: 拒绝沟通)
        instructions = chat_instructions(ai_user.name, relationship.level, crisis=kind == "checkin")
        context = self._context.context(pair, ai_user, None, instructions)
        trigger = heartbeat_prompt(now, zone, kind, template, silent)
        messages = [*context.messages, {"role": "system", "content": trigger}]
        deadline = Deadline.after(self._settings.heartbeat_turn_seconds)
        return self._speaker.generate(pair, ai_user, messages, deadline).text or ""

    def _send(self, pair: PairId, lines: list[str], voice: Voice | None = None) -> list[Message]:
        """The heartbeat's messages (a voice note when `voice` speaks them), unless an operator took the chat over."""
        return [] if self._taken_over(pair) else list(self._speaker.send(pair, lines, Line("heartbeat", voice=voice)))

    def _ai_user(self, pair: PairId) -> AIUser | None:
        try:
            return self._ai_users.companion(pair.account_id, pair.ai_user_id)[1]
        except NotFound:  # the friendship or the AI user is gone
            return None
