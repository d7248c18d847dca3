"""Look and access (issue 40, part 5): axe-core's contrast and tap-target rules over the main screens, in the
light and the dark theme (the client follows `prefers-color-scheme`), at phone size.

axe-core comes bundled in `axe-playwright-python` (dev extra); its `target-size` rule checks 24 px, so
the 44 px the issue asks for is measured here too, over every visible control.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, Stack, bearer, screenshot
from tests.browser.test_web_client import open_logged_in

pytestmark = pytest.mark.browser

RULES = ["color-contrast", "target-size"]
MIN_TAP = 44  # px, the tap target


def violations(page: Any) -> list[str]:
    """axe's violations of the two rules on the page as drawn, one line per element."""
    result = Axe().run(page, options={"runOnly": {"type": "rule", "values": RULES}, "resultTypes": ["violations"]})
    return [
        f"{violation['id']}: {node['target']} {node.get('failureSummary', '')[:160]}"
        for violation in result.response["violations"]
        for node in violation["nodes"]
    ]


def small_targets(page: Any) -> list[str]:
    """Visible buttons, links and form controls smaller than 44×44 px (a control inside a label counts the
    label; a visually hidden input is reached through its label)."""
    return page.evaluate(
        """min => [...document.querySelectorAll('button, a[href], input:not([type=hidden]), select, summary, [role=button]')]
          .filter(el => el.offsetParent !== null && !el.closest('[hidden]') && !el.classList.contains('sr-only'))
          .map(el => [el, (el.closest('label') || el).getBoundingClientRect()])
          .filter(([, r]) => r.width > 0 && (r.width < min || r.height < min))
          .map(([el, r]) => `${el.tagName.toLowerCase()}.${el.className} "${(el.textContent || el.value || el.getAttribute('aria-label') || '').trim().slice(0, 20)}" ${Math.round(r.width)}×${Math.round(r.height)}`)""",
        MIN_TAP,
    )


def seeded(stack: Stack) -> tuple[dict[str, Any], str]:
    """An account with a friend and a short chat (the person's message and the AI's answer)."""
    account = stack.register()
    ai_user = stack.create_ai_user(account)
    with httpx.Client(base_url=stack.base, headers=bearer(account), timeout=30) as api:
        for text in ("你好呀", "周末想去海边"):
            response = api.post(f"/api/ai-users/{ai_user['id']}/save-message", json={"content": text})
            assert response.status_code == 201, response.text
    return account, ai_user["id"]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_main_screens_pass_axe_contrast_and_tap_targets_in_both_themes(
    stack: Stack, open_context: Any, scheme: str
) -> None:
    account, ai_id = seeded(stack)
    context = open_context(PHONE, color_scheme=scheme)
    page = context.new_page()
    found: dict[str, list[str]] = {}

    page.goto(f"{stack.base}/#/login")
    expect(page.get_by_role("button", name="登录").first).to_be_visible()
    screenshot(page, f"look-login-{scheme}-phone")
    found["login"] = violations(page) + small_targets(page)

    screens = {
        "friends": ("/", ".friend, .empty"),
        "chat": (f"/chat/{ai_id}", ".msg-me .bubble"),
        "discover": ("/discover", "main h1, main h2, main h3"),
        "settings": ("/settings", "main h1, main h2, main h3"),
        "memory": (f"/memory/{ai_id}", "main h1, main h2, main h3"),
    }
    for name, (path, ready) in screens.items():
        open_logged_in(page, stack, account, path)
        expect(page.locator(ready).first).to_be_visible()
        page.wait_for_timeout(300)  # transitions settle before colours are read
        screenshot(page, f"look-{name}-{scheme}-phone")
        found[name] = violations(page) + small_targets(page)

    problems = {name: lines for name, lines in found.items() if lines}
    assert not problems, "\n".join(f"{name}:\n  " + "\n  ".join(lines) for name, lines in problems.items())


