"""A copy of one's data in the web client: 导出记忆 downloads the pair's memory, 导入记忆 brings it back
(and asks before replacing memories the pair already has), a wrong file says why, and 导出我的全部数据
in settings downloads the whole account without its secrets."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, PASSWORD, Stack, bearer
from tests.browser.test_web_client import open_logged_in

pytestmark = pytest.mark.browser

CORE = "喜欢被叫小名阿星"
SAID = ["周六一起去海边看日出吧", "我会带上相机"]


def remembered_pair(stack: Stack) -> tuple[dict, dict]:
    """An account and an AI friend with messages in short-term memory and one core memory."""
    account = stack.register()
    ai = stack.create_ai_user(account, name="小梦")
    for line in SAID:
        response = httpx.post(
            f"{stack.base}/api/ai-users/{ai['id']}/save-message", headers=bearer(account), json={"content": line}
        )
        assert response.status_code == 201, response.text
    core = {"content": CORE, "importance": 9, "category": "称呼"}
    assert httpx.put(f"{stack.base}/api/memory/{ai['id']}/core", headers=bearer(account), json=core).status_code == 200
    return account, ai


def forget_and_befriend(stack: Stack, account: dict, ai: dict) -> None:
    base, headers = stack.base, bearer(account)
    assert httpx.delete(f"{base}/api/friends/{ai['id']}", headers=headers, params={"forget": "true"}).status_code == 200
    assert httpx.post(f"{base}/api/friends/{ai['id']}", headers=headers).status_code in (200, 201)


def test_memory_is_exported_then_imported_back_and_replaced_only_when_asked(
    stack: Stack, open_context, tmp_path: Path
) -> None:
    account, ai = remembered_pair(stack)
    page = open_context(DESKTOP, accept_downloads=True).new_page()
    open_logged_in(page, stack, account, f"/memory/{ai['id']}")
    expect(page.locator(".tier-core")).to_contain_text(CORE)

    with page.expect_download() as exported:
        page.get_by_role("button", name="导出记忆").click()
    assert exported.value.suggested_filename == f"dreamchat-memory-{ai['id']}.json"
    saved = tmp_path / "memory.json"
    saved.write_bytes(Path(exported.value.path()).read_bytes())
    document = json.loads(saved.read_text())
    assert document["format"] == "dreamchat.memory"
    assert [m["content"] for m in document["messages"]] == SAID

    forget_and_befriend(stack, account, ai)
    page.reload()
    expect(page.locator(".tiers")).not_to_contain_text(CORE)
    page.locator("#memory-file").set_input_files(str(saved))
    expect(page.locator(".toast")).to_contain_text("导入完成：2 条聊天记录")
    expect(page.locator(".tiers")).to_contain_text(CORE)
    expect(page.locator(".tiers")).to_contain_text(SAID[0])

    page.locator("#memory-file").set_input_files(str(saved))  # the pair has memories now
    ask = page.locator(".memory-import")
    expect(ask).to_contain_text("替换会先清除现有的记忆")
    replace = ask.get_by_role("button", name="替换现有记忆")
    replace.click()
    ask.get_by_role("button", name="确定替换？").click()
    expect(ask).to_be_hidden()
    messages = httpx.get(f"{stack.base}/api/ai-users/{ai['id']}/messages", headers=bearer(account)).json()
    assert [m["content"] for m in messages["messages"]] == SAID  # replaced, not added twice


def test_a_file_that_is_no_memory_export_says_why_and_imports_nothing(
    stack: Stack, open_context, tmp_path: Path
) -> None:
    account = stack.register()
    ai = stack.create_ai_user(account)
    page = open_context(DESKTOP).new_page()
    open_logged_in(page, stack, account, f"/memory/{ai['id']}")
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps({"format": "dreamchat.memory", "version": 2}))

    page.locator("#memory-file").set_input_files(str(newer))

    expect(page.locator(".toast")).to_contain_text("这个文件不能导入")
    expect(page.locator(".toast")).to_contain_text("version")
    messages = httpx.get(f"{stack.base}/api/ai-users/{ai['id']}/messages", headers=bearer(account)).json()
    assert messages["messages"] == []


def test_settings_downloads_all_of_the_persons_data_without_secrets(stack: Stack, open_context) -> None:
    account, ai = remembered_pair(stack)
    page = open_context(DESKTOP, accept_downloads=True).new_page()
    open_logged_in(page, stack, account, "/settings")

    with page.expect_download() as exported:
        page.get_by_role("button", name="导出我的全部数据").click()

    username = account["user"]["username"]
    assert exported.value.suggested_filename == f"dreamchat-{username}.json"
    text = Path(exported.value.path()).read_text()
    data = json.loads(text)
    assert data["account"]["username"] == username
    assert [f["ai_user_id"] for f in data["friends"]] == [ai["id"]]
    assert CORE in text and SAID[1] in text
    for secret in (PASSWORD, account["access_token"], account["refresh_token"], "password_hash"):
        assert secret not in text
