"""`make run` with no model key shows the AI writing first: the real local server as a subprocess,
its scheduler sweeping as it does (here every second), and a scheduled heartbeat due within a minute
(this minute when it is still young: a scheduled time at most a minute old still counts)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from dreamchat.config import Settings
from dreamchat.domain.heartbeat import add_scheduled
from dreamchat.domain.models import ScheduledHeartbeat
from dreamchat.llm.offline import OFFLINE_MARK
from dreamchat.services.container import build_services
from dreamchat.wiring import build_runtime
from tests.fakes.server import running_server


@pytest.fixture
def data_dir(tmp_path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def server(data_dir) -> Iterator[str]:
    env = {"DREAMCHAT_DATA_DIR": str(data_dir), "DREAMCHAT_HEARTBEAT_SWEEP_SECONDS": "1"}
    with running_server(env) as base:
        yield base


def schedule_in_the_store(data_dir: Path, account_id: str, ai_user_id: str, at: datetime, text: str) -> None:
    """What the AI's set_scheduled_heartbeat tool does, written beside the server into its SQLite file."""
    runtime = build_runtime(Settings(data_dir=data_dir, run_scheduler=False))
    try:
        services = build_services(runtime)
        pair, ai_user = services.ai_users.companion(account_id, ai_user_id)
        entry = ScheduledHeartbeat(hour=at.hour, minute=at.minute, message_template=text)
        relationship = services.repo.relationship(pair)
        services.heartbeat_states.change(pair, ai_user, relationship, lambda s: add_scheduled(s, entry))
    finally:
        runtime.close()


@pytest.mark.e2e
def test_with_no_model_key_a_scheduled_heartbeat_due_in_a_minute_arrives(server: str, data_dir: Path) -> None:
    http = httpx.Client(base_url=server, timeout=10)
    registered = http.post("/api/auth/register", json={"username": "demo", "password": "correct-horse-battery"})
    assert registered.status_code == 201, registered.text
    http.headers["Authorization"] = f"Bearer {registered.json()['access_token']}"
    account_id = registered.json()["user"]["id"]
    ai = http.post("/api/ai-users", json={"name": "小梦", "timezone": "Asia/Shanghai"}).json()
    assert http.put("/api/profile", json={"timezone": "Etc/UTC"}).status_code == 200  # the person's clock
    assert http.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": "晚点聊"}).status_code == 201
    assert http.post("/api/heartbeat/configure", json={"quiet_minutes": 0}).status_code == 200

    now = datetime.now(UTC)
    this_minute = now.replace(second=0, microsecond=0)
    at = this_minute if now.second < 30 else this_minute + timedelta(minutes=1)  # UTC; waits ≤ 30 s
    schedule_in_the_store(data_dir, account_id, ai["id"], at, "一分钟到啦，来打个招呼")

    deadline = time.monotonic() + 100
    heartbeats: list[dict] = []
    while not heartbeats and time.monotonic() < deadline:
        time.sleep(1)
        messages = http.get(f"/api/ai-users/{ai['id']}/messages").json()["messages"]
        heartbeats = [m for m in messages if m["kind"] == "heartbeat"]
    assert [m["content"] for m in heartbeats] == [OFFLINE_MARK + "一分钟到啦，来打个招呼"]
    assert heartbeats[0]["timestamp"] >= at.timestamp()  # not before its time on the person's clock
