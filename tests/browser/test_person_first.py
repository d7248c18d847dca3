"""The person comes first (issue 23), in the web client: every AI friend is labelled as AI, a crisis message is met
with help lines on a card that stays in the chat, and the break reminder is an in-app notice, not the AI's words.

The server here runs as `make run` does without any model key (offline): the crisis protocol must hold there too.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from dreamchat.crisis_data import default_help_lines
from dreamchat.domain.sessions import BREAK_NOTICE
from tests.browser.conftest import DESKTOP, PHONE, Stack, bearer, screenshot, session_json
from tests.browser.test_daily_use import contrast
from tests.browser.test_web_client import open_logged_in, send
from tests.fakes.server import running_server

pytestmark = pytest.mark.browser

SIZES = pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
CRISIS = "我今晚就准备自杀"


@pytest.fixture(scope="module")
def offline(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """The local server with no model key: the offline provider answers."""
    env = {
        "DREAMCHAT_DATA_DIR": str(tmp_path_factory.mktemp("person-first") / "data"),
        "DREAMCHAT_MAX_DELAY_SECONDS": "1",
        "DREAMCHAT_MESSAGES_PER_MINUTE": "1000",
        "DREAMCHAT_RUN_SCHEDULER": "false",
    }
    with running_server(env) as base:
        assert httpx.get(f"{base}/api/health").json()["llm"] == "offline"
        yield Stack(base, llm=None)  # type: ignore[arg-type]


def help_lines(stack: Stack, account: dict[str, Any]) -> list[dict[str, str]]:
    """The server's help lines, as save-message returns them (on an AI user of its own, not the chat's)."""
    other = stack.create_ai_user(account, name="另一位")
    saved = httpx.post(
        f"{stack.base}/api/ai-users/{other['id']}/save-message", headers=bearer(account), json={"content": CRISIS}
    )
    assert saved.status_code == 201, saved.text
    safety = saved.json()["safety"]
    assert safety["kind"] == "crisis" and safety["resources"], safety
    return safety["resources"]


@SIZES
def test_every_ai_friend_is_labelled_as_an_ai(offline: Stack, open_context, size) -> None:
    owner = offline.register("owner")
    public = offline.create_ai_user(owner, name=f"星野{uuid.uuid4().hex[:6]}", visibility="public")
    account = offline.register()
    ai_user = offline.create_ai_user(account, name="小梦")
    page = open_context(size).new_page()
    open_logged_in(page, offline, account, "/")

    friend = page.locator(".friend", has_text="小梦")
    expect(friend.locator(".ai-badge")).to_have_text("AI")
    expect(friend).to_have_attribute("aria-label", re.compile("AI"))
    expect(friend.locator(".friend-name")).to_have_text("小梦")

    friend.click()
    expect(page.locator(".chat-name")).to_have_text("小梦")
    expect(page.locator(".chat-title .ai-badge")).to_have_text("AI")
    intro = page.locator(".ai-intro")
    expect(intro).to_have_count(1)
    expect(intro).to_be_visible()
    expect(intro).to_contain_text("小梦 是 AI，不是真人")
    expect(intro).to_have_attribute("role", "note")
    if size is PHONE:
        screenshot(page, "chat-new-ai-phone")

    # the line stays at the top of the conversation, once, above the messages
    send(page, "你好")
    expect(page.locator(".msg-list .msg-ai .bubble")).to_have_count(1, timeout=15_000)
    expect(intro).to_have_count(1)
    above = page.evaluate(
        "() => document.querySelector('.ai-intro').compareDocumentPosition(document.querySelector('.msg-list'))"
    )
    assert above & 4, "the AI line is above the messages"  # DOCUMENT_POSITION_FOLLOWING

    page.goto(f"{offline.base}/#/discover")
    expect(page.locator(f".discover-card[data-id='{public['id']}'] .ai-badge")).to_have_text("AI")
    expect(page.locator(f".discover-card[data-id='{ai_user['id']}'] .ai-badge")).to_have_text("AI")


def test_a_crisis_message_is_met_with_help_on_a_card_that_stays(offline: Stack, open_context) -> None:
    account = offline.register()
    ai_user = offline.create_ai_user(account, name="小梦")
    lines = help_lines(offline, account)
    context = open_context(PHONE)
    page = context.new_page()
    open_logged_in(page, offline, account, f"/chat/{ai_user['id']}")
    expect(page.locator(".ai-intro")).to_be_visible()

    send(page, CRISIS)
    card = page.locator(".crisis-card")
    expect(card).to_have_count(1)
    expect(card).to_be_visible()
    expect(card.get_by_role("heading", name="你并不孤单")).to_be_visible()
    expect(card.locator(".crisis-name")).to_have_text([line["name"] for line in lines])
    # answered, never silence, also without a model key
    expect(page.locator(".msg-list .msg-ai .bubble")).not_to_have_count(0, timeout=15_000)
    expect(page.locator(".msg-me .read-receipt")).to_have_count(0)
    check_card(page, lines)
    page.locator(".msg-me").last.evaluate("el => el.scrollIntoView({block: 'start'})")  # the message, then its card
    screenshot(page, "chat-crisis-phone")

    stored = httpx.get(f"{offline.base}/api/ai-users/{ai_user['id']}/messages", headers=bearer(account)).json()
    mine = [m for m in stored["messages"] if m["role"] == "user"]
    assert [(m["content"], m["safety"]) for m in mine] == [(CRISIS, "crisis")]

    page.reload()
    expect(card).to_have_count(1)
    expect(card.locator(".crisis-name")).to_have_text([line["name"] for line in lines])
    check_card(page, lines)

    # another device has never received the lines: the card still shows help
    elsewhere = open_context(PHONE).new_page()
    elsewhere.goto(f"{offline.base}/")
    elsewhere.evaluate("value => localStorage.setItem('dreamchat.session', value)", session_json(account))
    elsewhere.goto(f"{offline.base}/#/chat/{ai_user['id']}")
    expect(elsewhere.locator(".crisis-card")).to_have_count(1)
    expect(elsewhere.locator(".crisis-card a[href^='tel:']").first).to_be_visible()
    # those lines are the server's own defaults (lib/help_lines.js keeps a copy): a number never drifts unseen
    shown = set(
        zip(
            elsewhere.locator(".crisis-name").all_inner_texts(),
            elsewhere.locator(".crisis-call span:last-child").all_inner_texts(),
            strict=True,
        )
    )
    defaults = {(line.name, line.phone) for line in default_help_lines()["zh-CN"]}
    assert shown and shown <= defaults, shown - defaults

    # logging out forgets the lines kept for this account, with the drafts
    assert page.evaluate(f"() => localStorage.getItem('dreamchat.help.{account['user']['id']}')")
    page.goto(f"{offline.base}/#/")
    page.get_by_role("button", name="退出登录").click()
    expect(page.get_by_role("heading", name="DreamChat")).to_be_visible()
    assert page.evaluate(f"() => localStorage.getItem('dreamchat.help.{account['user']['id']}')") is None


def check_card(page: Any, lines: list[dict[str, str]]) -> None:
    """Right after the person's message; each phone a tel: link big enough for a thumb; each site a new tab."""
    follows = page.evaluate("() => document.querySelector('.crisis-card').previousElementSibling.className")
    assert "msg-me" in follows, follows
    calls = page.locator(".crisis-card a.crisis-call")
    phones = [line["phone"] for line in lines if line["phone"]]
    expect(calls).to_have_count(len(phones))
    for call, phone in zip(calls.all(), phones, strict=True):
        expect(call).to_have_attribute("href", "tel:" + re.sub(r"[\s()（）-]", "", phone))
        expect(call).to_have_attribute("aria-label", re.compile(re.escape(phone)))
        box = call.bounding_box()
        assert box and box["height"] >= 44 and box["width"] >= 44, box
    sites = page.locator(".crisis-card a.crisis-web")
    expect(sites).to_have_count(sum(1 for line in lines if line["url"].startswith(("https://", "http://"))))
    for site in sites.all():
        expect(site).to_have_attribute("target", "_blank")
        expect(site).to_have_attribute("rel", re.compile(r"\bnoopener\b"))


