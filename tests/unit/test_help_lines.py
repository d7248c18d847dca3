"""The help-line directory (`dreamchat/data/help_lines.json`) and how a locale's lines are chosen."""

from __future__ import annotations

import pytest

from dreamchat.crisis_data import default_help_lines
from dreamchat.domain.help_lines import CrisisResource, is_locale, parse_resources, resources_for

DEFAULT_RESOURCES = default_help_lines()


def names(resources: list[CrisisResource]) -> list[str]:
    return [r.phone or r.url for r in resources]


def test_a_locale_gets_its_own_lines_then_the_generic_entry() -> None:
    assert names(resources_for("zh-CN", DEFAULT_RESOURCES)) == [
        "12356",
        "010-82951332",
        "400-161-9995",
        "110",
        "120",
        "https://findahelpline.com",
    ]
    assert names(resources_for("en-US", DEFAULT_RESOURCES)) == ["988", "911", "https://findahelpline.com"]


def test_the_locale_is_read_without_regard_to_case_or_separator() -> None:
    assert resources_for("zh_cn", DEFAULT_RESOURCES) == resources_for("zh-CN", DEFAULT_RESOURCES)


def test_a_locale_without_entries_falls_back_to_its_language_then_to_the_generic_entry() -> None:
    assert resources_for("zh-TW", DEFAULT_RESOURCES) == resources_for("zh-CN", DEFAULT_RESOURCES)
    assert resources_for("en", DEFAULT_RESOURCES) == resources_for("en-US", DEFAULT_RESOURCES)
    assert names(resources_for("de-DE", DEFAULT_RESOURCES)) == ["https://findahelpline.com"]
    assert names(resources_for("", DEFAULT_RESOURCES)) == ["https://findahelpline.com"]


def line(name: str, phone: str = "1") -> CrisisResource:
    return CrisisResource(name, phone, "", "24h", "test")


def test_the_closest_locale_of_the_language_wins_and_its_own_entries_come_first() -> None:
    table = {"zh-CN": (line("mainland"),), "zh-TW": (line("taiwan"),), "*": (line("local"),)}
    assert [r.name for r in resources_for("zh-Hant-TW", table)] == ["taiwan", "local"]
    assert [r.name for r in resources_for("zh-HK", table)] == ["mainland", "local"]


def test_a_resource_listed_twice_is_shown_once() -> None:
    table = {"en-US": (line("988"), line("988")), "*": (line("988"),)}
    assert resources_for("en-US", table) == [line("988")]


def test_every_default_number_says_where_it_was_checked() -> None:
    for resources in DEFAULT_RESOURCES.values():
        for resource in resources:
            assert resource.name and resource.hours and resource.source
            assert resource.phone or resource.url


def test_an_operators_table_is_read_into_resources() -> None:
    raw = {
        "zh-HK": [{"name": "撒玛利亚防止自杀会", "phone": "2389 2222", "source": "the operator, 2026-12"}],
        "*": [{"name": "local emergency number", "source": "generic", "hours": "24/7"}],
    }
    assert parse_resources(raw) == {
        "zh-HK": (CrisisResource("撒玛利亚防止自杀会", "2389 2222", "", "", "the operator, 2026-12"),),
        "*": (CrisisResource("local emergency number", "", "", "24/7", "generic"),),
    }


GENERIC = [{"name": "local", "source": "generic"}]


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ([], "must be an object"),
        ({"en-US": [{"name": "988", "source": "x"}]}, 'need a "*" entry'),
        ({"english please": GENERIC, "*": GENERIC}, "is not a locale"),
        ({"en-US": [], "*": GENERIC}, "at least one resource"),
        ({"en-US": {"name": "988"}, "*": GENERIC}, "at least one resource"),
        ({"en-US": ["988"], "*": GENERIC}, "entry 1: must be an object"),
        ({"en-US": [{"name": "988", "phon": "988", "source": "x"}], "*": GENERIC}, "unknown field(s) phon"),
        ({"en-US": [{"name": "988", "phone": 988, "source": "x"}], "*": GENERIC}, "phone must be a string"),
        ({"en-US": [{"name": " ", "source": "x"}], "*": GENERIC}, "name must not be empty"),
        ({"en-US": [{"name": "988", "phone": "988"}], "*": GENERIC}, "source must not be empty"),
    ],
)
def test_a_malformed_table_is_refused_with_what_is_wrong(raw: object, message: str) -> None:
    with pytest.raises(ValueError) as refused:
        parse_resources(raw)  # type: ignore[arg-type]
    assert message in str(refused.value)


def test_a_chinese_list_ends_with_the_generic_line_in_chinese_and_others_with_the_generic_one() -> None:
    """Issue 40: the generic line was English at the end of a Chinese card."""
    chinese = resources_for("zh-CN", DEFAULT_RESOURCES)[-1]
    assert chinese.url == "https://findahelpline.com"
    assert not any("a" <= ch.casefold() <= "z" for ch in chinese.name.replace("findahelpline.com", ""))
    assert resources_for("zh-TW", DEFAULT_RESOURCES)[-1] == chinese
    assert resources_for("en-US", DEFAULT_RESOURCES)[-1].name.startswith("Your local emergency number")
    assert resources_for("de-DE", DEFAULT_RESOURCES) == [DEFAULT_RESOURCES["*"][0]]


def test_a_language_generic_key_is_read_but_is_no_locale_a_person_picks() -> None:
    table = parse_resources(
        {
            "*": [{"name": "local emergency number", "source": "generic"}],
            "*-zh": [{"name": "当地的紧急电话", "source": "generic"}],
        }
    )
    assert [r.name for r in resources_for("zh-HK", table)] == ["当地的紧急电话"]
    assert [r.name for r in resources_for("fr", table)] == ["local emergency number"]
    assert not is_locale("*-zh")
    assert is_locale("zh-CN")
