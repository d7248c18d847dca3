"""Character cards through the API: V1/V2/V3 cards as JSON and PNG become AI users, AI users go out
as V2 cards (JSON and PNG) that import again as the same AI user, and every broken or hostile upload
is a 4xx that says what is wrong and stores nothing. What a card keeps once stored (round trips, odd
and huge values, the avatar served back) and what an erasure finds run on every store; parsing and
refusals, decided before anything is written, on the memory store."""

from __future__ import annotations

import base64
import io
import json
import sqlite3
import struct
import zlib
from dataclasses import dataclass

import pytest
from fastapi.testclient import TestClient
from PIL import Image

from dreamchat import keys
from dreamchat.adapters.memory_store import MemoryItemStore
from dreamchat.adapters.sqlite_store import SqliteItemStore
from dreamchat.api.app import create_app
from dreamchat.config import Settings
from dreamchat.domain.png_text import SIGNATURE, read_png_text, with_text
from dreamchat.errors import Unavailable
from dreamchat.services.ai_users import AIUserService
from dreamchat.services.cards import CardService
from dreamchat.services.storage.unit_of_work import Storage
from dreamchat.wiring import Runtime
from tests import cards
from tests.api.conftest import Person, register
from tests.conftest import memory_runtime
from tests.services.conftest import runtime  # noqa: F401 (the fixture: memory, or every store)

V2_FIELDS = (
    "name",
    "description",
    "personality",
    "scenario",
    "first_mes",
    "mes_example",
    "creator_notes",
    "system_prompt",
    "post_history_instructions",
    "alternate_greetings",
    "tags",
    "creator",
    "character_version",
    "extensions",
)


@dataclass
class World:
    client: TestClient
    runtime: Runtime
    alice: Person
    _bob: Person | None = None

    @property
    def bob(self) -> Person:
        """A second account, registered when a test needs one (a password hash costs time)."""
        self._bob = self._bob or register(self.client, "bob")
        return self._bob

    def stored(self) -> tuple[int, int]:
        """(items, blobs) in the stores: what a refused import must leave unchanged (the count of the
        account's card uploads, a request limit's window, aside)."""
        inner = self.runtime.store.inner
        if isinstance(inner, MemoryItemStore):
            items = sum(1 for pk, _ in inner._rows if not pk.startswith("LIMIT#"))
        elif isinstance(inner, SqliteItemStore):
            with sqlite3.connect(self.runtime.settings.data_dir / "items.db") as db:
                items = db.execute("SELECT COUNT(*) FROM items WHERE pk NOT LIKE 'LIMIT#%'").fetchone()[0]
        else:
            items = inner._client.scan(
                TableName="dreamchat",
                Select="COUNT",
                FilterExpression="NOT begins_with(pk, :limit)",
                ExpressionAttributeValues={":limit": {"S": "LIMIT#"}},
            )["Count"]
        return items, len(self.runtime.blobs.list(""))

    def upload(self, data: bytes, person: Person | None = None, **params):
        person = person or self.alice
        return person.post("/api/ai-users/import", files={"file": ("card.png", data, "image/png")}, params=params)

    def raw(self, body: bytes, content_type: str, person: Person | None = None):
        """The body as it is, with this Content-Type."""
        person = person or self.alice
        headers = {**person.headers, "Content-Type": content_type}
        return self.client.post("/api/ai-users/import", content=body, headers=headers)

    def card(self, ai_user_id: str, **params):
        return self.alice.get(f"/api/ai-users/{ai_user_id}/card", params=params)


@pytest.fixture
def world(runtime: Runtime) -> World:  # noqa: F811 (the fixture imported above)
    client = TestClient(create_app(runtime.settings, runtime))
    return World(client, runtime, register(client, "alice"))


def imported(world: World, card: dict, *, png: bool = False) -> dict:
    response = world.upload(cards.card_png(card)) if png else world.alice.post("/api/ai-users/import", json=card)
    assert response.status_code == 201, response.text
    return response.json()


def png_card(png: bytes) -> dict:
    return json.loads(base64.b64decode(read_png_text(png).texts["chara"]))


# --- import --------------------------------------------------------------------------------------


