"""Discover at phone size (issue 40): the starter characters a fresh install ships, categories as chips, the
search box, tag filters, a character's page before befriending, and minors' mode refusing a romance character
on that page with the server's reason."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, Stack, bearer, screenshot
from tests.browser.test_web_client import open_logged_in

pytestmark = pytest.mark.browser

STARTERS = ["温温", "白小题", "阿澈", "知意姐", "司南"]


def friend_ids(stack: Stack, account: dict) -> list[str]:
    return [f["id"] for f in httpx.get(f"{stack.base}/api/friends", headers=bearer(account)).json()["friends"]]


def test_a_fresh_install_shows_starters_found_by_category_search_and_tag(stack: Stack, open_context) -> None:
    account = stack.register()
    owner = stack.register("o")
    stack.create_ai_user(owner, name="夜航", visibility="public", category="朋友", tags=["音乐", "电台"])
    page = open_context(PHONE).new_page()
    open_logged_in(page, stack, account, "/discover")
    listing = page.get_by_role("list", name="公开的 AI")
    for name in STARTERS:
        expect(listing.locator(".discover-card", has_text=name)).to_be_visible()
    expect(page.get_by_role("group", name="分类").get_by_role("button", name="全部")).to_have_attribute(
        "aria-pressed", "true"
    )
    screenshot(page, "discover-phone")

    page.get_by_role("group", name="分类").get_by_role("button", name="学习", exact=True).click()
    expect(listing.locator(".discover-card")).to_have_count(1)
    expect(listing.locator(".discover-card")).to_contain_text("白小题")

    page.get_by_role("group", name="分类").get_by_role("button", name="全部").click()
    page.get_by_role("searchbox", name="搜索名字或标签").fill("音乐")
    expect(listing.locator(".discover-card b")).to_have_text(["夜航", "阿澈"], timeout=10_000)
    screenshot(page, "discover-search-phone")

    listing.locator(".discover-card", has_text="阿澈").get_by_role("button", name="只看标签「夜猫子」").click()
    expect(page.get_by_role("button", name="取消标签筛选「夜猫子」")).to_be_visible()
    expect(listing.locator(".discover-card b")).to_have_text(["阿澈"])
    page.get_by_role("button", name="取消标签筛选「夜猫子」").click()
    expect(listing.locator(".discover-card b")).to_have_text(["夜航", "阿澈"])

    page.get_by_role("searchbox", name="搜索名字或标签").fill("没有这个人")
    expect(page.get_by_role("status")).to_have_text("没有找到符合条件的 AI，换个词或分类试试。")


def test_a_character_page_comes_before_befriending(stack: Stack, open_context) -> None:
    account = stack.register()
    page = open_context(PHONE).new_page()
    open_logged_in(page, stack, account, "/discover")
    page.get_by_role("link", name="查看「司南」的主页").click()
    character = page.get_by_role("article", name="司南")
    expect(character.get_by_role("heading", name="司南")).to_be_visible()
    expect(character).to_contain_text("青鸟号")  # the description
    expect(character).to_contain_text("通讯接通")  # the greeting TA opens with
    expect(character.locator(".tag-chip")).to_have_text(["# 科幻", "# 太空", "# 好奇心", "# 探索"])
    expect(character.locator(".character-meta")).to_contain_text("冒险")
    assert friend_ids(stack, account) == []  # opening the page befriends nobody
    screenshot(page, "character-phone")

    character.get_by_role("button", name="加为好友").click()
    expect(character.get_by_role("button", name="去聊天")).to_be_visible()
    sinan = character.get_attribute("data-id")
    assert friend_ids(stack, account) == [sinan]
    character.get_by_role("button", name="去聊天").click()
    expect(page.locator(".chat-name")).to_have_text("司南")

    # a tag on the page lists the characters with that tag
    page.goto(f"{stack.base}/#/character/{sinan}")
    page.get_by_role("article", name="司南").get_by_role("button", name="只看标签「太空」").click()
    expect(page.get_by_role("button", name="取消标签筛选「太空」")).to_be_visible()
    expect(page.get_by_role("list", name="公开的 AI").locator(".discover-card b")).to_have_text(["司南"])


def test_in_minors_mode_a_romance_character_is_listed_and_its_page_says_why_it_cannot_be_befriended(
    stack: Stack, open_context
) -> None:
    owner = stack.register("o")
    partner = stack.create_ai_user(owner, name="心动学姐", visibility="public", category="恋爱", tags=["恋爱向"])
    assert partner["romance"] is True
    account = stack.register()
    changed = httpx.put(
        f"{stack.base}/api/profile/protection", headers=bearer(account), json={"birth_year": 1990, "minor_mode": True}
    )
    assert changed.status_code == 200, changed.text
    page = open_context(PHONE).new_page()
    open_logged_in(page, stack, account, "/discover")
    page.get_by_role("group", name="分类").get_by_role("button", name="恋爱", exact=True).click()
    expect(page.get_by_role("list", name="公开的 AI").locator(".discover-card b")).to_contain_text(["心动学姐"])
    page.get_by_role("link", name="查看「心动学姐」的主页").click()
    character = page.get_by_role("article", name="心动学姐")
    character.get_by_role("button", name="加为好友").click()
    expect(character.get_by_role("alert")).to_have_text("你开启了未成年人模式，暂时不能添加恋爱类角色为好友。")
    expect(character.get_by_role("button", name="加为好友")).to_be_visible()
    screenshot(page, "character-minor-phone")
    assert partner["id"] not in friend_ids(stack, account)
