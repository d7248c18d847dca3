"""Protections a companion must give (issue 38), in the web client: every notice (the AI disclosure, reality,
over-dependence, the daily limit, the minors' block, a guardian's consent) is a system card in the chat and never
the AI's words; 保护设置 saves only what changed and shows a 422; the birth year is asked once on first use; and
停止陪伴 marks the friend as stopped."""

from __future__ import annotations

import datetime
import json
import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PASSWORD, PHONE, Stack, bearer, screenshot
from tests.browser.test_web_client import open_logged_in, send

pytestmark = pytest.mark.browser

THIS_YEAR = datetime.datetime.now(datetime.UTC).year
CHAT = re.compile(r"/api/ai-users/[^/]+/chat$")


def protect(stack: Stack, account: dict[str, Any], **changes: Any) -> dict[str, Any]:
    response = httpx.put(f"{stack.base}/api/profile/protection", headers=bearer(account), json=changes)
    assert response.status_code == 200, response.text
    return response.json()


def as_sse(*notices: dict[str, str]) -> str:
    return "".join(f"event: notice\r\ndata: {json.dumps(n, ensure_ascii=False)}\r\n\r\n" for n in notices)


def test_every_notice_of_the_stream_is_a_system_card_not_an_ai_bubble(stack: Stack, open_context) -> None:
    account = stack.register()
    ai_user = stack.create_ai_user(account, name="小梦")
    page = open_context(PHONE).new_page()
    open_logged_in(page, stack, account, f"/chat/{ai_user['id']}")
    added = [
        {"kind": "reality", "text": "你已经连续聊了 30 分钟，起来活动一下吧。"},
        {"kind": "dependence", "text": "最近你每天聊得很久。TA 是 AI，记得多陪陪身边的人。"},
        {"kind": "daily_limit", "text": "今天的使用时间还剩 10 分钟。"},
    ]

    def with_notices(route: Any) -> None:
        response = route.fetch()
        route.fulfill(response=response, body=as_sse(*added) + response.text())

    page.route(CHAT, with_notices)
    send(page, "今天好累")
    expect(page.locator(".msg-list .msg-ai .bubble")).to_have_count(1, timeout=15_000)
    for notice in added:
        card = page.locator(f'.system-notice[data-kind="{notice["kind"]}"]')
        expect(card).to_have_text(notice["text"])
        expect(page.locator(".bubble", has_text=notice["text"])).to_have_count(0)
    # the session's AI disclosure, from the real server, is a card too
    expect(page.locator('.system-notice[data-kind="ai_disclosure"]').first).to_contain_text("AI")
    expect(page.locator(".msg .system-notice")).to_have_count(0)
    screenshot(page, "protection-notices-phone")


def test_the_login_disclosure_shows_once_in_the_next_chat(stack: Stack, open_context) -> None:
    account = stack.register()
    ai_user = stack.create_ai_user(account, name="小梦")
    page = open_context(PHONE).new_page()
    page.goto(stack.base)
    page.get_by_label("用户名").fill(account["user"]["username"])
    page.get_by_label("密码").fill(PASSWORD)
    page.get_by_role("button", name="登录", exact=True).click()
    page.get_by_role("button", name="跳过").click()  # the first-use birth-year prompt
    page.locator(".friend", has_text="小梦").click()
    card = page.locator('.system-notice[data-kind="ai_disclosure"]')
    expect(card).to_have_count(1)
    expect(card).to_contain_text("AI")
    send(page, "在吗")  # the session's first reply brings the server's disclosure: the same words, one card
    expect(page.locator(".msg-list .msg-ai .bubble").first).to_be_visible(timeout=15_000)
    expect(card).to_have_count(1)
    page.goto(f"{stack.base}/#/")
    page.goto(f"{stack.base}/#/chat/{ai_user['id']}")
    expect(page.locator(".chat-name")).to_have_text("小梦")
    expect(page.locator('.system-notice[data-kind="ai_disclosure"]')).to_have_count(0)


def test_a_daily_limit_refusal_is_a_card_and_the_message_goes_back(stack: Stack, open_context) -> None:
    account = stack.register()
    ai_user = stack.create_ai_user(account, name="小梦")
    page = open_context(PHONE).new_page()
    open_logged_in(page, stack, account, f"/chat/{ai_user['id']}")
    body = {"error": {"code": "daily_limit", "message": "daily limit reached"}}
    page.route(CHAT, lambda route: route.fulfill(status=403, json=body))
    send(page, "还想再聊")
    card = page.locator('.system-notice[data-kind="daily_limit"]')
    expect(card).to_contain_text("今天的使用时间已经用完了")
    expect(page.locator("#composer-input")).to_have_value("还想再聊")
    expect(page.locator(".msg-list .msg-ai")).to_have_count(0)
    screenshot(page, "protection-daily-limit-phone")