def test_a_v2_card_becomes_an_ai_user_with_its_persona_greeting_and_tags(world: World) -> None:
    ai = imported(world, cards.v2_card())
    assert ai["name"] == "林雾"
    assert ai["base_soul"] == (
        "林雾是雾港一家旧书店的店员，二十四岁，说话轻声细语。\n\n"
        "【性格】安静、细心，偶尔冒出冷笑话。\n\n"
        "【场景】{{user}}推开书店的门，风铃响了一声。"
    )
    assert ai["greeting"] == "*抬起头* 欢迎光临，{{user}}。今天想找什么书？"
    assert ai["tags"] == ["日常", "治愈", "书店"]
    assert ai["from_card"] is True and ai["visibility"] == "private" and ai["is_owner"] is True
    assert ai["imported"]["spec"] == "chara_card_v2" and ai["imported"]["cuts"] == []
    assert ai["imported"]["unused"] == [
        "mes_example",
        "creator_notes",
        "alternate_greetings",
        "character_book",
        "creator",
        "character_version",
        "extensions",
    ]
    # it is a friend at once, as one the person created, and it greets once
    assert [f["id"] for f in world.alice.get("/api/friends").json()["friends"]] == [ai["id"]]
    greeting = world.alice.post(f"/api/ai-users/{ai['id']}/greet").json()["message"]
    assert greeting["content"] == "*抬起头* 欢迎光临，你。今天想找什么书？"  # {{user}} said to the person


def test_the_card_can_come_as_a_raw_json_body_a_raw_png_body_or_a_form_field(world: World) -> None:
    card = cards.v2_card()
    as_json = world.alice.post("/api/ai-users/import", json=card)
    raw_png = world.raw(cards.card_png(card), "image/png")
    as_form = world.upload(json.dumps(card).encode())  # a .json file in the form
    assert [r.status_code for r in (as_json, raw_png, as_form)] == [201, 201, 201]
    assert {r.json()["base_soul"] for r in (as_json, raw_png, as_form)} == {as_json.json()["base_soul"]}


def test_macros_are_resolved_in_what_is_used_and_kept_verbatim_in_what_is_not(world: World) -> None:
    ai = imported(world, cards.macro_card())
    assert (
        ai["base_soul"]
        == "小满是{{user}}的青梅竹马。小满记得{{user}}的生日。小满爱吃桃子。\n\n【性格】{{user}}说什么小满都当真。"
    )
    assert ai["greeting"] == "{{user}}！我是小满，小满等你好久了。"
    exported = world.card(ai["id"]).json()["data"]
    assert exported["mes_example"] == "{{char}}: 这一句原样保留 {{user}}"
    assert exported["description"] == cards.macro_card()["data"]["description"]  # unchanged: the card's own text


def test_an_english_card_speaks_of_the_user_in_english_and_v3_uses_the_nickname_for_char(world: World) -> None:
    ai = imported(world, cards.v3_card())
    assert ai["name"] == "Captain Mara Vell"
    assert ai["base_soul"].startswith("Mara commands the airship Kestrel. She trusts {{user}} with the maps.")
    assert ai["greeting"] == "Welcome aboard, {{user}}. I'm Mara. Don't touch the red lever."
    assert ai["tags"] == ["adventure", "airship"]  # repeats (case-insensitive) dropped
    assert ai["imported"]["spec"] == "chara_card_v3"
    assert {"system_prompt", "post_history_instructions", "assets", "nickname", "group_only_greetings"} <= set(
        ai["imported"]["unused"]
    )


def test_a_v1_card_is_read_from_the_top_level(world: World) -> None:
    ai = imported(world, cards.v1_card())
    assert (ai["name"], ai["greeting"]) == ("Old Tom", "Sit down, {{user}}, and I'll tell ye about the whale.")
    assert ai["base_soul"] == "A retired sailor who tells tall tales.\n\n【性格】grumpy but kind"


@pytest.mark.every_store
def test_a_png_card_brings_its_picture_shrunk_and_without_metadata_as_the_avatar(world: World) -> None:
    ai = imported(world, cards.v2_card(), png=True)
    assert ai["avatar"].startswith(f"/api/ai-users/{ai['id']}/avatar/")
    served = world.client.get(ai["avatar"])  # no login: an <img> sends none
    assert served.status_code == 200 and served.headers["content-type"] == "image/png"
    assert "immutable" in served.headers["cache-control"]
    assert Image.open(io.BytesIO(served.content)).size == (341, 512)  # 600 x 900, the longer side to 512
    assert read_png_text(served.content).texts == {}  # neither the card nor the author's comment


