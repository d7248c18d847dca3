"""The pure rules of character cards: reading one, laying out base_soul, resolving macros, cutting to
fit, writing a V2 card; and the PNG chunk reader and writer."""

from __future__ import annotations

import base64
import io
import json

import pytest
from PIL import Image

from dreamchat.domain.bounds import BASE_SOUL_CHARS as MAX_SOUL_CHARS
from dreamchat.domain.bounds import GREETING_CHARS as MAX_GREETING_CHARS
from dreamchat.domain.bounds import NAME_CHARS as MAX_NAME_CHARS
from dreamchat.domain.bounds import TAGS as MAX_TAGS
from dreamchat.domain.cards import (
    CardProblem,
    CardProfile,
    compose_soul,
    cut,
    export_card,
    import_card,
    parse_card,
    parse_json,
    person_named,
    resolve_macros,
    stored_card,
)
from dreamchat.domain.models import AIUser
from dreamchat.domain.png_text import PngProblem, read_png_text, solid_png, with_text
from tests import cards


def card_of(**data) -> dict:
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": {"name": "Alice", **data}}


def test_macros_are_resolved_in_every_spelling_case_insensitive() -> None:
    text = "{{char}} {{ CHAR }} <BOT> <bot> <char> {{user}} {{User}} <USER> {{// hidden }}{{comment: also hidden}}!"
    assert resolve_macros(text, "小满", "对方") == "小满 小满 小满 小满 小满 对方 对方 对方 !"


def test_a_replacement_is_text_never_a_pattern() -> None:
    assert resolve_macros("hi {{char}}", r"\1 \g<0>", "u") == r"hi \1 \g<0>"


def test_base_soul_lays_out_description_personality_and_scenario() -> None:
    soul, cuts = compose_soul(
        [("description", "", "A."), ("personality", "【性格】", "B."), ("scenario", "【场景】", "")], 4000
    )
    assert (soul, cuts) == ("A.\n\n【性格】B.", [])


def test_a_long_section_shares_the_limit_fairly_and_short_ones_stay_whole() -> None:
    long = "这是一句很长的描述。" * 1000
    soul, cuts = compose_soul([("description", "", long), ("personality", "【性格】", "温柔。")], MAX_SOUL_CHARS)
    assert len(soul) <= MAX_SOUL_CHARS and soul.endswith("\n\n【性格】温柔。")
    assert [c.field for c in cuts] == ["description"] and cuts[0].original == len(long)
    two, both = compose_soul([("description", "", "a" * 5000), ("scenario", "【场景】", "b" * 5000)], 1000)
    assert len(two) <= 1000 and [c.field for c in both] == ["description", "scenario"]
    assert abs(both[0].kept - both[1].kept) <= 1


def test_a_cut_ends_at_a_sentence_when_one_is_near() -> None:
    assert cut("短句。", 10) == "短句。"
    assert cut("第一句话很长很长。第二句", 11) == "第一句话很长很长。…"
    assert cut("a" * 50, 10) == "a" * 9 + "…"
    assert [len(cut("x" * 50, n)) for n in (0, 1, 2)] == [0, 1, 2]


def test_an_import_fits_every_limit_of_an_ai_user() -> None:
    card = parse_card(
        card_of(name="N" * 100, description="d" * 9000, first_mes="g" * 900, tags=[f"t{i}" for i in range(50)])
    )
    imported = import_card(card)
    assert (len(imported.name), len(imported.greeting), len(imported.tags)) == (
        MAX_NAME_CHARS,
        MAX_GREETING_CHARS,
        MAX_TAGS,
    )
    assert {c.field for c in imported.cuts} == {"name", "description", "first_mes", "tags"}
    AIUser(id="a", owner_id="o", created_at=0, updated_at=0, name=imported.name, base_soul=imported.base_soul,
           greeting=imported.greeting, tags=imported.tags)  # fmt: skip
    with pytest.raises(ValueError):
        AIUser(id="a", owner_id="o", created_at=0, updated_at=0, name="N" * (MAX_NAME_CHARS + 1))


def test_tags_are_trimmed_deduplicated_and_blank_ones_dropped() -> None:
    imported = import_card(parse_card(card_of(tags=["  Cozy   Chat ", "cozy chat", "", "\u200b", "x" * 60])))
    assert imported.tags == ["Cozy Chat", "x" * 40]


