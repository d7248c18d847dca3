"""Discover (issue 40): owner-set categories and tags, search of the public listing by name, tag and category,
the starter characters a fresh install ships (seeded once on every store, hidden by a takedown that outlives a
restart), and minors' mode: a romance character is listed, befriending it is refused."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from dreamchat.api.app import create_app
from dreamchat.config import Settings
from dreamchat.domain import bounds
from dreamchat.domain.discover import CATEGORIES
from dreamchat.services.starters import shipped
from dreamchat.wiring import Runtime
from tests import cards
from tests.api.conftest import OPERATORS, Person, register
from tests.api.test_protection import ADULT, code, put
from tests.api.test_reports import reported
from tests.api.test_takedown import take_down
from tests.conftest import memory_runtime
from tests.services.conftest import runtime  # noqa: F401 (the fixture: memory, or every store)

STARTER_NAMES = {"温温", "白小题", "阿澈", "知意姐", "司南"}


@pytest.fixture
def settings(tmp_path) -> Settings:
    """A fresh install: the starter characters seeded (the other API tests leave them out)."""
    return Settings(data_dir=tmp_path / "data", run_scheduler=False, operators=OPERATORS)


def public(viewer: Person, **params) -> list[dict]:
    response = viewer.get("/api/ai-users", params={"scope": "public", **params})
    assert response.status_code == 200, response.text
    return response.json()["ai_users"]


def names(viewer: Person, **params) -> list[str]:
    return sorted(a["name"] for a in public(viewer, **params))


def every_page(viewer: Person, limit: int, **params) -> list[list[str]]:
    pages, cursor = [], None
    while True:
        extra = {"cursor": cursor} if cursor else {}
        response = viewer.get("/api/ai-users", params={"scope": "public", "limit": limit, **params, **extra})
        assert response.status_code == 200, response.text
        pages.append([a["name"] for a in response.json()["ai_users"]])
        if (cursor := response.json()["next_cursor"]) is None:
            return pages


# categories and tags, set by the owner


def test_the_owner_files_an_ai_user_under_a_category_with_tags(alice) -> None:
    made = alice.create_ai_user(category="学习", tags=[" 数学 ", "考试", "数学", "考试"])
    assert (made["category"], made["tags"]) == ("学习", ["数学", "考试"])  # trimmed, each once
    assert alice.create_ai_user()["category"] == "其他" and alice.create_ai_user()["tags"] == []
    changed = alice.put(f"/api/ai-users/{made['id']}", json={"category": "冒险", "tags": ["太空"]}).json()
    assert (changed["category"], changed["tags"]) == ("冒险", ["太空"])
    kept = alice.put(f"/api/ai-users/{made['id']}", json={"name": "小题"}).json()
    assert (kept["category"], kept["tags"]) == ("冒险", ["太空"])  # an edit of something else keeps them


def test_a_romance_category_marks_the_ai_user_romance(alice) -> None:
    assert alice.create_ai_user(category="恋爱")["romance"] is True
    friend = alice.create_ai_user(category="朋友")
    assert friend["romance"] is False
    assert alice.put(f"/api/ai-users/{friend['id']}", json={"category": "恋爱"}).json()["romance"] is True


@pytest.mark.parametrize(
    "fields",
    [
        {"category": "romance"},
        {"category": ""},
        {"tags": [f"t{i}" for i in range(bounds.TAGS + 1)]},
        {"tags": ["长" * (bounds.TAG_CHARS + 1)]},
        {"tags": ["  "]},
        {"tags": "学习"},
    ],
)
def test_a_category_or_tags_out_of_bounds_are_refused(alice, fields) -> None:
    assert alice.post("/api/ai-users", json={"name": "小梦", **fields}).status_code == 422
    made = alice.create_ai_user()
    assert alice.put(f"/api/ai-users/{made['id']}", json=fields).status_code == 422


def test_the_category_list_is_the_documented_one() -> None:
    assert CATEGORIES == ("陪伴", "朋友", "学习", "冒险", "幻想", "恋爱", "其他")


# search


@pytest.fixture
def listed(alice, bob) -> None:
    bob.create_ai_user(name="星河学长", visibility="public", category="学习", tags=["数学", "Physics"])
    bob.create_ai_user(name="夜曲", visibility="public", category="朋友", tags=["音乐", "夜猫子"])
    bob.create_ai_user(name="小星", visibility="public", category="冒险", tags=["太空"])
    bob.create_ai_user(name="私藏的星星", category="学习", tags=["数学"])  # private: never found by others
    alice.create_ai_user(name="我的星", visibility="private")


def test_q_finds_words_in_a_name_or_a_tag_ignoring_case(alice, listed) -> None:
    assert names(alice, q="星") == ["小星", "星河学长"]
    assert names(alice, q="physics") == ["星河学长"]  # a tag, any case
    assert names(alice, q="夜") == ["夜曲", "阿澈"]  # a name and a tag (夜曲 has both: listed once); a starter's tag
    assert names(alice, q="  ") == sorted(["夜曲", "小星", "星河学长", *STARTER_NAMES])  # a cleared box: everything
    assert names(alice, q="没有这个") == []


def test_tag_matches_one_tag_exactly_and_category_one_category(alice, listed) -> None:
    assert names(alice, tag="数学") == ["星河学长"]
    assert names(alice, tag="PHYSICS") == ["星河学长"]
    assert names(alice, tag="数") == []  # a tag is matched whole
    assert names(alice, category="学习") == ["星河学长", "白小题"]
    assert names(alice, category="幻想") == []
    assert names(alice, q="星", category="冒险") == ["小星"]
    assert names(alice, q="星", tag="音乐") == []


@pytest.mark.parametrize(
    "params",
    [
        {"category": "恋"},
        {"category": "love"},
        {"q": "长" * (bounds.NAME_CHARS + 1)},
        {"tag": "长" * (bounds.TAG_CHARS + 1)},
        {"scope": "mine", "q": "星"},
        {"scope": "mine", "category": "学习"},
    ],
)
def test_a_search_out_of_bounds_is_a_422(alice, params) -> None:
    response = alice.get("/api/ai-users", params={"scope": "public", **params})
    assert response.status_code == 422, response.text
    assert response.json()["error"]["code"]


def test_a_forged_cursor_stays_a_400_with_a_search(alice) -> None:
    response = alice.get("/api/ai-users", params={"scope": "public", "q": "星", "cursor": "e30"})
    assert response.status_code == 400 and response.json()["error"]["code"] == "bad_request"


@pytest.fixture
def on_store(runtime: Runtime) -> Iterator[TestClient]:  # noqa: F811 (the fixture imported above)
    """The offline app on the runtime's store, starters seeded: memory, or each store for `every_store`."""
    with TestClient(create_app(runtime.settings, runtime)) as test_client:
        yield test_client


