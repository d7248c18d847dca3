"""What a person hits using the client for a day on a phone (issue 18): unread, Enter, order, memory, fonts, colours."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, HEARTBEAT_TEXT, PHONE, Stack, bearer, screenshot
from tests.browser.test_web_client import open_logged_in, send
from tests.fakes.fake_llm import Reply

pytestmark = pytest.mark.browser

SIZES = pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])


def unread(stack: Stack, account: dict[str, Any], ai_user_id: str) -> int:
    friends = httpx.get(f"{stack.base}/api/friends", headers=bearer(account)).json()["friends"]
    return next(f["unread"] for f in friends if f["id"] == ai_user_id)


@SIZES
def test_replies_watched_arrive_in_the_open_chat_are_not_counted_unread(stack: Stack, open_context, size) -> None:
    account = stack.register()
    ai_user = stack.create_ai_user(account, name="阿青")
    page = open_context(size).new_page()
    open_logged_in(page, stack, account, f"/chat/{ai_user['id']}")
    stack.llm.script("deepseek-chat", Reply.text("第一条回复\n第二条回复"))
    send(page, "今天好累")
    expect(page.locator(".msg-list .msg-ai .bubble")).to_have_text(["第一条回复", "第二条回复"], timeout=20_000)
    expect(page.locator(".typing")).to_be_hidden()

    # the server knows the person saw both replies: no badge anywhere, also after a reload
    deadline_ok = False
    for _ in range(20):
        if unread(stack, account, ai_user["id"]) == 0:
            deadline_ok = True
            break
        page.wait_for_timeout(250)
    assert deadline_ok, unread(stack, account, ai_user["id"])
    page.goto(f"{stack.base}/#/")
    page.reload()
    friend = page.locator(".friend", has_text="阿青")
    expect(friend).to_be_visible()
    expect(friend.locator(".unread")).to_have_count(0)
    # the chat list previews the last message and its time
    expect(friend.locator(".friend-preview")).to_have_text("第二条回复")
    expect(friend.locator(".friend-time")).to_have_text(re.compile(r"^\d\d:\d\d$"))
    if size is PHONE:
        screenshot(page, "chat-list-phone")

    # a message the person has not seen is still counted
    outcome = httpx.post(f"{stack.base}/api/heartbeat/trigger/{ai_user['id']}", headers=bearer(account)).json()
    assert outcome["status"] == "sent", outcome
    page.reload()
    expect(friend.locator(".unread")).to_have_text("1")
    expect(friend.locator(".friend-preview")).to_have_text(HEARTBEAT_TEXT)
    friend.click()
    expect(page.locator(".msg-heartbeat .bubble")).to_have_text(HEARTBEAT_TEXT)
    page.goto(f"{stack.base}/#/")
    expect(page.locator(".friend", has_text="阿青").locator(".unread")).to_have_count(0)
    assert unread(stack, account, ai_user["id"]) == 0


def test_marking_read_needs_a_message_of_the_conversation(stack: Stack) -> None:
    account = stack.register()
    ai_user = stack.create_ai_user(account)
    url = f"{stack.base}/api/ai-users/{ai_user['id']}/read"
    assert httpx.post(url, headers=bearer(account), json={"message_id": "zzzz"}).status_code == 404
    assert httpx.post(url, headers=bearer(account), json={}).status_code == 422
    assert httpx.post(url, json={"message_id": "x"}).status_code == 401


def test_enter_on_a_phone_keyboard_sends_as_its_key_says(stack: Stack, open_context) -> None:
    account = stack.register()
    ai_user = stack.create_ai_user(account)
    page = open_context(PHONE).new_page()
    open_logged_in(page, stack, account, f"/chat/{ai_user['id']}")
    box = page.get_by_label("输入消息")
    expect(box).to_have_attribute("enterkeyhint", "send")
    box.fill("按回车就发出去")
    box.press("Enter")
    expect(page.locator(".msg-me .bubble")).to_have_text(["按回车就发出去"])
    expect(box).to_have_value("")


@SIZES
def test_a_message_sent_while_the_ai_types_is_shown_where_it_is_stored(stack: Stack, open_context, size) -> None:
    account = stack.register()
    ai_user = stack.create_ai_user(account)
    page = open_context(size).new_page()
    open_logged_in(page, stack, account, f"/chat/{ai_user['id']}")
    stack.llm.script("deepseek-chat", Reply.text("甲的回复一\n甲的回复二"), Reply.text("乙的回复"))
    send(page, "消息甲")
    expect(page.get_by_text("对方正在输入…")).to_be_visible()
    send(page, "消息乙")
    bubbles = page.locator(".msg-list .bubble")
    expect(bubbles.last).to_have_text("消息乙")  # held back, last, until the AI's turn ends
    stored = ["消息甲", "甲的回复一", "甲的回复二", "消息乙", "乙的回复"]
    expect(bubbles).to_have_text(stored, timeout=15_000)
    expect(page.locator(".msg-pending")).to_have_count(0)
    page.reload()
    expect(bubbles).to_have_text(stored)


@SIZES
def test_the_ai_is_shown_thinking_from_sending_until_its_first_message(stack: Stack, open_context, size) -> None:
    account = stack.register()
    ai_user = stack.create_ai_user(account)
    page = open_context(size).new_page()
    open_logged_in(page, stack, account, f"/chat/{ai_user['id']}")
    stack.llm.script("deepseek-chat", Reply.slow(2, "想好了"))
    send(page, "你在想什么")
    status = page.locator(".chat-status")
    expect(status).to_have_text("对方正在思考…")
    expect(page.locator(".msg-list .msg-ai")).to_have_count(0)
    if size is PHONE:
        screenshot(page, "chat-thinking-phone")
    expect(page.locator(".msg-list .msg-ai .bubble")).to_have_text(["想好了"])
    expect(status).not_to_contain_text("思考")


def test_deleting_a_short_term_line_warns_that_the_chat_message_goes_too(stack: Stack, open_context) -> None:
    account = stack.register()
    ai_user = stack.create_ai_user(account)
    saved = httpx.post(
        f"{stack.base}/api/ai-users/{ai_user['id']}/save-message",
        headers=bearer(account),
        json={"content": "这句话要删掉"},
    )
    assert saved.status_code == 201, saved.text
    page = open_context(PHONE).new_page()
    open_logged_in(page, stack, account, f"/memory/{ai_user['id']}")
    short = page.locator('[data-tier="short"]')
    expect(short).to_contain_text("这句话要删掉")
    short.get_by_role("button", name="删除").first.click()
    confirm = short.get_by_role("button", name=re.compile("聊天记录"))
    expect(confirm).to_be_visible()
    confirm.click()
    expect(short).not_to_contain_text("这句话要删掉")


@SIZES
def test_ones_own_private_ai_stays_reachable_after_unfriending(stack: Stack, open_context, size) -> None:
    account = stack.register()
    ai_user = stack.create_ai_user(account, name="私藏的小岛", visibility="private")
    removed = httpx.delete(f"{stack.base}/api/friends/{ai_user['id']}", headers=bearer(account))
    assert removed.status_code == 200, removed.text
    page = open_context(size).new_page()
    open_logged_in(page, stack, account, "/discover")
    mine = page.get_by_role("list", name="我创建的")
    card = mine.locator(".discover-card", has_text="私藏的小岛")
    card.get_by_role("button", name="加好友").click()
    expect(card.get_by_role("button", name="去聊天")).to_be_visible()
    if size is DESKTOP:  # the friends list is the home screen on a phone
        expect(page.locator(".friend", has_text="私藏的小岛")).to_be_visible()
    else:
        screenshot(page, "discover-mine-phone")
    card.get_by_role("button", name="去聊天").click()
    expect(page.locator(".chat-name")).to_have_text("私藏的小岛")


def test_digits_and_spaces_never_come_from_an_emoji_font(stack: Stack, open_context) -> None:
    account = stack.register()
    page = open_context(PHONE).new_page()
    open_logged_in(page, stack, account, "/")
    stack_names = page.evaluate("() => getComputedStyle(document.body).fontFamily")
    faces = page.evaluate("""() => [...document.styleSheets].flatMap((sheet) => [...sheet.cssRules])
        .filter((rule) => rule instanceof CSSFontFaceRule)
        .map((rule) => ({family: rule.style.getPropertyValue('font-family').replace(/["']/g, ''),
                         range: rule.style.getPropertyValue('unicode-range')}))""")
    ranges = {face["family"]: face["range"] for face in faces}
    for family in (name.strip().strip('"') for name in stack_names.split(",")):
        if "emoji" in family.lower():
            assert family in ranges, f"{family} is named in the font stack without a unicode-range"
            assert not covers(ranges[family], [0x20, *range(0x30, 0x3A)]), ranges[family]
    assert "WenQuanYi Micro Hei" in stack_names

    # what Chromium draws "2 5 岁" with
    page.evaluate("""() => { const el = document.createElement('p');
        el.id = 'probe'; el.textContent = '2 5 岁'; document.body.append(el); }""")
    cdp = page.context.new_cdp_session(page)
    root = cdp.send("DOM.getDocument")["root"]["nodeId"]
    node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": "#probe"})["nodeId"]
    cdp.send("CSS.enable")
    fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
    assert fonts and not any("emoji" in font["familyName"].lower() for font in fonts), fonts


def covers(unicode_range: str, points: list[int]) -> bool:
    spans = []
    for part in unicode_range.replace("U+", "").replace("u+", "").split(","):
        low, _, high = part.strip().partition("-")
        spans.append((int(low, 16), int(high or low, 16)))
    return any(low <= p <= high for p in points for low, high in spans)


def contrast(one: str, other: str) -> float:
    def luminance(colour: str) -> float:
        value = colour.strip().lstrip("#")
        channels = [int(value[i : i + 2], 16) / 255 for i in (0, 2, 4)]
        r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    low, high = sorted([luminance(one), luminance(other)])
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_palettes_text_colours_meet_wcag_aa(stack: Stack, open_context, scheme: str) -> None:
    account = stack.register()
    page = open_context(PHONE, color_scheme=scheme).new_page()
    open_logged_in(page, stack, account, "/")
    colours = page.evaluate("""() => Object.fromEntries(
        ['--bg', '--surface', '--surface-2', '--text', '--text-2', '--text-3', '--accent-text', '--me-1', '--me-2']
        .map((name) => [name, getComputedStyle(document.documentElement).getPropertyValue(name).trim()]))""")
    failing = {}
    for text in ("--text", "--text-2", "--text-3", "--accent-text"):
        for ground in ("--bg", "--surface", "--surface-2"):
            ratio = contrast(colours[text], colours[ground])
            if ratio < 4.5:
                failing[f"{text} on {ground}"] = round(ratio, 2)
    for bubble in ("--me-1", "--me-2"):  # white text on both ends of the person's bubble
        ratio = contrast("#ffffff", colours[bubble])
        if ratio < 4.5:
            failing[f"white on {bubble}"] = round(ratio, 2)
    assert not failing, (scheme, failing)