def test_ccv3_is_preferred_when_a_png_carries_both_chunks(world: World) -> None:
    png = cards.png_bytes(
        cards.picture(), {"chara": cards.encoded(cards.v2_card()), "ccv3": cards.encoded(cards.v3_card())}
    )
    response = world.upload(png)
    assert response.status_code == 201 and response.json()["name"] == "Captain Mara Vell"


def test_a_preview_shows_what_would_be_created_and_stores_nothing(world: World) -> None:
    before = world.stored()
    response = world.upload(cards.card_png(cards.v2_card()), preview="true")
    assert response.status_code == 200, response.text
    preview = response.json()["preview"]
    assert (preview["name"], preview["greeting"]) == ("林雾", "*抬起头* 欢迎光临，{{user}}。今天想找什么书？")
    assert preview["base_soul"].startswith("林雾是雾港")
    assert preview["avatar"].startswith("data:image/png;base64,")
    assert response.json()["imported"]["unused"][0] == "mes_example"
    assert world.stored() == before


@pytest.mark.every_store
def test_an_over_long_card_is_cut_to_fit_with_a_note_and_kept_whole(world: World) -> None:
    card = cards.v2_card()
    card["data"]["description"] = "她喜欢雨天。" * 2000  # 12,000 characters
    card["data"]["first_mes"] = "你好。" * 400
    card["data"]["name"] = "名" * 60
    ai = imported(world, card)
    assert len(ai["base_soul"]) <= 4000 and ai["base_soul"].endswith("【场景】{{user}}推开书店的门，风铃响了一声。")
    assert len(ai["greeting"]) <= 500 and ai["greeting"].endswith("…")
    cuts = {cut["field"]: cut for cut in ai["imported"]["cuts"]}
    assert cuts["description"]["original"] == 12_000 and cuts["description"]["kept"] < 4000
    assert cuts["name"] == {"field": "name", "original": 60, "kept": 40}
    assert set(cuts) == {"name", "description", "first_mes"}
    assert world.card(ai["id"]).json()["data"]["description"] == card["data"]["description"]


def test_our_own_export_brings_our_settings_back(world: World) -> None:
    ai = world.alice.create_ai_user(name="阿澈", avatar="🦊", timezone="Europe/Paris", night_owl=True, model="reasoner")
    again = imported(world, world.card(ai["id"]).json())
    assert (again["avatar"], again["timezone"], again["night_owl"], again["model"]) == (
        "🦊",
        "Europe/Paris",
        True,
        "reasoner",
    )
    again_png = world.upload(world.card(ai["id"], format="png").content).json()
    assert again_png["avatar"] == "🦊"  # the emoji, not the one-colour card picture


# --- export --------------------------------------------------------------------------------------


@pytest.mark.every_store
@pytest.mark.parametrize("card", [cards.v2_card, cards.v3_card, cards.v1_card, cards.macro_card])
@pytest.mark.parametrize("png", [False, True], ids=["json", "png"])
def test_card_to_ai_user_to_card_keeps_every_field_and_imports_as_the_same_ai_user(world: World, card, png) -> None:
    original = card()
    data = original.get("data", original)
    ai = imported(world, original, png=png)
    response = world.card(ai["id"], format="png" if png else "json")
    exported = png_card(response.content) if png else response.json()
    assert (exported["spec"], exported["spec_version"]) == ("chara_card_v2", "2.0")
    assert set(V2_FIELDS) <= set(exported["data"])
    for field in V2_FIELDS[:-1]:
        assert exported["data"][field] == data.get(field, [] if field in ("alternate_greetings", "tags") else "")
    assert exported["data"].get("character_book") == data.get("character_book")
    ours = exported["data"]["extensions"].pop("dreamchat")
    assert exported["data"]["extensions"] == data.get("extensions", {})  # the card's own, verbatim
    assert ours["timezone"] == "Asia/Shanghai" and ours["model"] == "chat"
    assert exported["name"] == exported["data"]["name"]  # the V1 mirror for older readers
    again = imported(
        world,
        {**exported, "data": {**exported["data"], "extensions": {**exported["data"]["extensions"], "dreamchat": ours}}},
        png=png,
    )
    fields = ("name", "base_soul", "greeting", "tags", "timezone", "night_owl", "model")
    assert {f: again[f] for f in fields} == {f: ai[f] for f in fields}
    if original.get("spec") == "chara_card_v3":  # V3's own fields travel in our namespace and come back
        assert ours["card_fields"]["nickname"] == "Mara"
        assert sorted(again["imported"]["unused"]) == sorted(ai["imported"]["unused"])
        third = world.card(again["id"]).json()
        assert third["data"]["extensions"]["dreamchat"]["card_fields"] == ours["card_fields"]