@pytest.mark.every_store
def test_a_search_pages_through_every_match_once(monkeypatch, on_store) -> None:
    alice, bob = register(on_store, "alice"), register(on_store, "bob")
    monkeypatch.setattr("dreamchat.services.friend_lists.DISCOVER_SCAN", 4)  # pages cut short by the scan bound
    for i in range(9):
        bob.create_ai_user(name=f"{'喵' if i % 3 == 0 else '汪'}{i}", visibility="public", tags=["宠物"])
    pages = every_page(alice, 2, q="喵")
    assert sorted(n for p in pages for n in p) == ["喵0", "喵3", "喵6"]
    assert all(len(p) <= 2 for p in pages) and len(pages) >= 14 // 4  # the scan bound cut pages short
    everything = every_page(alice, 3)
    shown = [n for p in everything for n in p]
    assert len(shown) == len(set(shown)) == 9 + len(STARTER_NAMES)


# the starter characters


def test_the_starters_are_written_for_this_product_and_fit_every_rule() -> None:
    starters = shipped()
    assert {c["name"] for c in starters.characters} == STARTER_NAMES
    for character in starters.characters:
        assert character["category"] in CATEGORIES and character["category"] != "恋爱"
        assert character.get("romance", False) is False
        assert 1 <= len(character["tags"]) <= bounds.TAGS
        assert all(1 <= len(t) <= bounds.TAG_CHARS for t in character["tags"])
        assert character["greeting"] and len(character["greeting"]) <= bounds.GREETING_CHARS
        assert character["name"] in character["base_soul"] or character["id"] == "ai_starter_zhiyi"
    assert len({c["category"] for c in starters.characters}) >= 4  # varied


