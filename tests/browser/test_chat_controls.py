"""The person's controls at phone size (issue 40): 换一个回答 with arrows and a swipe between the answers, editing the
last message, 👍/👎, 让 TA 记住这条, search in the history; nickname, password and deleting the account in settings."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PASSWORD, PHONE, Stack, bearer, screenshot
from tests.browser.test_message_actions import open_menu
from tests.browser.test_web_client import open_logged_in, send
from tests.fakes.fake_llm import Reply

pytestmark = pytest.mark.browser

CHAT_MODEL = "deepseek-chat"


def messages(stack: Stack, account: dict[str, Any], ai_user_id: str) -> list[dict[str, Any]]:
    body = httpx.get(f"{stack.base}/api/ai-users/{ai_user_id}/messages", headers=bearer(account)).json()
    return body["messages"]


def chat_with_an_answer(stack: Stack, open_context) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    account = stack.register()
    ai_user = stack.create_ai_user(account)
    page = open_context(PHONE).new_page()
    open_logged_in(page, stack, account, f"/chat/{ai_user['id']}")
    stack.llm.script(CHAT_MODEL, Reply.text("豆豆呀"))
    send(page, "你还记得我家狗叫什么吗？")
    expect(page.locator(".msg-list .msg-ai .bubble")).to_have_text(["豆豆呀"], timeout=15_000)
    return page, account, ai_user


def test_a_new_answer_keeps_the_old_one_to_go_back_to_by_arrow_or_swipe(stack: Stack, open_context) -> None:
    page, account, ai_user = chat_with_an_answer(stack, open_context)
    stack.llm.script(CHAT_MODEL, Reply.text("叫豆豆，我当然记得"))

    open_menu(page, page.locator(".msg-list .msg-ai .bubble").last, PHONE)
    screenshot(page, "chat-controls-menu-phone")
    page.get_by_role("menuitem", name="换一个回答").click()

    answers = page.locator(".msg-list .msg-ai .bubble")
    expect(answers).to_have_text(["叫豆豆，我当然记得"], timeout=15_000)
    expect(page.locator(".msg-alts .alt-count")).to_have_text("2 / 2")
    screenshot(page, "chat-regenerate-phone")
    page.get_by_role("button", name="上一个回答").click()
    expect(answers).to_have_text(["豆豆呀"])
    expect(page.locator(".msg-alts .alt-count")).to_have_text("1 / 2")
    assert [m["content"] for m in messages(stack, account, ai_user["id"])] == ["你还记得我家狗叫什么吗？", "豆豆呀"]
    box = answers.last.bounding_box()
    assert box is not None
    y = box["y"] + box["height"] / 2
    answers.last.dispatch_event("pointerdown", {"clientX": box["x"] + box["width"] - 5, "clientY": y, "bubbles": True})
    answers.last.dispatch_event("pointerup", {"clientX": box["x"] - 80, "clientY": y, "bubbles": True})
    expect(answers).to_have_text(["叫豆豆，我当然记得"])  # a swipe to the left goes forward
    for arrow in page.locator(".alt-btn").all():
        size = arrow.bounding_box()
        assert size is not None and size["width"] >= 44 and size["height"] >= 44


def test_an_answer_is_rated_and_a_message_remembered_from_its_menu(stack: Stack, open_context) -> None:
    page, account, ai_user = chat_with_an_answer(stack, open_context)

    open_menu(page, page.locator(".msg-list .msg-ai .bubble").last, PHONE)
    page.get_by_role("menuitem", name="👎 踩").click()
    expect(page.locator(".msg-rating")).to_have_text("👎 已踩")
    open_menu(page, page.locator(".msg-list .msg-me .bubble").last, PHONE)
    page.get_by_role("menuitem", name="让 TA 记住这条").click()
    expect(page.locator(".toast")).to_contain_text("TA 记住了这条")
    screenshot(page, "chat-rated-remembered-phone")

    assert [m["rating"] for m in messages(stack, account, ai_user["id"])] == [None, -1]
    files = httpx.get(f"{stack.base}/api/memory/{ai_user['id']}/files", headers=bearer(account)).json()
    assert [c["content"] for c in files["core"] if c["source"] == "person"] == ["你还记得我家狗叫什么吗？"]


def test_the_last_message_is_edited_and_answered_anew(stack: Stack, open_context) -> None:
    page, account, ai_user = chat_with_an_answer(stack, open_context)
    stack.llm.script(CHAT_MODEL, Reply.text("是小白吧"))

    open_menu(page, page.locator(".msg-list .msg-me .bubble").last, PHONE)
    page.get_by_role("menuitem", name="编辑").click()
    dialog = page.get_by_role("dialog", name="编辑消息")
    dialog.get_by_role("textbox").fill("你还记得我家猫叫什么吗？")
    screenshot(page, "chat-edit-phone")
    dialog.get_by_role("button", name="保存并重新回答").click()

    expect(page.locator(".msg-list .bubble")).to_have_text(["你还记得我家猫叫什么吗？", "是小白吧"], timeout=15_000)
    stored = [(m["role"], m["content"]) for m in messages(stack, account, ai_user["id"])]
    assert stored == [("user", "你还记得我家猫叫什么吗？"), ("assistant", "是小白吧")]


def test_the_history_is_searched_from_the_chat_menu(stack: Stack, open_context) -> None:
    account = stack.register()
    ai_user = stack.create_ai_user(account)
    for text in ("周末去海边", "今天好累", "海边的日落真好看"):
        saved = httpx.post(
            f"{stack.base}/api/ai-users/{ai_user['id']}/save-message", headers=bearer(account), json={"content": text}
        )
        assert saved.status_code == 201, saved.text
    page = open_context(PHONE).new_page()
    open_logged_in(page, stack, account, f"/chat/{ai_user['id']}")

    page.locator(".bar .icon-btn").last.click()
    page.get_by_role("menuitem", name="搜索聊天记录").click()
    dialog = page.get_by_role("dialog", name="搜索聊天记录")
    dialog.get_by_label("搜索内容").fill("海边")
    dialog.get_by_role("button", name="搜索", exact=True).click()

    expect(dialog.locator(".search-hit p")).to_have_text(["海边的日落真好看", "周末去海边"])
    expect(dialog.get_by_role("status")).to_have_text("找到 2 条")
    screenshot(page, "chat-search-phone")


def settings(page: Any, stack: Stack, account: dict[str, Any]) -> None:
    open_logged_in(page, stack, account, "/settings")
    expect(page.get_by_label("希望 TA 们怎么称呼你")).to_be_visible()


def test_nickname_and_password_are_changed_in_settings(stack: Stack, open_context) -> None:
    account = stack.register()
    page = open_context(PHONE).new_page()
    settings(page, stack, account)

    page.get_by_label("希望 TA 们怎么称呼你").fill("阿青")
    page.get_by_role("button", name="保存称呼").click()
    expect(page.locator(".toast")).to_contain_text("阿青")
    page.get_by_label("当前密码").fill("not-my-password")
    page.get_by_label("新密码").fill("purple-staple-harbour")
    page.get_by_role("button", name="修改密码").click()
    expect(page.get_by_role("form", name="修改密码").get_by_role("alert")).to_have_text("当前密码不对。")
    page.get_by_label("当前密码").fill(PASSWORD)
    page.get_by_role("button", name="修改密码").click()
    expect(page.locator(".toast")).to_contain_text("密码已修改")
    screenshot(page, "settings-account-phone")

    refused = httpx.post(f"{stack.base}/api/auth/refresh", json={"refresh_token": account["refresh_token"]})
    assert refused.status_code == 401  # the other sessions ended
    assert httpx.get(f"{stack.base}/api/profile", headers=bearer(account)).status_code == 401
    page.reload()
    expect(page.get_by_label("希望 TA 们怎么称呼你")).to_have_value("阿青")  # this device stays logged in
    login = {"username": account["user"]["username"], "password": "purple-staple-harbour"}
    fresh = httpx.post(f"{stack.base}/api/auth/login", json=login)
    assert fresh.status_code == 200
    assert httpx.get(f"{stack.base}/api/profile", headers=bearer(fresh.json())).json()["nickname"] == "阿青"


def test_the_account_is_deleted_only_after_its_name_is_typed(stack: Stack, open_context) -> None:
    account = stack.register()
    username = account["user"]["username"]
    page = open_context(PHONE).new_page()
    settings(page, stack, account)

    page.get_by_role("button", name="删除账号…").click()
    confirm = page.get_by_role("button", name="永久删除账号")
    expect(confirm).to_be_disabled()
    page.get_by_label(f"输入你的用户名「{username}」确认").fill("someone-else")
    expect(confirm).to_be_disabled()
    page.get_by_label(f"输入你的用户名「{username}」确认").fill(username)
    screenshot(page, "settings-delete-account-phone")
    confirm.click()

    expect(page).to_have_url(f"{stack.base}/#/login")
    assert (
        httpx.post(f"{stack.base}/api/auth/login", json={"username": username, "password": PASSWORD}).status_code == 401
    )
