"""A rotated jwt_secret: the previous one verifies during the window, never signs, then stops."""

from __future__ import annotations

import pytest

from dreamchat.adapters.memory_store import MemoryItemStore
from dreamchat.config import Settings
from dreamchat.errors import Unauthorized
from dreamchat.services.auth import AuthService
from dreamchat.services.storage.unit_of_work import Storage

OLD, NEW = "o" * 48, "n" * 48


@pytest.fixture
def store(clock) -> MemoryItemStore:
    return MemoryItemStore(clock)


def rotated(store, clock, **overrides) -> AuthService:
    settings = Settings(
        jwt_secret=NEW, jwt_previous_secret=OLD, jwt_rotated_at=int(clock.now().timestamp()), **overrides
    )
    return AuthService(Storage(store), clock, settings)


def test_old_tokens_verify_during_the_window_and_are_refused_after_it(store, clock) -> None:
    before = AuthService(Storage(store), clock, Settings(jwt_secret=OLD))
    _, tokens = before.register("alice", "correct-horse", "203.0.113.9")
    after = rotated(store, clock)
    assert after.authenticate(tokens.access_token)[0].username == "alice"
    refreshed = after.refresh(tokens.refresh_token)  # onto the new secret
    clock.advance(minutes=61)
    with pytest.raises(Unauthorized):
        after.authenticate(tokens.access_token)
    with pytest.raises(Unauthorized):
        before.authenticate(refreshed.access_token)  # the refresh was signed with the new secret
    clock.advance(minutes=-61 + 10)
    assert after.authenticate(refreshed.access_token)[0].username == "alice"


def test_without_a_rotation_time_the_previous_secret_verifies_nothing(store, clock) -> None:
    _, tokens = AuthService(Storage(store), clock, Settings(jwt_secret=OLD)).register(
        "bob", "correct-horse", "203.0.113.9"
    )
    auth = AuthService(Storage(store), clock, Settings(jwt_secret=NEW, jwt_previous_secret=OLD))
    with pytest.raises(Unauthorized):
        auth.authenticate(tokens.access_token)


def test_a_token_of_some_other_secret_is_refused_during_the_window(store, clock) -> None:
    _, tokens = AuthService(Storage(store), clock, Settings(jwt_secret="x" * 48)).register(
        "carol", "correct-horse", "203.0.113.9"
    )
    with pytest.raises(Unauthorized):
        rotated(store, clock).authenticate(tokens.access_token)


def test_the_window_length_is_a_setting(store, clock) -> None:
    _, tokens = AuthService(Storage(store), clock, Settings(jwt_secret=OLD)).register(
        "dave", "correct-horse", "203.0.113.9"
    )
    auth = rotated(store, clock, jwt_rotation_minutes=5)
    clock.advance(minutes=4)
    assert auth.authenticate(tokens.access_token)[0].username == "dave"
    clock.advance(minutes=2)
    with pytest.raises(Unauthorized):
        auth.authenticate(tokens.access_token)