@pytest.mark.every_store
def test_a_fresh_install_lists_the_starters_once_however_often_it_starts(runtime: Runtime, on_store) -> None:  # noqa: F811
    alice = register(on_store, "alice")
    found = public(alice)
    assert {a["name"] for a in found} == STARTER_NAMES
    assert all(not a["is_owner"] and not a["romance"] and a["visibility"] == "public" for a in found)
    assert {a["name"] for a in public(alice, category="学习")} == {"白小题"}
    assert {a["name"] for a in public(alice, tag="夜猫子")} == {"阿澈"}
    before = runtime.store.query("PUBLIC").items
    with TestClient(create_app(runtime.settings, runtime)):  # started again on the same store
        pass
    assert runtime.store.query("PUBLIC").items == before
    assert create_app(runtime.settings, runtime).state.services.starters.seed() == 0


def test_a_starter_is_befriended_and_greets_like_any_public_ai_user(alice) -> None:
    (wenwen,) = public(alice, q="温温")
    assert alice.post(f"/api/friends/{wenwen['id']}").status_code == 201
    greeted = alice.post(f"/api/ai-users/{wenwen['id']}/greet")
    assert greeted.status_code in (200, 201), greeted.text
    messages = alice.get(f"/api/ai-users/{wenwen['id']}/messages").json()["messages"]
    assert [m["content"] for m in messages] == [wenwen["greeting"]]
    assert alice.put(f"/api/ai-users/{wenwen['id']}", json={"name": "改名"}).status_code == 403  # not theirs


def test_a_takedown_hides_a_starter_and_a_restart_does_not_bring_it_back(client, ops, alice) -> None:
    (sinan,) = public(alice, q="司南")
    take_down(ops, reported(alice, sinan["id"])["id"])
    assert "司南" not in names(alice) and alice.get(f"/api/ai-users/{sinan['id']}").status_code == 404
    started = client.app.state.runtime
    assert create_app(started.settings, started).state.services.starters.seed() == 0  # started again
    assert names(alice) == sorted(STARTER_NAMES - {"司南"})


def test_without_the_setting_nothing_is_seeded(tmp_path, clock, rng) -> None:
    settings = Settings(data_dir=tmp_path, run_scheduler=False, starters=False)
    with TestClient(create_app(settings, memory_runtime(settings, clock, rng))) as test_client:
        assert public(register(test_client, "carol")) == []


# minors' mode and cards


def test_in_minors_mode_a_romance_character_is_listed_but_cannot_be_befriended(alice, bob) -> None:
    partner = bob.create_ai_user(name="小恋", category="恋爱", visibility="public")
    put(alice, birth_year=ADULT, minor_mode=True)
    assert [a["id"] for a in public(alice, category="恋爱")] == [partner["id"]]
    assert code(alice.post(f"/api/friends/{partner['id']}")) == "minor_protection"


def test_an_imported_card_maps_its_tags_to_a_category(alice) -> None:
    card = cards.v2_card()
    card["data"]["tags"] = ["治愈", "学习", "书店"]
    made = alice.post("/api/ai-users/import", json=card)
    assert made.status_code == 201, made.text
    assert (made.json()["category"], made.json()["tags"]) == ("学习", ["治愈", "学习", "书店"])
    alice.put(f"/api/ai-users/{made.json()['id']}", json={"category": "幻想"})
    exported = alice.get(f"/api/ai-users/{made.json()['id']}/card").json()
    again = alice.post("/api/ai-users/import", json=exported).json()
    assert again["category"] == "幻想"  # our own export keeps the owner's choice