def test_the_break_reminder_is_a_notice_in_the_chat_not_a_message(offline: Stack, open_context) -> None:
    account = offline.register()
    ai_user = offline.create_ai_user(account, name="小梦")
    page = open_context(PHONE).new_page()
    open_logged_in(page, offline, account, f"/chat/{ai_user['id']}")

    # the server sends it after 120 minutes of continuous conversation: added here to the real stream
    def with_break_notice(route: Any) -> None:
        response = route.fetch()
        notice = json.dumps({"kind": "break", "text": BREAK_NOTICE}, ensure_ascii=False)
        route.fulfill(response=response, body=f"event: notice\r\ndata: {notice}\r\n\r\n{response.text()}")

    page.route(re.compile(r"/api/ai-users/[^/]+/chat$"), with_break_notice)
    send(page, "再聊一会儿")
    notice = page.locator('.system-notice[data-kind="break"]')  # the session's AI disclosure is a notice too
    expect(notice).to_have_text(BREAK_NOTICE)
    expect(page.locator(".msg-list .msg-ai .bubble")).to_have_count(1, timeout=15_000)
    expect(page.locator(".bubble", has_text=BREAK_NOTICE)).to_have_count(0)
    expect(page.locator(".msg .system-notice")).to_have_count(0)  # not inside any message
    order = page.evaluate("""() => [...document.querySelector('.msg-list').children]
        .map((el) => el.dataset.kind === 'break' ? 'notice' : el.classList.contains('msg-me') ? 'me'
            : el.classList.contains('msg-ai') ? 'ai' : null).filter(Boolean)""")
    assert order == ["me", "notice", "ai"], order
    align = notice.evaluate("el => getComputedStyle(el).alignSelf")
    assert align == "center", align
    screenshot(page, "chat-break-phone")


