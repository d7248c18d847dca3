"""A web client that never says what is not true (issue 40, part 3): the notification switch shows the real
subscription state, the memory view's headings follow the tiers, the chats stay readable offline."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, Stack, bearer, screenshot
from tests.browser.test_installable import controlled, logged_in_page
from tests.browser.test_web_client import open_logged_in

pytestmark = pytest.mark.browser

NEVER_SUBSCRIBES = "PushManager.prototype.subscribe = () => new Promise(() => {});"
REFUSES = "PushManager.prototype.subscribe = () => Promise.reject(new DOMException('no push service', 'AbortError'));"


@pytest.mark.parametrize("push_service", [NEVER_SUBSCRIBES, REFUSES], ids=["never-answers", "refuses"])
def test_the_push_switch_turns_off_and_says_why_when_the_subscription_never_comes(
    stack: Stack, open_context: Any, push_service: str
) -> None:
    account = stack.register()
    context = open_context(PHONE)
    context.grant_permissions(["notifications"], origin=stack.base)
    context.add_init_script(push_service)
    page = context.new_page()
    open_logged_in(page, stack, account, "/settings")
    switch = page.locator("#push-device")
    expect(switch).not_to_be_checked()
    expect(switch).to_be_enabled()
    switch.click()
    hint = page.locator("#push-device-hint")
    expect(hint).to_contain_text("通知没有开启", timeout=20_000)  # past the client's 10 s subscribe timeout
    expect(switch).not_to_be_checked()
    expect(switch).to_be_enabled()
    assert page.evaluate("navigator.serviceWorker.ready.then(r => r.pushManager.getSubscription())") is None
    screenshot(page, f"push-switch-error-{'timeout' if push_service == NEVER_SUBSCRIBES else 'refused'}-phone")


def test_chats_read_offline_from_what_the_device_kept_and_say_so(stack: Stack, open_context: Any) -> None:
    account = stack.register()
    ai = stack.create_ai_user(account, name="小梦")
    with httpx.Client(base_url=stack.base, headers=bearer(account), timeout=30) as api:
        for n in range(1, 61):  # more than the 50 the device keeps
            assert api.post(f"/api/ai-users/{ai['id']}/save-message", json={"content": f"第 {n} 条"}).status_code == 201
    context, page = logged_in_page(open_context, stack, account, f"/chat/{ai['id']}")
    controlled(page)
    expect(page.locator(".msg-me .bubble").last).to_have_text("第 60 条")
    page.wait_for_timeout(500)  # the kept copy is written after the first draw

    context.set_offline(True)
    page.reload()
    expect(page.locator("#offline")).to_be_visible()
    expect(page.locator(".msg-me .bubble").last).to_have_text("第 60 条")
    note = page.locator(".log .kept-note")
    expect(note).to_contain_text("离线")
    expect(note).to_contain_text("保存的内容")
    kept = page.locator(".msg-me .bubble")
    assert kept.count() <= 50 and kept.first.inner_text() == "第 11 条", kept.first.inner_text()
    screenshot(page, "offline-chat-kept-phone")

    page.goto(f"{stack.base}/#/")
    expect(page.locator(".friend").first).to_contain_text("小梦")
    expect(page.locator(".side .kept-note")).to_contain_text("离线")
    screenshot(page, "offline-list-kept-phone")

    # back online, the chat is the server's again and the note goes
    context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    page.goto(f"{stack.base}/#/chat/{ai['id']}")
    expect(page.locator(".msg-me .bubble").last).to_have_text("第 60 条")
    expect(page.locator(".log .kept-note")).to_have_count(0)
