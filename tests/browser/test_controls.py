"""Control over what the AI sends first, and over the chat list (issue 18): heartbeat settings, scheduled
heartbeats with cancel, pin and mute."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, PHONE, Stack, bearer, screenshot
from tests.browser.test_web_client import open_logged_in, send
from tests.fakes.fake_llm import Reply

pytestmark = pytest.mark.browser

SIZES = pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])


def chat(stack: Stack, account: dict[str, Any], ai_user_id: str, content: str) -> str:
    response = httpx.post(
        f"{stack.base}/api/ai-users/{ai_user_id}/chat", headers=bearer(account), json={"content": content}, timeout=30
    )
    assert response.status_code == 200, response.text
    return response.text


def prefs(stack: Stack, account: dict[str, Any]) -> dict[str, Any]:
    return httpx.get(f"{stack.base}/api/heartbeat/status", headers=bearer(account)).json()["prefs"]


@SIZES
def test_heartbeat_settings_round_trip(stack: Stack, open_context, size) -> None:
    account = stack.register()
    stack.create_ai_user(account)
    page = open_context(size).new_page()
    open_logged_in(page, stack, account, "/")
    page.get_by_role("link", name="设置").click()
    form = page.get_by_role("form", name="主动消息设置")
    enabled = form.get_by_label("允许 AI 主动找我")
    expect(enabled).to_be_checked()
    expect(form.get_by_label("每天最多几条未回复的")).to_have_value("5")
    expect(form.get_by_label("夜间开始")).to_be_hidden()
    if size is PHONE:
        screenshot(page, "heartbeat-settings-phone")

    enabled.uncheck()
    form.get_by_label("自定义夜间时段").check()
    form.get_by_label("夜间开始").select_option("22")
    form.get_by_label("夜间结束").select_option("6")
    form.get_by_label("每天最多几条未回复的").fill("3")
    form.get_by_label("我说话后安静几分钟").fill("30")
    form.get_by_role("button", name="保存").click()
    expect(page.locator(".toast")).to_have_text("已保存")
    assert {k: v for k, v in prefs(stack, account).items() if k != "max_backoff" and k != "pause_after_days"} == {
        "enabled": False,
        "night_start": 22,
        "night_end": 6,
        "daily_cap": 3,
        "quiet_minutes": 30,
    }

    page.reload()
    form = page.get_by_role("form", name="主动消息设置")
    expect(form.get_by_label("允许 AI 主动找我")).not_to_be_checked()
    expect(form.get_by_label("自定义夜间时段")).to_be_checked()
    expect(form.get_by_label("夜间开始")).to_have_value("22")
    expect(form.get_by_label("夜间结束")).to_have_value("6")
    expect(form.get_by_label("每天最多几条未回复的")).to_have_value("3")
    expect(form.get_by_label("我说话后安静几分钟")).to_have_value("30")

    # back to each friend's own rhythm; a bad number is refused in the page, nothing is sent
    form.get_by_label("自定义夜间时段").uncheck()
    form.get_by_label("每天最多几条未回复的").fill("101")
    form.get_by_role("button", name="保存").click()
    expect(form.get_by_role("alert")).to_contain_text("0 到 100")
    assert prefs(stack, account)["daily_cap"] == 3
    form.get_by_label("每天最多几条未回复的").fill("4")
    form.get_by_role("button", name="保存").click()
    expect(form.locator(".form-error")).to_have_text("")
    expect(page.locator(".toast")).to_have_text("已保存")
    saved = prefs(stack, account)
    assert saved["daily_cap"] == 4 and saved["night_start"] == saved["night_end"]


@SIZES
def test_a_scheduled_heartbeat_is_listed_and_cancelled(stack: Stack, open_context, size) -> None:
    account = stack.register()
    ai_user = stack.create_ai_user(account, name="闹钟小梦")
    stack.llm.script(
        "deepseek-chat",
        Reply.tools(("set_scheduled_heartbeat", {"hour": 9, "minute": 0, "message_template": "叫你起床"})),
        Reply.text("好，每天 9 点叫你起床"),
        Reply.tools(("set_scheduled_heartbeat", {"hour": 22, "minute": 30, "message_template": "提醒早点睡"})),
        Reply.text("好"),
    )
    chat(stack, account, ai_user["id"], "每天 9 点叫我起床")
    chat(stack, account, ai_user["id"], "晚上十点半提醒我睡觉")
    page = open_context(size).new_page()
    open_logged_in(page, stack, account, "/settings")
    times = page.get_by_role("list", name="闹钟小梦")
    expect(times.locator(".scheduled-time")).to_have_text(["09:00", "22:30"])
    expect(times.locator(".scheduled-text")).to_have_text(["叫你起床", "提醒早点睡"])
    if size is PHONE:
        page.locator(".scheduled").scroll_into_view_if_needed()
        screenshot(page, "heartbeat-scheduled-phone")
    times.get_by_role("button", name="取消 09:00").click()
    expect(times.locator(".scheduled-time")).to_have_text(["22:30"])
    listed = httpx.get(f"{stack.base}/api/heartbeat/scheduled/{ai_user['id']}", headers=bearer(account)).json()
    assert [(s["hour"], s["minute"]) for s in listed["scheduled"]] == [(22, 30)]
    page.reload()
    expect(page.get_by_role("list", name="闹钟小梦").locator(".scheduled-time")).to_have_text(["22:30"])


def heartbeat_now(stack: Stack, account: dict[str, Any], ai_user_id: str, text: str) -> None:
    stack.llm.script("deepseek-chat", Reply.text(text))
    outcome = httpx.post(f"{stack.base}/api/heartbeat/trigger/{ai_user_id}", headers=bearer(account), timeout=30).json()
    assert outcome["status"] == "sent", outcome


@SIZES
def test_pin_puts_a_friend_first_and_mute_quiets_its_unread(stack: Stack, open_context, size) -> None:
    account = stack.register()
    pinned = stack.create_ai_user(account, name="置顶的阿青")
    muted = stack.create_ai_user(account, name="安静的小雨")
    heartbeat_now(stack, account, pinned["id"], "想你了1")
    time.sleep(1.1)  # timestamps are whole seconds
    heartbeat_now(stack, account, muted["id"], "想你了2")  # the latest conversation: first until the other is pinned
    page = open_context(size).new_page()
    open_logged_in(page, stack, account, "/")
    names = page.locator(".friend .friend-name")
    expect(names).to_have_text(["安静的小雨", "置顶的阿青"])

    for ai_user, item, said in ((pinned, "置顶聊天", "已置顶"), (muted, "消息免打扰", "已设为消息免打扰")):
        page.goto(f"{stack.base}/#/chat/{ai_user['id']}")
        page.get_by_role("button", name="更多").click()
        page.get_by_role("menuitem", name=item).click()
        expect(page.locator(".toast")).to_have_text(said)
    page.goto(f"{stack.base}/#/")
    expect(names).to_have_text(["置顶的阿青", "安静的小雨"])
    friends = {f["name"]: f for f in httpx.get(f"{stack.base}/api/friends", headers=bearer(account)).json()["friends"]}
    assert (friends["置顶的阿青"]["pinned"], friends["置顶的阿青"]["muted"]) == (True, False)
    assert (friends["安静的小雨"]["pinned"], friends["安静的小雨"]["muted"]) == (False, True)

    # new messages from both: the muted one's count is quiet and left out of the tab's title
    heartbeat_now(stack, account, pinned["id"], "想你了3")
    time.sleep(1.1)
    heartbeat_now(stack, account, muted["id"], "想你了4")
    page.reload()
    quiet = page.locator(".friend", has_text="安静的小雨")
    loud = page.locator(".friend", has_text="置顶的阿青")
    expect(names).to_have_text(["置顶的阿青", "安静的小雨"])
    expect(quiet.locator(".unread")).to_have_text("1")
    expect(quiet.locator(".unread")).to_have_class("unread unread-muted")
    expect(quiet.locator(".mute-mark")).to_be_visible()
    expect(loud.locator(".unread")).to_have_class("unread")
    expect(page).to_have_title("(1) DreamChat")
    badge = quiet.locator(".unread").evaluate("el => getComputedStyle(el).backgroundColor")
    assert badge != loud.locator(".unread").evaluate("el => getComputedStyle(el).backgroundColor")
    if size is PHONE:
        screenshot(page, "chat-list-pin-mute-phone")

    # and back
    page.goto(f"{stack.base}/#/chat/{pinned['id']}")
    page.get_by_role("button", name="更多").click()
    page.get_by_role("menuitem", name="取消置顶").click()
    expect(page.locator(".toast")).to_have_text("已取消置顶")
    page.goto(f"{stack.base}/#/")
    expect(names).to_have_text(["安静的小雨", "置顶的阿青"])  # the latest is first again
    expect(page.locator(".friend.pinned")).to_have_count(0)


def test_asking_for_a_heartbeat_from_the_chat_menu_shows_it_after_typing(stack: Stack, open_context) -> None:
    account = stack.register()
    ai_user = stack.create_ai_user(account)
    page = open_context(PHONE).new_page()
    open_logged_in(page, stack, account, f"/chat/{ai_user['id']}")
    expect(page.get_by_text("和 小梦 打个招呼吧")).to_be_visible()
    stack.llm.script("deepseek-chat", Reply.text("突然想你了"))
    page.get_by_role("button", name="更多").click()
    page.get_by_role("menuitem", name="让 TA 现在来找我").click()
    expect(page.get_by_text("对方正在输入…")).to_be_visible()
    expect(page.locator(".msg-heartbeat .bubble")).to_have_text("突然想你了")
    expect(page.locator(".typing")).to_be_hidden()
    # the turn is over: a message goes at once
    send(page, "我也是")
    expect(page.locator(".msg-list .bubble")).to_have_text(["突然想你了", "我也是", "嗯嗯，我在听"], timeout=15_000)
