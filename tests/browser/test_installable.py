"""The installable app in Chromium: the manifest as Chromium reads it, the service worker serving the
shell offline, a pushed message shown as a notification that opens its chat, and presence calls that
stop when the page is hidden."""

from __future__ import annotations

import json
import struct
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.conftest import PHONE, Stack, bearer, screenshot, session_json

pytestmark = pytest.mark.browser

WEB = Path(__file__).resolve().parents[2] / "shared" / "dreamchat" / "web"


def logged_in_page(
    open_context: Any, stack: Stack, account: dict[str, Any], path: str = "/", prepare: Any = None
) -> Any:
    """A phone page logged in as `account` showing `path` (`prepare(context, page)` runs before the first load)."""
    context = open_context(PHONE)
    page = context.new_page()
    if prepare is not None:
        prepare(context, page)
    page.goto(f"{stack.base}/#/login")
    page.evaluate("value => localStorage.setItem('dreamchat.session', value)", session_json(account))
    page.goto(f"{stack.base}/#{path}")
    return context, page


def until(page: Any, expression: str, timeout: float = 10.0) -> None:
    """Poll an expression (page.wait_for_function evaluates strings, which the app's CSP forbids)."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"never true: {expression}"
        time.sleep(0.05)


def controlled(page: Any) -> None:
    """The service worker is active and controls the page (on the first load it claims it)."""
    until(page, "navigator.serviceWorker.controller !== null")
    state = page.evaluate("navigator.serviceWorker.ready.then((r) => r.active && r.active.state)")
    assert state == "activated"


def test_the_manifest_is_valid_and_installable_as_chromium_reads_it(open_context, stack) -> None:
    response = httpx.get(f"{stack.base}/manifest.webmanifest")
    assert response.headers["content-type"] == "application/manifest+json"
    context = open_context(PHONE)
    page = context.new_page()
    page.goto(stack.base)
    controlled(page)
    cdp = context.new_cdp_session(page)
    found = cdp.send("Page.getAppManifest")
    assert found["url"] == f"{stack.base}/manifest.webmanifest"
    assert found["errors"] == []
    parsed = found["manifest"]
    assert parsed["display"] == "kStandalone" and parsed["scope"] == parsed["startUrl"] == f"{stack.base}/"
    assert parsed["themeColor"] == parsed["backgroundColor"] == "rgba(245,244,250,1)"
    icons = {icon["url"].removeprefix(stack.base): icon["sizes"] for icon in parsed["icons"]}
    assert icons["/static/icons/maskable-512.png"] == icons["/static/icons/icon-512.png"] == "512x512"
    raw = {icon["src"]: icon["purpose"] for icon in json.loads(found["data"])["icons"]}
    assert raw["/static/icons/maskable-192.png"] == raw["/static/icons/maskable-512.png"] == "maskable"
    errors = [e["errorId"] for e in cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]]
    assert [e for e in errors if e != "in-incognito"] == []  # a Playwright context is incognito: nothing else


def test_each_icon_is_the_png_the_manifest_says(stack) -> None:
    manifest = json.loads((WEB / "manifest.webmanifest").read_text())
    for icon in manifest["icons"]:
        if icon["type"] != "image/png":
            continue
        data = httpx.get(f"{stack.base}{icon['src']}").content
        width, height = struct.unpack(">II", data[16:24])
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and f"{width}x{height}" == icon["sizes"], icon["src"]
    assert manifest["theme_color"] != manifest["user_preferences"]["color_scheme_dark"]["theme_color"]


def test_the_shell_opens_offline_and_says_so(open_context, stack) -> None:
    account = stack.register("off")
    context, page = logged_in_page(open_context, stack, account)
    controlled(page)
    page.get_by_role("link", name="发现").first.wait_for()
    context.set_offline(True)
    page.reload()
    banner = page.locator("#offline")
    banner.wait_for(state="visible")
    assert "离线" in banner.inner_text()
    assert page.locator("#app").is_visible()
    screenshot(page, "offline-phone")
    context.set_offline(False)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    banner.wait_for(state="hidden")


def test_a_pushed_message_shows_a_notification_whose_tap_opens_the_chat(open_context, stack) -> None:
    account = stack.register("push")
    ai = stack.create_ai_user(account, name="小梦")
    registrations: list[str] = []

    def watch_registrations(context: Any, page: Any) -> None:
        context.grant_permissions(["notifications"], origin=stack.base)
        cdp = context.new_cdp_session(page)
        cdp.on(
            "ServiceWorker.workerRegistrationUpdated",
            lambda e: registrations.extend(r["registrationId"] for r in e["registrations"]),
        )
        cdp.send("ServiceWorker.enable")
        watch_registrations.cdp = cdp

    context, page = logged_in_page(open_context, stack, account, prepare=watch_registrations)
    cdp = watch_registrations.cdp
    controlled(page)
    assert registrations, "Chromium reported the registration"
    note = {
        "v": 1, "ai_user_id": ai["id"], "name": "小梦", "avatar": "🌙", "body": "在干嘛呢？想你了", "count": 1,
        "tag": f"chat-{ai['id']}", "url": f"/#/chat/{ai['id']}", "message_id": "m1", "timestamp": 1773576000,
    }  # fmt: skip
    cdp.send(
        "ServiceWorker.deliverPushMessage",
        {"origin": stack.base, "registrationId": registrations[-1], "data": json.dumps(note, ensure_ascii=False)},
    )
    until(page, "navigator.serviceWorker.ready.then(r => r.getNotifications()).then(n => n.length === 1)")
    shown = page.evaluate(
        "navigator.serviceWorker.ready.then(r => r.getNotifications())"
        ".then(([n]) => ({title: n.title, body: n.body, tag: n.tag, data: n.data, icon: n.icon}))"
    )
    assert shown["title"] == "🌙 小梦" and shown["body"] == "在干嘛呢？想你了" and shown["tag"] == f"chat-{ai['id']}"
    assert shown["icon"].endswith("/static/icons/icon-192.png")
    [worker] = context.service_workers
    worker.evaluate("self.registration.getNotifications().then(([n]) => openNotification(n))")
    page.wait_for_url(f"**/#/chat/{ai['id']}")
    assert page.evaluate("navigator.serviceWorker.ready.then(r => r.getNotifications()).then(n => n.length)") == 0


def test_presence_is_sent_while_visible_and_stops_when_hidden(open_context, stack) -> None:
    account = stack.register("here")
    ai = stack.create_ai_user(account, name="小梦")
    calls: list[dict[str, Any]] = []

    def hidable_with_a_clock(context: Any, page: Any) -> None:
        context.add_init_script(
            "Object.defineProperty(document, 'visibilityState', {get: () => window.__hidden ? 'hidden' : 'visible'});"
        )
        page.on("request", lambda r: r.url.endswith("/api/presence") and calls.append(json.loads(r.post_data or "{}")))
        page.clock.install()

    context, page = logged_in_page(open_context, stack, account, f"/chat/{ai['id']}", prepare=hidable_with_a_clock)
    page.get_by_role("textbox").first.wait_for()
    assert calls and calls[-1]["ai_user_id"] == ai["id"] and calls[-1]["visible"] is True
    before = len(calls)
    page.clock.run_for(31_000)
    page.wait_for_timeout(200)
    assert len(calls) == before + 1  # the 30 s beat
    page.evaluate("window.__hidden = true; document.dispatchEvent(new Event('visibilitychange'))")
    page.wait_for_timeout(200)
    assert calls[-1]["visible"] is False
    hidden_at = len(calls)
    page.clock.run_for(120_000)
    page.wait_for_timeout(200)
    assert len(calls) == hidden_at  # nothing while hidden
    page.evaluate("window.__hidden = false; document.dispatchEvent(new Event('visibilitychange'))")
    page.wait_for_timeout(200)
    assert calls[-1] == {"ai_user_id": ai["id"], "device": calls[0]["device"], "visible": True}
    page.evaluate("location.hash = '#/'")
    page.wait_for_timeout(200)
    assert calls[-1]["ai_user_id"] is None  # the list
    state = httpx.get(f"{stack.base}/api/push/settings", headers=bearer(account)).json()
    assert state == {"show_content": True}


def test_the_notification_settings(open_context, stack) -> None:
    account = stack.register("set")
    context, page = logged_in_page(open_context, stack, account, "/settings")
    content = page.get_by_label("通知显示消息内容")
    content.wait_for()
    assert content.is_checked()
    page.get_by_role("region", name="通知").evaluate("el => el.scrollIntoView({block: 'start'})")
    screenshot(page, "notification-settings-phone")
    page.locator("label[for=push-content]").click()
    until(page, "document.getElementById('push-content').checked === false")
    page.wait_for_timeout(300)
    assert httpx.get(f"{stack.base}/api/push/settings", headers=bearer(account)).json() == {"show_content": False}
    assert page.get_by_label("在这台设备上接收通知").is_visible()