def test_a_minor_without_consent_is_sent_to_record_it_then_a_romance_character_is_closed(
    stack: Stack, open_context
) -> None:
    account = stack.register()
    ai_user = stack.create_ai_user(account, name="小梦")
    protect(stack, account, birth_year=THIS_YEAR - 15)
    page = open_context(PHONE).new_page()
    open_logged_in(page, stack, account, f"/chat/{ai_user['id']}")
    send(page, "你好")
    card = page.locator('.system-notice[data-kind="guardian_consent_required"]')
    expect(card).to_contain_text("监护人同意")
    expect(page.locator(".msg-list .msg-ai .bubble")).to_have_count(0)
    screenshot(page, "protection-consent-phone")

    card.get_by_role("link", name="去保护设置").click()
    form = page.get_by_role("form", name="保护设置")
    expect(form).to_be_visible()
    expect(page.locator("#prot-minor-mode")).to_be_checked()
    expect(page.locator("#prot-minor-mode")).to_be_disabled()
    expect(page.locator("#prot-minor-hint")).to_contain_text("未满 18 岁")
    page.locator("#prot-consent").check()
    page.locator("#prot-guardian-name").fill("王芳")
    form.get_by_role("button", name="保存保护设置").click()
    expect(page.get_by_text("保护设置已保存")).to_be_visible()
    page.reload()
    expect(page.locator("#prot-consent")).to_be_checked()
    expect(page.locator("#prot-guardian-name")).to_have_value("王芳")

    # with consent recorded the chat is open; a romance character stays closed in minors' mode
    romance = stack.create_ai_user(account, name="恋人", romance=True)
    page.goto(f"{stack.base}/#/chat/{romance['id']}")
    send(page, "在吗")
    blocked = page.locator('.system-notice[data-kind="minor_protection"]')
    expect(blocked).to_contain_text("未成年人模式")
    expect(page.locator(".msg-list .msg-ai .bubble")).to_have_count(0)
    screenshot(page, "protection-minor-block-phone")


def test_protection_settings_save_what_changed_and_show_a_422(stack: Stack, open_context) -> None:
    account = stack.register()
    page = open_context(PHONE).new_page()
    puts: list[dict[str, Any]] = []
    page.on("request", lambda r: r.method == "PUT" and "protection" in r.url and puts.append(r.post_data_json))
    open_logged_in(page, stack, account, "/settings/protection")
    form = page.get_by_role("form", name="保护设置")
    save = form.get_by_role("button", name="保存保护设置")

    page.locator("#prot-birth-year").fill("1800")
    save.click()
    expect(page.locator("#prot-error")).to_contain_text("1900")
    assert puts[-1] == {"birth_year": 1800}, puts

    page.locator("#prot-birth-year").fill(str(THIS_YEAR - 65))
    save.click()
    expect(page.get_by_text("保护设置已保存")).to_be_visible()
    expect(page.locator("#prot-contact-suggest")).to_be_visible()  # over 60: an emergency contact is suggested
    page.locator("#prot-contact-name").fill("李明")
    page.locator("#prot-contact-phone").fill("13800138000")
    page.locator("#prot-daily-minutes").fill("90")
    save.click()
    expect(page.locator("#prot-contact-suggest")).to_be_hidden()
    assert puts[-1] == {"daily_minutes": 90, "emergency_contact": {"name": "李明", "phone": "13800138000"}}, puts
    screenshot(page, "protection-settings-phone")
    page.reload()
    expect(page.locator("#prot-birth-year")).to_have_value(str(THIS_YEAR - 65))
    expect(page.locator("#prot-contact-name")).to_have_value("李明")
    expect(page.locator("#prot-daily-minutes")).to_have_value("90")
    expect(page.locator("#prot-minor-mode")).to_be_enabled()


def test_the_birth_year_is_asked_once_on_first_use(stack: Stack, open_context) -> None:
    account = stack.register()
    page = open_context(PHONE).new_page()

    def log_in() -> None:
        page.goto(stack.base)
        page.get_by_label("用户名").fill(account["user"]["username"])
        page.get_by_label("密码").fill(PASSWORD)
        page.get_by_role("button", name="登录", exact=True).click()

    log_in()
    dialog = page.locator(".birth-year-dialog")
    expect(dialog).to_be_visible()
    screenshot(page, "protection-birth-year-phone")
    dialog.get_by_label("出生年份").fill(str(THIS_YEAR - 30))
    dialog.get_by_role("button", name="保存").click()
    expect(dialog).to_have_count(0)
    got = httpx.get(f"{stack.base}/api/profile/protection", headers=bearer(account)).json()
    assert got["birth_year"] == THIS_YEAR - 30 and got["minor"] is False, got

    page.evaluate("() => localStorage.removeItem('dreamchat.session')")
    log_in()
    expect(page.get_by_role("list", name="好友列表")).to_be_attached()
    page.wait_for_timeout(500)
    expect(page.locator(".birth-year-dialog")).to_have_count(0)


def test_stopping_the_companion_marks_the_friend_until_the_person_writes(stack: Stack, open_context) -> None:
    account = stack.register()
    ai_user = stack.create_ai_user(account, name="小梦")
    page = open_context(PHONE).new_page()
    open_logged_in(page, stack, account, f"/chat/{ai_user['id']}")
    page.get_by_role("button", name="更多").click()
    page.get_by_role("menuitem", name="停止陪伴").click()
    dialog = page.locator(".stop-dialog")
    expect(dialog).to_contain_text("不会再主动找你")
    dialog.get_by_role("button", name="停止陪伴").click()
    expect(page.locator('.system-notice[data-kind="stopped"]')).to_be_visible()
    friends = httpx.get(f"{stack.base}/api/friends", headers=bearer(account)).json()
    entry = next(f for f in friends["friends"] if f["id"] == ai_user["id"])
    assert entry["stopped"] is True, entry
    page.goto(f"{stack.base}/#/")
    mark = page.locator(".friend", has_text="小梦").locator(".stopped-mark")
    expect(mark).to_have_text("已停止")
    screenshot(page, "protection-stopped-phone")

    page.locator(".friend", has_text="小梦").click()
    send(page, "我回来了")
    expect(page.locator(".msg-list .msg-ai .bubble")).not_to_have_count(0, timeout=15_000)
    page.goto(f"{stack.base}/#/")
    expect(page.locator(".friend", has_text="小梦").locator(".stopped-mark")).to_have_count(0)