def rgb_hex(colour: str) -> str:
    channels = [int(float(part)) for part in re.findall(r"[\d.]+", colour)[:3]]
    return "#" + "".join(f"{c:02x}" for c in channels)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_badge_card_and_notice_meet_wcag_aa_in_both_themes(offline: Stack, open_context, scheme: str) -> None:
    account = offline.register()
    ai_user = offline.create_ai_user(account)
    page = open_context(PHONE, color_scheme=scheme).new_page()
    open_logged_in(page, offline, account, f"/chat/{ai_user['id']}")
    expect(page.locator(".ai-intro")).to_be_visible()
    page.evaluate("""async () => {
        const { crisisCard } = await import('/static/views/chat_render.js');
        const list = document.querySelector('.msg-list');
        list.append(crisisCard([{ name: '测试热线', phone: '12356', url: 'https://example.org', hours: '24 小时' }]));
        const notice = document.createElement('div');
        notice.className = 'system-notice';
        notice.textContent = '休息一下';
        list.append(notice);
    }""")
    pairs = {  # text element → the element whose background it sits on
        ".chat-title .ai-badge": ".chat-title .ai-badge",
        ".ai-intro": ".chat",
        ".system-notice": ".system-notice",
        ".crisis-from": ".crisis-card",
        ".crisis-title": ".crisis-card",
        ".crisis-text": ".crisis-card",
        ".crisis-hours": ".crisis-card",
        ".crisis-foot": ".crisis-card",
        ".crisis-call": ".crisis-call",
        ".crisis-web": ".crisis-web",
    }
    failing = {}
    for text, ground in pairs.items():
        colour = page.locator(text).first.evaluate("el => getComputedStyle(el).color")
        background = page.locator(ground).first.evaluate("el => getComputedStyle(el).backgroundColor")
        ratio = contrast(rgb_hex(colour), rgb_hex(background))
        if ratio < 4.5:
            failing[text] = (colour, background, round(ratio, 2))
    assert not failing, (scheme, failing)