@pytest.mark.every_store
def test_an_exported_png_carries_the_avatar_and_a_chara_chunk_sillytavern_reads(world: World) -> None:
    ai = imported(world, cards.v2_card(), png=True)
    response = world.client.get(
        f"/api/ai-users/{ai['id']}/card", headers={**world.alice.headers, "Accept": "image/png"}
    )
    assert response.status_code == 200 and response.headers["content-type"] == "image/png"
    assert "attachment" in response.headers["content-disposition"]
    png = read_png_text(response.content)
    assert (png.width, png.height) == (341, 512) and set(png.texts) == {"chara"}
    assert png_card(response.content)["data"]["name"] == "林雾"


def test_json_is_the_default_and_accept_chooses_png(world: World) -> None:
    ai = world.alice.create_ai_user()
    kinds = {
        accept: world.client.get(
            f"/api/ai-users/{ai['id']}/card", headers={**world.alice.headers, "Accept": accept}
        ).headers["content-type"]
        for accept in ("*/*", "application/json", "image/png", "image/png;q=0.5, application/json", "image/*")
    }
    assert kinds == {
        "*/*": "application/json",
        "application/json": "application/json",
        "image/png": "image/png",
        "image/png;q=0.5, application/json": "application/json",
        "image/*": "image/png",
    }


def test_an_ai_user_made_here_exports_as_a_card_of_its_current_fields(world: World) -> None:
    ai = world.alice.create_ai_user(name="小梦", base_soul="温柔体贴的朋友", greeting="嗨～")
    world.alice.put(f"/api/ai-users/{ai['id']}", json={"base_soul": "爱听爵士乐的朋友"})
    data = world.card(ai["id"]).json()["data"]
    assert (data["name"], data["description"], data["personality"], data["first_mes"]) == (
        "小梦",
        "爱听爵士乐的朋友",
        "",
        "嗨～",
    )
    png = world.card(ai["id"], format="png")
    assert read_png_text(png.content).width == 400  # a picture of one colour, the card's shape


def test_fields_the_owner_changed_go_out_as_they_are_now_the_rest_as_the_card_had_them(world: World) -> None:
    ai = imported(world, cards.v2_card())
    world.alice.put(f"/api/ai-users/{ai['id']}", json={"base_soul": "新的人设", "greeting": "新的开场白"})
    data = world.card(ai["id"]).json()["data"]
    assert (data["description"], data["personality"], data["scenario"]) == ("新的人设", "", "")
    assert data["first_mes"] == "新的开场白"
    assert data["name"] == "林雾" and data["mes_example"] == cards.v2_card()["data"]["mes_example"]


def test_only_the_owner_gets_a_card_anyone_else_404_even_for_a_public_ai_user(world: World) -> None:
    private = imported(world, cards.v2_card())
    public = world.alice.create_ai_user(visibility="public")
    world.bob.post(f"/api/friends/{public['id']}")
    for ai in (private, public):
        for params in ({}, {"format": "png"}):
            response = world.bob.get(f"/api/ai-users/{ai['id']}/card", params=params)
            assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    assert world.client.get(f"/api/ai-users/{private['id']}/card").status_code == 401


@pytest.mark.every_store
def test_deleting_the_ai_user_deletes_its_avatar_and_card(world: World) -> None:
    before = world.stored()[1]
    ai = imported(world, cards.v2_card(), png=True)
    assert world.stored()[1] == before + 2  # the avatar and the card's data
    erased = world.alice.delete(f"/api/ai-users/{ai['id']}").json()["erased"]
    assert erased["blobs"] == 2 and world.stored()[1] == before
    assert world.client.get(ai["avatar"]).status_code == 404


@pytest.mark.every_store
def test_an_avatar_url_that_names_nothing_is_404(world: World) -> None:
    ai = imported(world, cards.v2_card(), png=True)
    token = ai["avatar"].rsplit("/", 1)[1]
    for path in (
        f"/api/ai-users/{ai['id']}/avatar/{'0' * 32}",
        f"/api/ai-users/{ai['id']}/avatar/{token.upper()}",
        f"/api/ai-users/..%2F..%2Fetc/avatar/{token}",
        f"/api/ai-users/ai_other/avatar/{token}",
    ):
        assert world.client.get(path).status_code == 404, path


