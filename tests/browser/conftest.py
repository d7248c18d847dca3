"""The real local server (as `make run` starts it) with the fake LLM, and headless Debian Chromium.

One server, one fake LLM and one browser serve the tests of a module (module scope: Playwright's
event loop must be gone before other folders' tests run); each test registers its own
account, so tests do not see each other's data.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fakes.fake_llm import FakeLLMServer, Reply
from tests.fakes.server import running_server

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
DOC_SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1280, "height": 800}, "device_scale_factor": 1}
PASSWORD = "correct-horse-battery"

SUMMARY = "聊到周末去海边，道别。"  # within the share of the short topics the tests have (never cut)
LONG_TITLE = "周末去海边"
DETAIL = "3 月中旬的一个周末前，对方说想去海边看看，两人聊得很开心，约好下次再聊。"
CORE = "对方非常喜欢大海，想每年夏天都去一次海边"
HEARTBEAT_TEXT = "在忙什么呀？刚刚又想起你说的海边"


def companion(body: dict[str, Any]) -> Reply:
    """The fake's answer to everything not scripted: each memory task by its prompt, else a chat reply."""
    messages = body.get("messages") or []
    system = "\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "system")
    user = "\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "user")
    if "压缩成一条中期记忆" in system:
        return Reply.json(
            {"summary": SUMMARY, "emotion_tags": {"basic_emotion": "开心", "scene": "闲聊", "atmosphere": "轻松"}}
        )
    if "提炼成长期记忆" in system:
        ids = re.findall(r"id: (mid_[\w-]+)", user)
        return Reply.json(
            {
                "memories": [
                    {
                        "title": LONG_TITLE,
                        "key_points": ["想去海边", "周末出发"],
                        "detail_content": DETAIL,
                        "source_mid_ids": ids,
                    }
                ]
            }
        )
    if "判断是否要形成" in system:
        return Reply.json({"create": True, "content": CORE, "importance": 9, "category": "执念"})
    if "反思一下自己" in user:
        return Reply.json({"changed": False, "self_soul": ""})
    if "判断 AI 与对方目前的关系等级" in system:
        return Reply.json({"level": "关系较好", "reason": "聊天愉快"})
    if "【心跳" in system:
        return Reply.text(HEARTBEAT_TEXT)
    last = next((str(m.get("content") or "") for m in reversed(messages) if m.get("role") == "user"), "")
    if "拜拜" in last:
        return Reply.text("拜拜，下次聊～\n[TOPIC_ENDED]")
    return Reply.text("嗯嗯，我在听")


@dataclass
class Stack:
    base: str
    llm: FakeLLMServer

    def register(self, prefix: str = "u", username: str | None = None) -> dict[str, Any]:
        """A fresh account through the API: {user, access_token, refresh_token, ...}; `username` as given
        (an operator named in `DREAMCHAT_OPERATORS`), else the prefix and a random tail."""
        username = username or f"{prefix}{uuid.uuid4().hex[:10]}"
        response = httpx.post(f"{self.base}/api/auth/register", json={"username": username, "password": PASSWORD})
        assert response.status_code == 201, response.text
        return response.json()

    def create_ai_user(self, account: dict[str, Any], **fields: Any) -> dict[str, Any]:
        response = httpx.post(
            f"{self.base}/api/ai-users",
            headers=bearer(account),
            json={"name": "小梦", "avatar": "🌙", "base_soul": "温柔体贴的朋友", **fields},
        )
        assert response.status_code == 201, response.text
        return response.json()


def bearer(account: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {account['access_token']}"}


def session_json(account: dict[str, Any]) -> str:
    """What the client keeps in localStorage after logging in."""
    return json.dumps({key: account[key] for key in ("user", "access_token", "refresh_token")})


def server_env(data_dir: Path, llm: FakeLLMServer, **extra: str) -> dict[str, str]:
    """The settings of the browser tests' server (`extra` adds to them, e.g. `DREAMCHAT_OPERATORS`)."""
    return {
        "DREAMCHAT_DATA_DIR": str(data_dir),
        "DREAMCHAT_LLM_BASE_URL": llm.base_url,
        "DREAMCHAT_LLM_API_KEY": "test",
        "DREAMCHAT_LLM_MAX_RETRIES": "0",
        "DREAMCHAT_LLM_TIMEOUT_SECONDS": "10",
        "DREAMCHAT_MAX_DELAY_SECONDS": "1",
        "DREAMCHAT_MESSAGES_PER_MINUTE": "1000",  # the history test seeds many messages at once
        # the buttons compress and extract, not a background worker racing the test
        "DREAMCHAT_RUN_SCHEDULER": "false",
        **extra,
    }


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """`python -m dreamchat.api.server` on a free port, its LLM pointed at the fake."""
    with FakeLLMServer(default=companion) as llm:
        env = server_env(tmp_path_factory.mktemp("browser") / "data", llm)
        with running_server(env) as base:
            if httpx.get(f"{base}/").status_code != 200:
                pytest.fail(
                    "the server does not serve the web client at /: create_app must include "
                    "dreamchat.api.routers.web.router",
                    pytrace=False,
                )
            yield Stack(base, llm)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium driven by Playwright; missing Chromium is a failure, not a skip."""
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: the browser tests need Debian's Chromium "
            "(`apt-get install -y chromium fonts-noto-cjk`, see docs/web-client.md)",
            pytrace=False,
        )
    from playwright.sync_api import expect, sync_playwright

    # What a test waits for must appear, but a loaded CI machine (the other worker busy beside the
    # browser) may take more than Playwright's 5 s to draw it.
    expect.set_options(timeout=15_000)

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def open_context(browser: Any) -> Iterator[Any]:
    """Opens browser contexts (phone or desktop); a script error in any page fails the test."""
    contexts: list[Any] = []
    errors: list[str] = []

    def open_(size: dict[str, Any], **options: Any) -> Any:
        # a test may live elsewhere (timezone_id=...): the device's zone is the person's clock
        context = browser.new_context(**{"locale": "zh-CN", "timezone_id": "Asia/Shanghai", **size, **options})
        context.set_default_timeout(20_000)
        context.on("page", lambda page: watch(page, errors))
        contexts.append(context)
        return context

    yield open_
    for context in contexts:
        context.close()
    assert not errors, f"script errors in the page: {errors}"


def watch(page: Any, errors: list[str]) -> None:
    """Uncaught exceptions and console errors; failed requests are expected (offline, 401) and left out."""
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "console",
        lambda message: (
            message.type == "error"
            and not message.text.startswith("Failed to load resource")
            and errors.append(message.text)
        ),
    )


def screenshot(page: Any, name: str) -> None:
    """Into test-artifacts/screenshots; with WEB_DOC_SCREENSHOTS=1 a phone screen also goes to
    docs/screenshots at CSS size (390×844, small enough to commit) for docs/web-client.md."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))
    if os.environ.get("WEB_DOC_SCREENSHOTS") == "1" and "-phone" in name:
        DOC_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(DOC_SCREENSHOTS / f"{name}.png"), scale="css")
