"""A failed turn is retried without storing the message twice; long-press (touch) or right-click copies or deletes a message."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, PHONE, Stack, bearer, screenshot
from tests.browser.test_web_client import open_logged_in, send
from tests.fakes.fake_llm import Reply

pytestmark = pytest.mark.browser

SIZES = pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])


def stored(stack: Stack, account: dict[str, Any], ai_user_id: str) -> list[tuple[str, str]]:
    body = httpx.get(f"{stack.base}/api/ai-users/{ai_user_id}/messages", headers=bearer(account)).json()
    return [(m["role"], m["content"]) for m in body["messages"]]


@SIZES
def test_a_failed_turn_is_retried_and_the_message_is_stored_once(stack: Stack, open_context, size) -> None:
    account = stack.register()
    ai_user = stack.create_ai_user(account)
    page = open_context(size).new_page()
    open_logged_in(page, stack, account, f"/chat/{ai_user['id']}")
    stack.llm.script("deepseek-chat", Reply.error(500), Reply.text("刚才走神了，我在"))
    send(page, "你还在吗")
    failed = page.locator(".msg-me .msg-failed")
    expect(failed).to_contain_text("回复失败")
    expect(page.locator(".notice")).to_contain_text("重试")
    if size is PHONE:
        screenshot(page, "chat-retry-phone")
    failed.get_by_role("button", name="重试").click()
    expect(page.locator(".msg-list .msg-ai .bubble")).to_have_text(["刚才走神了，我在"], timeout=15_000)
    expect(page.locator(".msg-failed")).to_have_count(0)
    assert stored(stack, account, ai_user["id"]) == [("user", "你还在吗"), ("assistant", "刚才走神了，我在")]
    page.reload()
    expect(page.locator(".msg-list .bubble")).to_have_text(["你还在吗", "刚才走神了，我在"])


def open_menu(page: Any, bubble: Any, size: dict[str, Any]) -> None:
    if size is PHONE:  # a long press with a finger
        bubble.dispatch_event("pointerdown", {"pointerType": "touch", "isPrimary": True, "bubbles": True})
        page.wait_for_timeout(700)
        bubble.dispatch_event("pointerup", {"pointerType": "touch", "isPrimary": True, "bubbles": True})
    else:
        bubble.click(button="right")


@SIZES
def test_a_message_is_copied_or_deleted_from_its_menu(stack: Stack, open_context, size) -> None:
    account = stack.register()
    ai_user = stack.create_ai_user(account)
    for text in ("留着这句", "这句发错了"):
        saved = httpx.post(
            f"{stack.base}/api/ai-users/{ai_user['id']}/save-message", headers=bearer(account), json={"content": text}
        )
        assert saved.status_code == 201, saved.text
    context = open_context(size)
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=stack.base)
    page = context.new_page()
    open_logged_in(page, stack, account, f"/chat/{ai_user['id']}")
    bubbles = page.locator(".msg-list .bubble")
    expect(bubbles).to_have_text(["留着这句", "这句发错了"])

    open_menu(page, bubbles.first, size)
    menu = page.get_by_role("menu", name="消息操作")
    expect(menu).to_be_visible()
    if size is PHONE:
        screenshot(page, "chat-message-menu-phone")
    menu.get_by_role("menuitem", name="复制").click()
    expect(page.locator(".toast")).to_have_text("已复制")
    assert page.evaluate("() => navigator.clipboard.readText()") == "留着这句"
    expect(menu).to_have_count(0)

    open_menu(page, bubbles.last, size)
    menu = page.get_by_role("menu", name="消息操作")
    menu.get_by_role("menuitem", name="删除").click()
    menu.get_by_role("menuitem", name="确认删除").click()
    expect(bubbles).to_have_text(["留着这句"])
    assert stored(stack, account, ai_user["id"]) == [("user", "留着这句")]
    page.reload()
    expect(bubbles).to_have_text(["留着这句"])


def test_a_reload_after_a_failed_turn_still_offers_the_retry(stack: Stack, open_context) -> None:
    account = stack.register()
    ai_user = stack.create_ai_user(account)
    page = open_context(PHONE).new_page()
    open_logged_in(page, stack, account, f"/chat/{ai_user['id']}")
    stack.llm.script("deepseek-chat", Reply.error(500), Reply.text("刚才走神了，我在"))
    send(page, "你还在吗")
    expect(page.locator(".msg-me .msg-failed")).to_contain_text("回复失败")
    page.reload()
    unanswered = page.locator(".msg-me .msg-failed")
    expect(unanswered).to_contain_text("还没有回复")
    unanswered.get_by_role("button", name="重试").click()
    expect(page.locator(".msg-list .msg-ai .bubble")).to_have_text(["刚才走神了，我在"], timeout=15_000)
    expect(page.locator(".msg-failed")).to_have_count(0)
    assert stored(stack, account, ai_user["id"]) == [("user", "你还在吗"), ("assistant", "刚才走神了，我在")]