# --- broken and hostile input ----------------------------------------------------------------------


def _png_without_card() -> bytes:
    return cards.png_bytes(cards.picture())


BROKEN_PNGS = {
    "bad CRC": (lambda: cards.with_bad_crc(cards.card_png(cards.v2_card())), "bad CRC"),
    "bad CRC in the picture": (lambda: cards.with_bad_crc(cards.card_png(cards.v2_card()), b"IDAT"), "IDAT chunk"),
    "truncated": (lambda: cards.card_png(cards.v2_card())[:5000], "truncated"),
    "cut in a chunk header": (lambda: cards.card_png(cards.v2_card())[:-6], "truncated"),
    "only the signature": (lambda: b"\x89PNG\r\n\x1a\n", "truncated"),
    "no chara chunk": (_png_without_card, "no tEXt chunk named chara or ccv3"),
    "bad base64": (lambda: cards.with_text_chunk(_png_without_card(), "chara", b"not*base64!"), "not valid base64"),
    "not JSON": (
        lambda: cards.with_text_chunk(_png_without_card(), "chara", base64.b64encode(b"{name: Alice")),
        "chara chunk: the card is not valid JSON",
    ),
    "not UTF-8": (
        lambda: cards.with_text_chunk(_png_without_card(), "chara", base64.b64encode(b'{"name": "\xff"}')),
        "not UTF-8",
    ),
    "JSON but no card": (
        lambda: cards.with_text_chunk(_png_without_card(), "chara", base64.b64encode(b"[1, 2]")),
        "a character card is a JSON object, not a list",
    ),
    "damaged pixels": (lambda: cards.damaged_pixels(cards.v2_card()), "cannot be decoded"),
    "pixel bomb": (lambda: cards.pixel_bomb(cards.v2_card()), "30000 x 30000 pixels"),
    "not a PNG at all": (lambda: b"GIF89a" + b"\0" * 100, "not valid JSON"),
}


@pytest.mark.parametrize("case", list(BROKEN_PNGS))
def test_a_broken_png_is_422_with_what_is_wrong_and_stores_nothing(world: World, case: str) -> None:
    make, says = BROKEN_PNGS[case]
    before = world.stored()
    response = world.upload(make())
    assert response.status_code == 422, response.text
    assert response.json()["error"]["code"] == "validation_error"
    assert says in response.json()["error"]["message"]
    assert world.stored() == before


def test_a_10_mb_png_is_413_before_it_is_read(world: World) -> None:
    before = world.stored()
    big = cards.with_text_chunk(cards.card_png(cards.v2_card()), "junk", b"x" * 10_000_000)
    response = world.upload(big)
    assert response.status_code == 413
    assert response.json()["error"] == {"code": "payload_too_large", "message": "request body is over 4096 KiB"}
    assert world.stored() == before


def _with(**fields) -> dict:
    card = cards.v2_card()
    card["data"].update(fields)
    return card


