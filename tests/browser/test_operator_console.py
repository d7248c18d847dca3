"""Running the service in the browser (issue 37), on a phone: a person reports an AI user and a message, an operator
takes the AI user down at /admin and the person reads the answer in 我的举报 (the owner in the editor, friends in
the chat list); a crisis message opens an escalation that shows on the console's badge, the operator takes the chat
over and a staff message arrives in the person's open chat labelled 工作人员, then hands it back.

The server names its operator in `DREAMCHAT_OPERATORS`, as a deployment does."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, Stack, bearer, companion, screenshot, server_env, session_json
from tests.browser.test_message_actions import open_menu
from tests.browser.test_web_client import drawn, send
from tests.fakes.fake_llm import FakeLLMServer
from tests.fakes.server import running_server

pytestmark = pytest.mark.browser

OPERATOR = "opsconsole"
CRISIS = "我今晚就准备自杀"
NARROW = {**PHONE, "viewport": {"width": 360, "height": 780}}  # the narrowest phone the console is made for
STAFF_TEXT = "你好，我是 DreamChat 的工作人员。我在这里陪着你，愿意和我说说发生了什么吗？"


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """The browser tests' server (conftest's), with one operator."""
    with FakeLLMServer(default=companion) as llm:
        env = server_env(tmp_path_factory.mktemp("operators") / "data", llm, DREAMCHAT_OPERATORS=OPERATOR)
        with running_server(env) as base:
            yield Stack(base, llm)


@pytest.fixture(scope="module")
def operator(stack: Stack) -> dict[str, Any]:
    return stack.register(username=OPERATOR)


def open_as(page: Any, stack: Stack, account: dict[str, Any], path: str = "/", where: str = "/") -> None:
    """The page at `where` (`/` the app, `/admin` the console), logged in as `account`, showing `#path`."""
    page.goto(f"{stack.base}{where}")
    drawn(page)
    page.evaluate("value => localStorage.setItem('dreamchat.session', value)", session_json(account))
    page.goto(f"{stack.base}{where}#{path}")
    page.reload()
    drawn(page)


def befriend(stack: Stack, account: dict[str, Any], ai_user: dict[str, Any]) -> None:
    response = httpx.post(f"{stack.base}/api/friends/{ai_user['id']}", headers=bearer(account))
    assert response.status_code in (200, 201), response.text


def report_in_dialog(page: Any, reason: str) -> None:
    dialog = page.get_by_role("dialog", name="举报")
    dialog.get_by_label("举报理由").fill(reason)
    dialog.get_by_role("button", name="提交举报").click()
    expect(dialog.locator(".report-answer")).to_contain_text("已提交，我们会在")
    expect(dialog.locator(".report-answer")).to_contain_text("前处理")


def test_a_person_reports_and_an_operator_takes_the_ai_user_down(stack: Stack, operator, open_context) -> None:
    owner = stack.register("owner")
    name = f"星野{uuid.uuid4().hex[:4]}"
    ai_user = stack.create_ai_user(owner, name=name, visibility="public", base_soul="会说很多不合适的话")
    person = stack.register("person")
    befriend(stack, person, ai_user)

    # the person reports the AI user from its card in 发现, and one of its messages from the chat
    page = open_context(PHONE).new_page()
    open_as(page, stack, person, "/discover")
    page.locator(f".discover-card[data-id='{ai_user['id']}']").get_by_role("button", name=f"举报「{name}」").click()
    report_in_dialog(page, "人设里有诱导未成年人的内容")
    screenshot(page, "report-sent-phone")
    page.get_by_role("button", name="好的").click()

    page.goto(f"{stack.base}/#/chat/{ai_user['id']}")
    send(page, "你好")
    reply = page.locator(".msg-list .msg-ai .bubble").last
    expect(reply).to_have_text("嗯嗯，我在听", timeout=15_000)
    open_menu(page, reply, PHONE)
    page.get_by_role("menuitem", name="举报").click()
    report_in_dialog(page, "这条回复让我不舒服")
    page.get_by_role("button", name="好的").click()

    # the operator sees both, oldest first, opens the one about the AI user and takes it down
    console = open_context(NARROW).new_page()
    open_as(console, stack, operator, "/reports", where="/admin")
    rows = console.locator(".admin-list .admin-row")
    expect(rows).to_have_count(2)
    expect(rows.first).to_contain_text("人设里有诱导未成年人的内容")
    expect(rows.nth(1)).to_contain_text("这条回复让我不舒服")
    expect(console.locator(".admin-tab .tab-badge").first).to_have_text("2")
    screenshot(console, "admin-reports-phone")

    rows.nth(1).click()  # the message report: the AI's message is shown, marked
    expect(console.locator(".admin-message.is-marked .admin-message-text")).to_have_text("嗯嗯，我在听")
    console.get_by_label("处理说明").fill("这条回复没有违规。")
    console.get_by_role("button", name="驳回").click()
    expect(console.locator(".admin-head .flag")).to_have_text("已驳回")

    console.goto(f"{stack.base}/admin#/reports")
    rows.first.click()
    expect(console.get_by_role("region", name="被举报的角色")).to_contain_text(name)
    console.get_by_label("处理说明").fill("人设违反社区规则，已下架。")
    screenshot(console, "admin-report-phone")
    console.get_by_role("button", name="下架").click()
    expect(console.locator(".admin-head .flag")).to_have_text("已下架")
    expect(console.get_by_role("region", name="被举报的角色")).to_contain_text("已下架")
    expect(console.get_by_role("button", name="恢复上架")).to_be_visible()
    console.goto(f"{stack.base}/admin#/reports")
    expect(console.locator(".admin-list .admin-row")).to_have_count(0)
    expect(console.get_by_text("没有待处理的举报。")).to_be_visible()

    # the person reads the answers in 我的举报, and the friendship says why it ended
    page.goto(f"{stack.base}/#/settings")
    mine = page.get_by_role("region", name="我的举报")
    expect(mine.locator(".my-report")).to_have_count(2)
    taken = mine.locator(".my-report.status-resolved")
    expect(taken).to_contain_text("已处理")
    expect(taken).to_contain_text("人设违反社区规则，已下架。")
    expect(mine.locator(".my-report.status-dismissed")).to_contain_text("这条回复没有违规。")
    mine.scroll_into_view_if_needed()
    screenshot(page, "my-reports-phone")
    page.goto(f"{stack.base}/#/")
    ended = page.locator(f".ended-friend[data-id='{ai_user['id']}']")
    expect(ended).to_contain_text("该角色已被下架")
    expect(ended).to_contain_text(name)
    page.reload()  # a page that never listed it as a friend: the server's ended item names it
    expect(ended).to_contain_text("该角色已被下架")
    expect(ended.locator(".friend-name")).to_have_text(name)

    # the owner sees why in the editor, and cannot make it public again
    editor = open_context(PHONE).new_page()
    open_as(editor, stack, owner, f"/edit/{ai_user['id']}")
    expect(editor.locator(".takedown-notice")).to_contain_text("已被下架：人设违反社区规则，已下架。")
    expect(editor.locator("input[name=visibility][value=public]")).to_be_disabled()
    expect(editor.locator("input[name=visibility][value=private]")).to_be_checked()
    screenshot(editor, "editor-takedown-phone")


def test_a_non_operator_sees_that_they_are_not_one(stack: Stack, open_context) -> None:
    person = stack.register()
    page = open_context(NARROW).new_page()
    open_as(page, stack, person, "/reports", where="/admin")
    expect(page.get_by_role("heading", name="你不是运营人员")).to_be_visible()
    expect(page.locator(".admin-tabs")).to_have_count(0)


def test_an_operator_takes_over_a_chat_in_crisis_and_hands_it_back(stack: Stack, operator, open_context) -> None:
    person = stack.register("crisis")
    ai_user = stack.create_ai_user(person, name="小梦")

    console = open_context(NARROW).new_page()
    console.clock.install()
    open_as(console, stack, operator, "/escalations", where="/admin")
    expect(console.get_by_text("没有待处理的危机。")).to_be_visible()
    badge = console.locator(".admin-tab[href='#/escalations'] .tab-badge")
    expect(badge).to_be_hidden()

    page = open_context(PHONE).new_page()
    open_as(page, stack, person, f"/chat/{ai_user['id']}")
    send(page, CRISIS)
    expect(page.locator(".crisis-card")).to_have_count(1)
    expect(page.locator(".msg-list .msg-ai .bubble")).not_to_have_count(0, timeout=15_000)

    # the badge counts it at the next poll (every 20 s), and the list shows it, without a reload
    console.clock.run_for(21_000)
    expect(badge).to_have_text("1")
    row = console.locator(".admin-list .admin-row")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("1 条消息触发")
    expect(row).not_to_contain_text(CRISIS)  # the list has no text
    screenshot(console, "admin-escalation-badge-phone")
    row.click()
    expect(console.locator(".admin-message.is-marked .admin-message-text")).to_have_text(CRISIS)
    console.get_by_role("button", name="接管对话").click()
    expect(console.locator(".admin-head .flag")).to_have_text("接管中")

    console.get_by_label("以工作人员身份发消息").fill(STAFF_TEXT)
    console.get_by_role("button", name="发送").click()
    expect(console.locator(".admin-message.from-staff .admin-message-text")).to_have_text(STAFF_TEXT)
    screenshot(console, "admin-takeover-phone")

    # the person's open chat shows it by polling: 工作人员, never the AI's name or avatar
    staff = page.locator(".msg-staff")
    expect(staff.locator(".bubble")).to_have_text(STAFF_TEXT, timeout=15_000)
    expect(staff.locator(".staff-tag")).to_contain_text("工作人员")
    expect(staff.locator(".avatar")).to_have_text("工")
    expect(staff).not_to_contain_text("小梦")
    assert "msg-ai" not in (staff.get_attribute("class") or "")

    # while taken over, the AI does not answer: the turn says a person is there
    replies_before = page.locator(".msg-list .msg-ai").count()
    send(page, "谢谢你")
    expect(page.locator(".system-notice.notice-staff")).to_contain_text("工作人员", timeout=15_000)
    page.wait_for_timeout(1500)
    expect(page.locator(".msg-list .msg-ai")).to_have_count(replies_before)
    expect(page.locator(".msg-me").last.locator(".read-receipt")).to_have_count(0)  # not the AI's 已读不回
    screenshot(page, "chat-staff-phone")

    console.get_by_role("button", name="交还给 AI").click()
    console.get_by_role("button", name="确认交还？").click()
    expect(console.locator(".admin-head .flag")).to_have_text("已结束")
    expect(console.get_by_text("这条记录已结束")).to_be_visible()
    console.goto(f"{stack.base}/admin#/audit")
    expect(console.locator(".audit-row").first).to_be_visible()
    screenshot(console, "admin-audit-phone")
    console.goto(f"{stack.base}/admin#/referrals")
    table = console.get_by_role("table")
    expect(table.locator("tbody tr")).to_have_count(12)
    expect(table.locator("tfoot td").nth(2)).not_to_have_text("0")  # escalations opened this year
    screenshot(console, "admin-referrals-phone")
