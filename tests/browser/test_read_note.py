"""已读不回 explained (issue 40): the first time the AI reads a message without replying, one line says why;
知道了 dismisses it for good (localStorage), and a later 已读不回 shows only 已读. At phone size."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, Stack, screenshot
from tests.browser.test_web_client import open_logged_in, send
from tests.fakes.fake_llm import Reply

pytestmark = pytest.mark.browser

NOTE = "TA 看了你的消息，暂时没有回复——就像真人一样，有时会已读不回。"


def test_the_first_read_without_reply_is_explained_once_until_dismissed(stack: Stack, open_context) -> None:
    account = stack.register()
    ai_user = stack.create_ai_user(account, name="阿澈", avatar="")
    page = open_context(PHONE).new_page()
    open_logged_in(page, stack, account, f"/chat/{ai_user['id']}")

    stack.llm.script("deepseek-chat", Reply.text("嗯嗯，我在听"))
    send(page, "你在干嘛呀？")
    expect(page.locator(".msg-ai .bubble", has_text="嗯嗯，我在听")).to_be_visible()
    expect(page.get_by_text(NOTE)).to_have_count(0)  # an answer needs no explaining

    stack.llm.script("deepseek-chat", Reply.text(""))  # the AI reads it and says nothing: 已读不回
    send(page, "今天去超市买了点水果")
    expect(page.locator(".msg-me .read-receipt")).to_have_text("已读")
    note = page.locator('.system-notice[data-kind="read_no_reply"]')
    expect(note).to_have_text(NOTE + "知道了")
    dismiss = note.get_by_role("button", name="知道了，不再提示")
    box = dismiss.bounding_box()
    assert box is not None and box["width"] >= 44 and box["height"] >= 44
    screenshot(page, "chat-read-note-phone")

    dismiss.click()
    expect(note).to_have_count(0)
    assert page.evaluate(f"() => localStorage.getItem('dreamchat.readNoteDismissed.{account['user']['id']}')") == "1"

    stack.llm.script("deepseek-chat", Reply.text(""))
    send(page, "买了苹果和橙子")
    expect(page.locator(".msg-me .read-receipt")).to_have_count(2)
    page.reload()
    expect(page.locator(".msg-me .read-receipt")).to_have_count(2)
    expect(page.get_by_text(NOTE)).to_have_count(0)  # dismissed: never again on this device