HOSTILE = {
    "empty body": (b"", "the upload is empty"),
    "a list": (b"[]", "a JSON object, not a list"),
    "a string": (b'"chara_card_v2"', "a JSON object, not text"),
    "no spec no name": (b'{"description": "x"}', "no spec"),
    "unknown spec": (
        json.dumps({"spec": "chara_card_v9", "data": {}}).encode(),
        "unsupported card spec 'chara_card_v9'",
    ),
    "spec of the wrong type": (json.dumps({"spec": 7, "data": {}}).encode(), "unsupported card spec a number"),
    "data a list": (json.dumps({"spec": "chara_card_v2", "data": []}).encode(), "data must be an object"),
    "no name": (json.dumps(_with(name="  ")).encode(), "the card has no name (data.name is empty)"),
    "a name of an override and combining marks": (
        json.dumps(_with(name="\u202e\u0301\u0302\u0303")).encode(),
        "data.name: needs a visible character",
    ),
    "a greeting that claims to be human": (
        json.dumps(_with(first_mes="我是真人哦")).encode(),
        "data.first_mes: claims to be human",
    ),
    "a greeting that claims it through a macro": (
        json.dumps(_with(first_mes="{{user}}，我是真人哦～")).encode(),
        "data.first_mes: claims to be human",
    ),
    "a v1 card's greeting that claims to be human": (
        json.dumps({"name": "x", "first_mes": "I'm not a bot, I promise."}).encode(),
        "first_mes: claims to be human",
    ),
    "name a number": (json.dumps(_with(name=5)).encode(), "data.name must be text, not a number"),
    "description an object": (json.dumps(_with(description={"a": 1})).encode(), "data.description must be text"),
    "tags a string": (json.dumps(_with(tags="a,b")).encode(), "data.tags must be a list of texts"),
    "a tag a number": (json.dumps(_with(tags=["a", 3])).encode(), "data.tags[1] must be text, not a number"),
    "greetings of lists": (json.dumps(_with(alternate_greetings=[["x"]])).encode(), "data.alternate_greetings[0]"),
    "book a string": (json.dumps(_with(character_book="lore")).encode(), "data.character_book must be an object"),
    "entries an object": (
        json.dumps(_with(character_book={"entries": {"0": {}}})).encode(),
        "data.character_book.entries must be a list",
    ),
    "an entry a number": (json.dumps(_with(character_book={"entries": [7]})).encode(), "entries[0] must be an object"),
    "extensions a list": (json.dumps(_with(extensions=[1])).encode(), "data.extensions must be an object"),
    "our model unknown": (
        json.dumps(_with(extensions={"dreamchat": {"model": "gpt-9"}})).encode(),
        "data.extensions.dreamchat.model must be chat or reasoner",
    ),
    "our time zone unknown": (
        json.dumps(_with(extensions={"dreamchat": {"timezone": "Mars/Olympus"}})).encode(),
        "unknown time zone 'Mars/Olympus'",
    ),
    "v3 date a string": (
        json.dumps({"spec": "chara_card_v3", "data": {"name": "x", "creation_date": "today"}}).encode(),
        "data.creation_date must be a number",
    ),
    "nested 100000 deep": (
        b'{"spec": "chara_card_v2", "data": {"name": "x", "extensions": {"a": '
        + b"[" * 100_000
        + b"]" * 100_000
        + b"}}}",
        "nested more than 64 levels",
    ),
    "nested 70 deep": (b'{"name": "x", "a": ' + b"[" * 70 + b"]" * 70 + b"}", "nested more than 64 levels"),
    "NaN": (b'{"name": "x", "talkativeness": NaN}', "NaN is not a JSON number"),
    "a number too large": (b'{"name": "x", "n": 1e999}', "too large"),
    "an integer of 5000 digits": (b'{"name": "x", "n": ' + b"9" * 5000 + b"}", "not valid JSON"),
    "a lone surrogate": (b'{"name": "x\\ud800"}', "unpaired surrogate"),
    "trailing junk": (b'{"name": "x"} {"name": "y"}', "Extra data"),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_card_is_422_with_what_is_wrong_and_stores_nothing(world: World, case: str) -> None:
    body, says = HOSTILE[case]
    before = world.stored()
    response = world.raw(body, "application/json")
    assert response.status_code == 422, response.text
    assert says in response.json()["error"]["message"]
    assert world.stored() == before


@pytest.mark.parametrize("preview", ["false", "true"])
@pytest.mark.parametrize(
    ("field", "value", "says"),
    [("first_mes", "我是真人哦", "data.first_mes: claims to be human"), ("name", "\u202e\u0301\u0302", "data.name: ")],
)
def test_a_png_card_greeting_as_a_human_or_named_with_nothing_visible_is_refused_even_in_preview(
    world: World, field: str, value: str, says: str, preview: str
) -> None:
    before = world.stored()
    response = world.upload(cards.card_png(_with(**{field: value})), preview=preview)
    assert response.status_code == 422, response.text
    assert says in response.json()["error"]["message"]
    assert world.stored() == before


@pytest.mark.every_store
def test_huge_strings_and_junk_in_the_kept_fields_are_kept_as_they_are(world: World) -> None:
    junk = {"deep": [[[[{"x": [None, True, 1.5, -0, "😀" * 1000]}]]]], "": {"": ""}, "null": None}
    card = _with(mes_example="例" * 1_000_000, creator_notes=None, extensions={"junk": junk})
    ai = imported(world, card)
    exported = world.card(ai["id"]).json()["data"]
    assert exported["mes_example"] == "例" * 1_000_000 and exported["extensions"]["junk"] == junk
    assert exported["creator_notes"] == ""  # null read as the empty text the spec defaults to


def test_other_upload_mistakes_are_4xx(world: World) -> None:
    before = world.stored()
    no_file = world.alice.post("/api/ai-users/import", data={"card": "x"}, files={"other": ("a.png", b"x")})
    text_field = world.alice.post(
        "/api/ai-users/import", data={"file": json.dumps(cards.v2_card())}, files={"other": ("a.txt", b"x")}
    )
    wrong_type = world.raw(b"name: x", "text/yaml")
    bad_form = world.raw(b"--x\r\nbroken", "multipart/form-data")  # no boundary
    no_login = world.client.post("/api/ai-users/import", json=cards.v2_card())
    assert [r.status_code for r in (no_file, text_field, wrong_type, bad_form, no_login)] == [422, 422, 415, 400, 401]
    assert "form field `file`" in no_file.json()["error"]["message"]
    assert world.stored() == before


class FailingAIUsers(AIUserService):
    """The AI user's transaction fails (a store outage) after the blobs were written."""

    def create(self, owner_id, fields, *, ai_user_id=None):
        raise Unavailable("the table is unavailable")


def test_an_import_that_fails_when_storing_the_ai_user_leaves_no_blob_behind(world: World) -> None:
    stores = world.runtime
    service = CardService(
        FailingAIUsers(Storage(stores.store), stores.blobs, stores.clock),
        stores.blobs,
        world.client.app.state.cards._images,
        "Asia/Shanghai",
    )
    before = world.stored()
    with pytest.raises(Unavailable):
        service.import_card(world.alice.id, cards.card_png(cards.v2_card()))
    assert world.stored() == before


@pytest.mark.every_store
def test_a_blob_written_after_the_ai_user_was_deleted_goes_with_the_second_erasure(world: World, clock) -> None:
    ai = imported(world, cards.v2_card(), png=True)
    world.alice.delete(f"/api/ai-users/{ai['id']}")
    late = keys.avatar_blob(ai["id"], "f" * 32)  # an import of the same id cannot happen; a slow write can
    world.runtime.blobs.put(late, b"late", "image/png")
    clock.advance(minutes=16)
    world.client.app.state.services.erasures.erase_again()
    assert world.runtime.blobs.list(keys.ai_user_blob_prefix(ai["id"])) == []


def _deep_png(side: int, bit_depth: int, card: dict) -> bytes:
    """A real side x side RGB picture of `bit_depth`-bit samples (all black: a few hundred KB of PNG)."""
    row = b"\x00" + bytes(side * 3 * bit_depth // 8)
    squeeze = zlib.compressobj(9)
    data = b"".join(squeeze.compress(row) for _ in range(side)) + squeeze.flush()
    header = struct.pack(">IIBBBBB", side, side, bit_depth, 2, 0, 0, 0)
    picture = SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", data) + _chunk(b"IEND", b"")
    return with_text(picture, "chara", cards.encoded(card).encode())


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def test_a_picture_whose_header_declares_too_costly_a_decode_is_refused_before_it_is_decoded(world: World) -> None:
    before = world.stored()
    response = world.upload(_deep_png(5000, 16, cards.v2_card()), preview="true")  # 0.9 s of CPU to decode
    assert response.status_code == 422, response.text
    assert "5000 x 5000, 16-bit samples" in response.json()["error"]["message"]
    assert "MiB to decode" in response.json()["error"]["message"]
    assert world.stored() == before
    assert world.upload(_deep_png(1000, 8, cards.v2_card()), preview="true").status_code == 200


def test_card_uploads_have_a_budget_per_account(tmp_path, clock, rng) -> None:
    settings = Settings(data_dir=tmp_path / "data", run_scheduler=False, card_uploads_per_minute=2)
    with TestClient(create_app(settings, memory_runtime(settings, clock, rng))) as client:
        alice, bob = register(client, "alice"), register(client, "bob")
        card = cards.v2_card()
        previews = [alice.post("/api/ai-users/import", json=card, params={"preview": "true"}) for _ in range(2)]
        assert [p.status_code for p in previews] == [200, 200]
        refused = alice.post("/api/ai-users/import", json=card)
        assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
        assert bob.post("/api/ai-users/import", json=card).status_code == 201
        clock.advance(minutes=1)
        assert alice.post("/api/ai-users/import", json=card).status_code == 201
