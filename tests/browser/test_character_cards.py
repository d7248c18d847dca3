"""Character cards in the editor: 导入角色卡 shows what the card becomes before anything is saved, a broken
card says why it cannot be read, 导出角色卡 downloads a PNG and a JSON card, and what the card brought
but DreamChat does not use is shown as such."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import expect

from dreamchat.domain.png_text import read_png_text
from tests import cards
from tests.browser.conftest import PHONE, Stack, bearer, screenshot
from tests.browser.test_web_client import open_logged_in

pytestmark = pytest.mark.browser


def ai_users(stack: Stack, account: dict) -> list[dict]:
    return httpx.get(f"{stack.base}/api/ai-users", headers=bearer(account)).json()["ai_users"]


def test_a_card_is_previewed_then_imported_then_exported(stack: Stack, open_context, tmp_path: Path) -> None:
    account = stack.register()
    page = open_context(PHONE, accept_downloads=True).new_page()
    open_logged_in(page, stack, account, "/new")
    card_file = tmp_path / "林雾.png"
    card_file.write_bytes(cards.card_png(cards.v2_card()))
    page.locator("#card-file").set_input_files(str(card_file))

    preview = page.locator(".card-preview-body")
    expect(preview.locator(".card-preview-name")).to_have_text("林雾")
    expect(preview.locator(".card-preview-soul")).to_contain_text("林雾是雾港一家旧书店的店员")
    expect(preview.locator(".card-preview-soul")).to_contain_text("【场景】对方推开书店的门")
    expect(preview.locator(".card-preview-greeting")).to_have_text("*抬起头* 欢迎光临，你。今天想找什么书？")
    expect(preview.locator(".chip")).to_have_text(["日常", "治愈", "书店"])
    expect(preview.locator(".avatar img")).to_have_attribute("src", re.compile(r"^data:image/png;base64,"))
    expect(preview).to_contain_text("示例对话、作者备注")
    assert ai_users(stack, account) == []  # a preview stores nothing
    screenshot(page, "card-import-phone")

    page.get_by_role("button", name="保存为新的 AI 朋友").click()
    expect(page.locator(".chat-name")).to_have_text("林雾")
    expect(page.locator(".msg-list .msg-ai .bubble")).to_have_text(["*抬起头* 欢迎光临，你。今天想找什么书？"])
    [ai] = ai_users(stack, account)
    assert ai["from_card"] and ai["avatar"].startswith(f"/api/ai-users/{ai['id']}/avatar/")
    expect(page.locator(".bar-avatar img")).to_have_attribute("src", ai["avatar"])

    page.goto(f"{stack.base}/#/edit/{ai['id']}")
    expect(page.locator("#ai-soul")).to_have_value(ai["base_soul"])
    kept = page.locator(".card-kept")
    kept.locator("summary").click()
    expect(kept.locator(".kept-name")).to_contain_text(["作者备注", "示例对话", "备选开场白", "世界书（角色书）"])
    expect(kept).to_contain_text("2 条")
    expect(kept).to_contain_text("灯塔、lighthouse：雾港的灯塔已经熄灭十年")
    kept.evaluate("section => section.scrollIntoView()")
    expect(page.locator(".toast")).to_have_count(0)  # 已导入… has gone
    screenshot(page, "card-kept-phone")

    with page.expect_download() as png_download:
        page.get_by_role("button", name="导出 PNG").click()
    assert png_download.value.suggested_filename == "林雾.png"
    png = Path(png_download.value.path()).read_bytes()
    exported = json.loads(base64.b64decode(read_png_text(png).texts["chara"]))
    assert exported["spec"] == "chara_card_v2" and exported["data"]["character_book"] == cards.LOREBOOK
    with page.expect_download() as json_download:
        page.get_by_role("button", name="导出 JSON").click()
    assert json.loads(Path(json_download.value.path()).read_text())["data"] == exported["data"]


def test_a_broken_card_says_why_and_saves_nothing(stack: Stack, open_context, tmp_path: Path) -> None:
    account = stack.register()
    page = open_context(PHONE).new_page()
    open_logged_in(page, stack, account, "/new")
    broken = tmp_path / "broken.png"
    broken.write_bytes(cards.with_bad_crc(cards.card_png(cards.v2_card())))
    page.locator("#card-file").set_input_files(str(broken))
    expect(page.locator(".card-preview .form-error")).to_contain_text("这张角色卡读不了：")
    expect(page.locator(".card-preview .form-error")).to_contain_text("bad CRC")
    not_a_card = tmp_path / "notes.json"
    not_a_card.write_text('{"title": "购物清单"}')
    page.locator("#card-file").set_input_files(str(not_a_card))
    expect(page.locator(".card-preview .form-error")).to_contain_text("not a character card")
    assert ai_users(stack, account) == []
    # the form itself still creates an AI user by hand
    page.get_by_label("名字").fill("海风")
    page.get_by_role("button", name="创建", exact=True).click()
    expect(page.locator(".chat-name")).to_have_text("海风")