def test_a_card_keeps_the_person_as_the_macro_said_as_each_person_when_it_is_used() -> None:
    """{{user}} is whoever befriends the AI: kept at import, then their nickname, or 对方 / 你 without one."""
    card = card_of(name="小满", description="{{char}}喜欢<USER>", first_mes="{{ user }}好")
    imported = import_card(parse_card(card))
    assert (imported.base_soul, imported.greeting) == ("小满喜欢{{user}}", "{{user}}好")
    assert person_named(imported.base_soul, None) == "小满喜欢对方"
    assert person_named(imported.greeting, None, to_them=True) == "你好"
    assert person_named(imported.greeting, "阿青", to_them=True) == "阿青好"
    assert person_named("Welcome, {{user}}.", None, to_them=True) == "Welcome, you."
    assert person_named("She trusts {{user}}.", None) == "She trusts the user."
    assert person_named("没有称呼的文字", "阿青") == "没有称呼的文字"


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        (b"\xff\xfe", "not UTF-8"),
        (b"{", "not valid JSON"),
        (b'{"a": Infinity}', "Infinity is not a JSON number"),
        (b"[" * 70 + b"]" * 70, "nested more than 64"),
    ],
)
def test_json_that_is_not_plain_json_is_refused(raw: bytes, says: str) -> None:
    with pytest.raises(CardProblem, match=says):
        parse_json(raw)


def test_json_with_a_bom_is_read() -> None:
    assert parse_json("\ufeff{}".encode()) == {}


def test_nulls_read_as_the_spec_defaults_and_unknown_fields_are_kept() -> None:
    card = parse_card(card_of(description=None, alternate_greetings=None, extensions=None, x_custom={"a": 1}))
    assert card.text("description") == "" and card.data["x_custom"] == {"a": 1}
    assert import_card(card).unused == ["x_custom"]


def test_a_card_written_back_is_v2_with_every_field_and_ours_in_extensions() -> None:
    profile = CardProfile("小梦", "温柔", "嗨", ["日常"], "Asia/Shanghai", False, "chat", avatar="🌙")
    card = export_card(profile)
    assert card["spec"] == "chara_card_v2" and card["spec_version"] == "2.0"
    assert card["data"]["description"] == "温柔" and card["data"]["first_mes"] == "嗨"
    assert card["data"]["extensions"] == {
        "dreamchat": {"version": 1, "timezone": "Asia/Shanghai", "night_owl": False, "model": "chat", "avatar": "🌙"}
    }
    assert "character_book" not in card["data"]  # optional in V2: absent rather than empty


def test_an_unchanged_import_writes_the_card_back_as_it_came() -> None:
    original = cards.v2_card()
    card = parse_card(original)
    imported = import_card(card)
    profile = CardProfile(imported.name, imported.base_soul, imported.greeting, imported.tags, "UTC", False, "chat")
    data = export_card(profile, json.loads(json.dumps(stored_card(card, imported))))["data"]
    data["extensions"].pop("dreamchat")
    assert data == original["data"]


def test_v3_fields_travel_in_our_namespace_and_fold_back_on_import() -> None:
    card = parse_card(cards.v3_card())
    imported = import_card(card)
    profile = CardProfile(imported.name, imported.base_soul, imported.greeting, imported.tags, "UTC", False, "chat")
    exported = export_card(profile, stored_card(card, imported))
    assert "nickname" not in exported["data"]
    assert exported["data"]["extensions"]["dreamchat"]["card_fields"]["nickname"] == "Mara"
    again = parse_card(exported)
    assert again.data["nickname"] == "Mara" and again.data["assets"] == cards.v3_card()["data"]["assets"]
    assert import_card(again).greeting == imported.greeting


def test_the_png_reader_finds_the_text_chunks_and_the_size() -> None:
    png = cards.card_png(cards.v2_card())
    found = read_png_text(png)
    assert (found.width, found.height) == (600, 900)
    assert json.loads(base64.b64decode(found.texts["chara"]))["data"]["name"] == "林雾"


@pytest.mark.parametrize(
    ("broken", "says"),
    [
        (lambda png: png[:-1], "truncated"),
        (lambda png: png[:40], "truncated"),
        (lambda png: cards.with_bad_crc(png), "bad CRC"),
        (lambda png: png[8:], "signature"),
        (lambda png: png[:8] + cards.chunk(b"IEND", b""), "IHDR"),
        (lambda png: png[:12] + b"1234" + png[16:], "malformed chunk header"),
    ],
)
def test_the_png_reader_refuses_a_damaged_file(broken, says: str) -> None:
    with pytest.raises(PngProblem, match=says):
        read_png_text(broken(cards.card_png(cards.v2_card())))


def test_writing_a_card_chunk_replaces_any_earlier_one() -> None:
    png = with_text(cards.card_png(cards.v2_card()), "chara", b"bmV3")
    assert read_png_text(png).texts["chara"] == b"bmV3"
    assert list(read_png_text(png).texts) == ["Comment", "chara"]


def test_a_picture_of_one_colour_is_a_valid_png() -> None:
    png = solid_png(4, 3, (1, 2, 3))
    assert (read_png_text(png).width, read_png_text(png).height) == (4, 3)
    assert Image.open(io.BytesIO(png)).getpixel((3, 2)) == (1, 2, 3)
