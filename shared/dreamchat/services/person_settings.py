"""What a person sets for themselves: 关于我, their own clock, whose help lines a crisis shows them, and
their heartbeats (on or off, night window, caps; each friend's mode and scheduled times). A change that
moves a clock or the heartbeats' rules plans every friend's next heartbeat again (`reschedule_all`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dreamchat.domain.heartbeat import HeartbeatState, Mode, Prefs, remove_scheduled
from dreamchat.domain.help_lines import CrisisResource
from dreamchat.domain.models import AIUser, PairId
from dreamchat.errors import NotFound
from dreamchat.services.crisis_protocol import CrisisService
from dreamchat.services.friend_lists import FriendListService
from dreamchat.services.heartbeat_state import HeartbeatStateService
from dreamchat.services.memory_repo import MemoryRepository
from dreamchat.services.paging import DEFAULT_LIMIT
from dreamchat.services.profile import ProfileService
from dreamchat.services.views import HeartbeatStatusView, ViewService


@dataclass(frozen=True)
class ProfileView:
    about_me: str
    timezone: str | None  # the person's own clock; None: each AI user's
    nickname: str | None = None  # what every AI friend calls them; None: 对方 / 你


@dataclass(frozen=True)
class LocaleView:
    locale: str | None  # the person's choice; None: the server's
    effective: str  # what a crisis uses: theirs, else DREAMCHAT_CRISIS_LOCALE
    resources: tuple[CrisisResource, ...]  # the help lines a crisis would show now


class PersonSettingsService:
    def __init__(
        self,
        profiles: ProfileService,
        protocol: CrisisService,
        heartbeats: HeartbeatStateService,
        friend_lists: FriendListService,
        repo: MemoryRepository,
        views: ViewService,
    ) -> None:
        self._profiles = profiles
        self._protocol = protocol
        self._heartbeats = heartbeats
        self._friend_lists = friend_lists
        self._repo = repo
        self._views = views

    def profile(self, account_id: str) -> ProfileView:
        profiles = self._profiles
        return ProfileView(profiles.about_me(account_id), profiles.timezone(account_id), profiles.nickname(account_id))

    def change_profile(self, account_id: str, changes: dict[str, Any]) -> ProfileView:
        """Write the fields `changes` names: `about_me` (empty clears it), `nickname` (None or empty forgets it),
        `timezone` (None: each AI user's)."""
        if "about_me" in changes:
            self._profiles.set_about_me(account_id, changes["about_me"])
        if "nickname" in changes:
            self._profiles.set_nickname(account_id, changes["nickname"])
        if "timezone" in changes:
            self._profiles.set_timezone(account_id, changes["timezone"])
            self.reschedule_all(account_id)  # scheduled times and night windows now fall elsewhere
        return self.profile(account_id)

    def locale(self, account_id: str) -> LocaleView:
        """The person's locale and the help lines a crisis shows them."""
        resources = self._protocol.help(account_id).resources
        return LocaleView(self._profiles.locale(account_id), self._protocol.locale(account_id), resources)

    def set_locale(self, account_id: str, locale: str | None) -> LocaleView:
        self._profiles.set_locale(account_id, locale)
        return self.locale(account_id)

    def configure_heartbeats(self, account_id: str, changes: dict[str, Any]) -> HeartbeatStatusView:
        """Change the heartbeat settings `changes` names; the first page of friends with them."""
        current = self._heartbeats.prefs(account_id)
        return self._save_prefs(account_id, Prefs.model_validate({**current.model_dump(), **changes}))

    def start_heartbeats(self, account_id: str) -> HeartbeatStatusView:
        """Heartbeats on, the next one planned for every AI friend."""
        return self._save_prefs(account_id, self._heartbeats.prefs(account_id).model_copy(update={"enabled": True}))

    def set_heartbeat_mode(self, pair: PairId, ai_user: AIUser, mode: Mode) -> HeartbeatState:
        return self._heartbeats.set_mode(pair, ai_user, self._repo.relationship(pair), mode)

    def cancel_scheduled(self, pair: PairId, ai_user: AIUser, hour: int, minute: int) -> HeartbeatState:
        """Cancel the daily heartbeat at hour:minute this AI friend scheduled; NotFound if there is none."""
        removed: list[bool] = []

        def edit(state: HeartbeatState) -> HeartbeatState:
            updated, found = remove_scheduled(state, hour, minute)
            removed.append(found)
            return updated

        state = self._heartbeats.change(pair, ai_user, self._repo.relationship(pair), edit)
        if not removed[-1]:
            raise NotFound(f"no scheduled heartbeat at {hour:02d}:{minute:02d}")
        return state

    def reschedule_all(self, account_id: str) -> None:
        """Plan every friend's next heartbeat again (the settings or the person's clock changed)."""
        for ai_user, _ in self._friend_lists.friends(account_id):
            pair = PairId(account_id=account_id, ai_user_id=ai_user.id)
            self._heartbeats.change(pair, ai_user, self._repo.relationship(pair), lambda state: state)

    def _save_prefs(self, account_id: str, prefs: Prefs) -> HeartbeatStatusView:
        self._heartbeats.save_prefs(account_id, prefs)
        self.reschedule_all(account_id)
        return self._views.heartbeat_status(account_id, None, DEFAULT_LIMIT)
