"""A new chat is not empty: the AI user's opening message, set in the editor, shown and stored once; 关于我 is written once."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, PHONE, Stack, bearer, screenshot
from tests.browser.test_web_client import open_logged_in

pytestmark = pytest.mark.browser

SIZES = pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
GREETING = "嗨，我是海风～今天过得怎么样？"


@SIZES
def test_the_greeting_set_in_the_editor_opens_a_new_chat_once(stack: Stack, open_context, size) -> None:
    account = stack.register()
    page = open_context(size).new_page()
    open_logged_in(page, stack, account, "/new")
    page.get_by_label("名字").fill("海风")
    page.get_by_label("开场白").fill(GREETING)
    page.get_by_role("button", name="创建", exact=True).click()
    expect(page.locator(".chat-name")).to_have_text("海风")
    ai_id = page.url.rsplit("/", 1)[1]
    expect(page.locator(".msg-list .msg-ai .bubble")).to_have_text([GREETING])
    expect(page.locator(".chat-empty")).to_be_hidden()
    if size is PHONE:
        screenshot(page, "chat-greeting-phone")

    page.reload()
    expect(page.locator(".msg-list .bubble")).to_have_text([GREETING])
    body = httpx.get(f"{stack.base}/api/ai-users/{ai_id}/messages", headers=bearer(account)).json()
    assert [(m["role"], m["kind"], m["content"]) for m in body["messages"]] == [("assistant", "greeting", GREETING)]
    friends = httpx.get(f"{stack.base}/api/friends", headers=bearer(account)).json()["friends"]
    assert [f["unread"] for f in friends] == [0]  # seen when it was shown

    # the owner edits it; the edit form shows it
    page.goto(f"{stack.base}/#/edit/{ai_id}")
    expect(page.get_by_label("开场白")).to_have_value(GREETING)


@SIZES
def test_about_me_is_written_once_in_settings(stack: Stack, open_context, size) -> None:
    account = stack.register()
    page = open_context(size).new_page()
    open_logged_in(page, stack, account, "/settings")
    about = page.get_by_role("form", name="关于我")
    about.get_by_label("关于我").fill("我叫小林，在杭州做设计，对芒果过敏。")
    about.get_by_role("button", name="保存关于我").click()
    expect(page.locator(".toast")).to_contain_text("已保存")
    if size is PHONE:
        screenshot(page, "settings-about-phone")
    page.reload()
    expect(page.get_by_role("form", name="关于我").get_by_label("关于我")).to_have_value(
        "我叫小林，在杭州做设计，对芒果过敏。"
    )
    assert httpx.get(f"{stack.base}/api/profile", headers=bearer(account)).json() == {
        "about_me": "我叫小林，在杭州做设计，对芒果过敏。",
        "timezone": "Asia/Shanghai",  # the device's zone, sent by the client (issue 26)
        "nickname": None,
    }
