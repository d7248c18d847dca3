"""A web client that never says what is not true (issue 40, part 3): the notification switch shows the real
subscription state, the memory view's headings follow the tiers, the chats stay readable offline."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, Stack, screenshot
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
