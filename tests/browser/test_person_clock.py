"""The person's own clock and the per-friend heartbeat switch in the web client (issue 26, items 4-5)."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, Stack, bearer, screenshot
from tests.browser.test_web_client import open_logged_in

pytestmark = pytest.mark.browser


def profile(stack: Stack, account: dict[str, Any]) -> dict[str, Any]:
    return httpx.get(f"{stack.base}/api/profile", headers=bearer(account)).json()


def test_the_client_tells_the_server_its_devices_zone(stack: Stack, open_context) -> None:
    account = stack.register()
    assert profile(stack, account)["timezone"] is None
    page = open_context(PHONE, timezone_id="America/Los_Angeles").new_page()
    open_logged_in(page, stack, account, "/")
    deadline = time.monotonic() + 10
    while profile(stack, account)["timezone"] is None and time.monotonic() < deadline:
        time.sleep(0.2)
    assert profile(stack, account)["timezone"] == "America/Los_Angeles"


def test_heartbeats_are_switched_per_friend_from_the_chat_menu(stack: Stack, open_context) -> None:
    account = stack.register()
    ai_user = stack.create_ai_user(account, name="会来找你的阿青")
    page = open_context(PHONE).new_page()
    open_logged_in(page, stack, account, f"/chat/{ai_user['id']}")
    page.get_by_role("button", name="更多").click()
    page.get_by_role("menuitem", name="TA 主动找我：开启").click()
    dialog = page.get_by_role("dialog", name="TA 主动找我")
    expect(dialog).to_contain_text("「消息免打扰」只停止通知，不会停止 TA 主动发消息")
    dialog.get_by_text("仅定时").click()
    screenshot(page, "chat-heartbeat-mode-phone")
    dialog.get_by_role("button", name="保存").click()
    expect(page.locator(".toast")).to_have_text("TA 主动找我：仅定时")
    friends = httpx.get(f"{stack.base}/api/friends", headers=bearer(account)).json()["friends"]
    assert [f["heartbeat"] for f in friends] == ["scheduled"]
    page.get_by_role("button", name="更多").click()
    expect(page.get_by_role("menuitem", name="TA 主动找我：仅定时")).to_be_visible()
