"""The client's constants come from `GET /api/client-config`: the forms show the server's limits and night
windows, and the kept copy opens them offline."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from dreamchat.domain import bounds
from tests.browser.conftest import Stack
from tests.browser.test_installable import controlled, logged_in_page

pytestmark = pytest.mark.browser


def test_the_editor_shows_the_servers_limits_and_keeps_them_offline(open_context, stack: Stack) -> None:
    account = stack.register("cfg")
    context, page = logged_in_page(open_context, stack, account, "/new")
    name = page.get_by_label("名字")
    expect(name).to_have_attribute("maxlength", str(bounds.NAME_CHARS))
    expect(page.get_by_text("夜间时段改为 02:00–10:00")).to_be_visible()
    expect(page.locator(".counter")).to_have_text(f"0 / {bounds.BASE_SOUL_CHARS}")
    controlled(page)
    context.set_offline(True)
    page.reload()
    expect(page.locator("#offline")).to_be_visible()
    expect(page.get_by_label("名字")).to_have_attribute("maxlength", str(bounds.NAME_CHARS))
    expect(page.get_by_text("夜间时段改为 02:00–10:00")).to_be_visible()
    context.set_offline(False)
