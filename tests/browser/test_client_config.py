"""The client's constants come from `GET /api/client-config`: the forms show the server's limits and night
windows, and the kept copy opens them offline."""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect

from dreamchat.domain import bounds
from tests.browser.conftest import Stack
from tests.browser.test_installable import controlled, logged_in_page

pytestmark = pytest.mark.browser

REPORT_CHARS = 42  # the bound a test's server says (the real one is bounds.REPORT_REASON_CHARS)


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


def test_the_report_form_checks_the_bound_the_server_sends(open_context, stack: Stack) -> None:
    """The report form's limit is the config's, whatever it says; a copy kept before the server sent the
    moderation bounds is not used (the fresh one is)."""
    owner, person = stack.register("cfgowner"), stack.register("cfgperson")
    name = f"星野{uuid.uuid4().hex[:4]}"
    ai_user = stack.create_ai_user(owner, name=name, visibility="public")

    def prepare(context: Any, page: Any) -> None:
        def smaller(route: Any) -> None:
            body = route.fetch().json()
            body["limits"]["report_reason_chars"] = REPORT_CHARS
            route.fulfill(json=body)

        context.route("**/api/client-config", smaller)
        stale = httpx.get(f"{stack.base}/api/client-config").json()  # as an older server sent it
        for name in ("report_reason_chars", "note_chars", "suspension_reason_chars"):
            del stale["limits"][name]
        context.add_init_script(f"localStorage.setItem('dreamchat.config', {json.dumps(json.dumps(stale))})")

    _, page = logged_in_page(open_context, stack, person, "/discover", prepare)
    page.locator(f".discover-card[data-id='{ai_user['id']}']").get_by_role("button", name=f"举报「{name}」").click()
    dialog = page.get_by_role("dialog", name="举报")
    expect(dialog.get_by_label("举报理由")).to_have_attribute("maxlength", str(REPORT_CHARS))
    expect(dialog.locator(".counter")).to_have_text(f"0 / {REPORT_CHARS}")
    assert REPORT_CHARS != bounds.REPORT_REASON_CHARS
