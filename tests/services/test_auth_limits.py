"""Login and register limits under attack (the parallel attempts on every storage adapter).

Attempts are counted before the password is checked, atomically, per username whatever the
client address, and per client address; password hashing runs a bounded number at a time.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from dreamchat.adapters.private import signing_secret
from dreamchat.config import Settings
from dreamchat.errors import TooManyRequests, Unauthorized
from dreamchat.services import passwords as auth_module
from dreamchat.services.auth import AuthService
from dreamchat.services.passwords import HashingPool
from dreamchat.services.storage.unit_of_work import Storage

PASSWORD = "correct-horse-battery"


@pytest.fixture
def auth(runtime) -> AuthService:
    settings = Settings(data_dir=runtime.settings.data_dir, password_hash_workers=4)
    service = AuthService(Storage(runtime.store), runtime.clock, settings, signing_secret(settings))
    service.register("alice", PASSWORD, "10.0.0.1")
    return service


def attempt(auth: AuthService, password: str, client: str) -> str:
    try:
        auth.login("alice", password, client)
    except TooManyRequests:
        return "limited"
    except Unauthorized:
        return "refused"
    return "ok"


@pytest.mark.every_store
def test_thirty_parallel_wrong_passwords_check_at_most_the_limit(auth: AuthService) -> None:
    with ThreadPoolExecutor(max_workers=10) as pool:
        outcomes = list(pool.map(lambda n: attempt(auth, f"wrong-{n}", f"10.1.0.{n}"), range(30)))
    assert outcomes.count("refused") <= 5
    assert outcomes.count("limited") >= 25
    assert attempt(auth, PASSWORD, "10.9.9.9") == "limited"  # the username is locked, from anywhere


def test_a_new_client_address_per_try_does_not_reset_the_username_limit(auth: AuthService, clock) -> None:
    outcomes = [attempt(auth, "wrong", f"192.0.2.{n}") for n in range(8)]
    assert outcomes == ["refused"] * 5 + ["limited"] * 3
    clock.advance(minutes=16)
    assert attempt(auth, PASSWORD, "192.0.2.200") == "ok"


def test_one_client_address_is_limited_across_usernames(runtime) -> None:
    settings = Settings(data_dir=runtime.settings.data_dir, auth_requests_per_minute=3)
    service = AuthService(Storage(runtime.store), runtime.clock, settings, signing_secret(settings))
    for n in range(3):
        with pytest.raises(Unauthorized):
            service.login(f"user{n}", "whatever-pw", "198.51.100.7")
    with pytest.raises(TooManyRequests):
        service.login("user9", "whatever-pw", "198.51.100.7")
    with pytest.raises(TooManyRequests):
        service.register("newcomer", PASSWORD, "198.51.100.7")
    service.register("newcomer", PASSWORD, "198.51.100.8")


def test_registration_is_limited_per_client_address(runtime) -> None:
    settings = Settings(data_dir=runtime.settings.data_dir, auth_requests_per_minute=2)
    service = AuthService(Storage(runtime.store), runtime.clock, settings, signing_secret(settings))
    service.register("first", PASSWORD, "203.0.113.5")
    service.register("second", PASSWORD, "203.0.113.5")
    with pytest.raises(TooManyRequests) as limited:
        service.register("third", PASSWORD, "203.0.113.5")
    assert limited.value.retry_after > 0


def test_password_hashing_runs_at_most_the_pool_size_at_once(monkeypatch) -> None:
    running, most, lock, release = 0, 0, threading.Lock(), threading.Event()
    entered = threading.Semaphore(0)

    class SlowHasher:
        def hash(self, password: str) -> str:
            nonlocal running, most
            with lock:
                running += 1
                most = max(most, running)
            entered.release()
            release.wait(5)
            with lock:
                running -= 1
            return "hash"

    monkeypatch.setattr(auth_module, "_hasher", SlowHasher())
    pool = HashingPool(2)
    threads = [threading.Thread(target=pool.hash, args=("pw",)) for _ in range(6)]
    for thread in threads:
        thread.start()
    assert entered.acquire(timeout=5) and entered.acquire(timeout=5)
    assert not entered.acquire(timeout=0.2)  # the third waits for a free slot
    release.set()
    for thread in threads:
        thread.join(5)
    assert most == 2