def test_settings_is_a_gear_and_save_is_the_accented_action(stack: Stack, open_context: Any) -> None:
    account, ai_id = seeded(stack)
    page = open_context(PHONE).new_page()
    open_logged_in(page, stack, account, "/")
    paths = page.locator("a[href='#/settings'] svg path")
    # a toothed wheel: one outline of many arcs, not the eight short rays of the old sun
    expect(paths).to_have_count(1)
    assert (paths.get_attribute("d") or "").count("a") >= 8

    screenshot(page, "look-gear-phone")

    # the dialog of "TA 主动找我": 保存 carries the accent, 取消 is plain
    open_logged_in(page, stack, account, f"/chat/{ai_id}")
    page.get_by_role("button", name="更多").click()
    page.get_by_text("TA 主动找我").click()
    dialog = page.get_by_role("dialog", name="TA 主动找我")
    expect(dialog).to_be_visible()
    screenshot(page, "look-save-accented-phone")
    save, cancel = dialog.get_by_role("button", name="保存"), dialog.get_by_role("button", name="取消")
    accent = page.evaluate("() => getComputedStyle(document.documentElement).getPropertyValue('--accent').trim()")
    assert save.evaluate("el => getComputedStyle(el).backgroundColor") == hex_rgb(accent)
    assert cancel.evaluate("el => getComputedStyle(el).backgroundColor") == "rgba(0, 0, 0, 0)"


def hex_rgb(color: str) -> str:
    value = color.lstrip("#")
    return "rgb({}, {}, {})".format(*(int(value[i : i + 2], 16) for i in (0, 2, 4)))


def test_the_composer_counter_stays_off_the_box_border_past_2000_characters(stack: Stack, open_context: Any) -> None:
    account, ai_id = seeded(stack)
    page = open_context(PHONE).new_page()
    open_logged_in(page, stack, account, f"/chat/{ai_id}")
    box = page.get_by_label("输入消息")
    box.fill("很" * 2100)
    counter = page.locator(".composer-counter")
    expect(counter).to_be_visible()
    screenshot(page, "look-composer-counter-phone")
    area, count = box.bounding_box(), counter.bounding_box()
    assert area and count
    overlaps = not (
        count["y"] >= area["y"] + area["height"]
        or count["y"] + count["height"] <= area["y"]
        or count["x"] >= area["x"] + area["width"]
        or count["x"] + count["width"] <= area["x"]
    )
    assert not overlaps, (area, count)
    composer = page.locator(".composer").bounding_box()
    assert composer and count["y"] >= composer["y"], "the counter is drawn over the composer's top border"


def test_the_crisis_card_keeps_its_heading_in_view_and_ends_in_chinese(stack: Stack, open_context: Any) -> None:
    account, ai_id = seeded(stack)
    page = open_context(PHONE).new_page()
    open_logged_in(page, stack, account, f"/chat/{ai_id}")
    page.get_by_label("输入消息").fill("我今晚就准备自杀")
    page.get_by_role("button", name="发送").click()
    card = page.locator(".crisis-card")
    expect(card).to_have_count(1)
    expect(page.locator(".msg-list .msg-ai .bubble")).not_to_have_count(0, timeout=15_000)
    page.wait_for_timeout(500)
    screenshot(page, "look-crisis-heading-phone")
    heading, log = card.get_by_role("heading", name="你并不孤单").bounding_box(), page.locator(".log").bounding_box()
    assert heading and log
    assert log["y"] <= heading["y"] and heading["y"] + heading["height"] <= log["y"] + log["height"], (heading, log)
    # the generic last line speaks the person's language
    last = card.locator(".crisis-name").last.inner_text()
    assert "当地的紧急电话" in last and "Your local" not in last, last


DEVELOPER_WORDS = ("base_soul", "self_soul", "tokens", "token", "压缩率", ".json")


def test_developer_words_show_only_inside_the_advanced_section(stack: Stack, open_context: Any) -> None:
    account, ai_id = seeded(stack)
    page = open_context(PHONE).new_page()
    for path in ("/", f"/chat/{ai_id}", "/discover", "/settings", f"/edit/{ai_id}", f"/memory/{ai_id}"):
        open_logged_in(page, stack, account, path)
        expect(
            page.locator(
                "main h1:visible, main h2:visible, main h3:visible, .msg-me .bubble:visible, .friend:visible, .bar-title:visible"
            ).first
        ).to_be_visible()
        page.wait_for_timeout(300)
        shown = page.evaluate("() => document.body.innerText")  # a closed <details> draws (and reads) no text
        assert not [word for word in DEVELOPER_WORDS if word in shown], (path, shown[:400])

    advanced = page.locator("details.advanced")
    expect(advanced.locator("summary")).to_contain_text("高级")
    advanced.locator("summary").click()
    expect(advanced).to_contain_text("tokens")
    screenshot(page, "look-memory-advanced-phone")
