"""Control over what the AI sends first, and over the chat list (issue 18): heartbeat settings, scheduled
heartbeats with cancel, pin and mute."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, PHONE, Stack, bearer, screenshot
from tests.browser.test_web_client import open_logged_in
from tests.fakes.fake_llm import Reply

pytestmark = pytest.mark.browser

SIZES = pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])


def chat(stack: Stack, account: dict[str, Any], ai_user_id: str, content: str) -> str:
    response = httpx.post(f"{stack.base}/api/ai-users/{ai_user_id}/chat", headers=bearer(account),
                          json={"content": content}, timeout=30)
    assert response.status_code == 200, response.text
    return response.text


def prefs(stack: Stack, account: dict[str, Any]) -> dict[str, Any]:
    return httpx.get(f"{stack.base}/api/heartbeat/status", headers=bearer(account)).json()["prefs"]


@SIZES
def test_heartbeat_settings_round_trip(stack: Stack, open_context, size) -> None:
    account = stack.register()
    stack.create_ai_user(account)
    page = open_context(size).new_page()
    open_logged_in(page, stack, account, "/")
    page.get_by_role("link", name="主动消息设置").click()
    form = page.get_by_role("form", name="主动消息设置")
    enabled = form.get_by_label("允许 AI 主动找我")
    expect(enabled).to_be_checked()
    expect(form.get_by_label("每天最多几条未回复的")).to_have_value("5")
    expect(form.get_by_label("夜间开始")).to_be_hidden()
    if size is PHONE:
        screenshot(page, "heartbeat-settings-phone")

    enabled.uncheck()
    form.get_by_label("自定义夜间时段").check()
    form.get_by_label("夜间开始").select_option("22")
    form.get_by_label("夜间结束").select_option("6")
    form.get_by_label("每天最多几条未回复的").fill("3")
    form.get_by_label("我说话后安静几分钟").fill("30")
    form.get_by_role("button", name="保存").click()
    expect(page.locator(".toast")).to_have_text("已保存")
    assert {k: v for k, v in prefs(stack, account).items() if k != "max_backoff" and k != "pause_after_days"} == {
        "enabled": False, "night_start": 22, "night_end": 6, "daily_cap": 3, "quiet_minutes": 30}

    page.reload()
    form = page.get_by_role("form", name="主动消息设置")
    expect(form.get_by_label("允许 AI 主动找我")).not_to_be_checked()
    expect(form.get_by_label("自定义夜间时段")).to_be_checked()
    expect(form.get_by_label("夜间开始")).to_have_value("22")
    expect(form.get_by_label("夜间结束")).to_have_value("6")
    expect(form.get_by_label("每天最多几条未回复的")).to_have_value("3")
    expect(form.get_by_label("我说话后安静几分钟")).to_have_value("30")

    # back to each friend's own rhythm; a bad number is refused in the page, nothing is sent
    form.get_by_label("自定义夜间时段").uncheck()
    form.get_by_label("每天最多几条未回复的").fill("101")
    form.get_by_role("button", name="保存").click()
    expect(form.get_by_role("alert")).to_contain_text("0 到 100")
    assert prefs(stack, account)["daily_cap"] == 3
    form.get_by_label("每天最多几条未回复的").fill("4")
    form.get_by_role("button", name="保存").click()
    expect(form.locator(".form-error")).to_have_text("")
    expect(page.locator(".toast")).to_have_text("已保存")
    saved = prefs(stack, account)
    assert saved["daily_cap"] == 4 and saved["night_start"] == saved["night_end"]


@SIZES
def test_a_scheduled_heartbeat_is_listed_and_cancelled(stack: Stack, open_context, size) -> None:
    account = stack.register()
    ai_user = stack.create_ai_user(account, name="闹钟小梦")
    stack.llm.script("deepseek-chat",
                     Reply.tools(("set_scheduled_heartbeat", {"hour": 9, "minute": 0, "message_template": "叫你起床"})),
                     Reply.text("好，每天 9 点叫你起床"),
                     Reply.tools(("set_scheduled_heartbeat", {"hour": 22, "minute": 30, "message_template": "提醒早点睡"})),
                     Reply.text("好"))
    chat(stack, account, ai_user["id"], "每天 9 点叫我起床")
    chat(stack, account, ai_user["id"], "晚上十点半提醒我睡觉")
    page = open_context(size).new_page()
    open_logged_in(page, stack, account, "/settings")
    times = page.get_by_role("list", name="闹钟小梦")
    expect(times.locator(".scheduled-time")).to_have_text(["09:00", "22:30"])
    expect(times.locator(".scheduled-text")).to_have_text(["叫你起床", "提醒早点睡"])
    if size is PHONE:
        page.locator(".scheduled").scroll_into_view_if_needed()
        screenshot(page, "heartbeat-scheduled-phone")
    times.get_by_role("button", name="取消 09:00").click()
    expect(times.locator(".scheduled-time")).to_have_text(["22:30"])
    listed = httpx.get(f"{stack.base}/api/heartbeat/scheduled/{ai_user['id']}", headers=bearer(account)).json()
    assert [(s["hour"], s["minute"]) for s in listed["scheduled"]] == [(22, 30)]
    page.reload()
    expect(page.get_by_role("list", name="闹钟小梦").locator(".scheduled-time")).to_have_text(["22:30"])
