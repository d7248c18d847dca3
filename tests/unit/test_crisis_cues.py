"""The second crisis net: cue classes combined, against its own development set and every labelled set's everyday lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dreamchat.domain.crisis_cues import crisis_seen, signals_crisis
from dreamchat.domain.safety import crisis_in

DATA = Path(__file__).parent / "data"
# Written before the module, then used to build it; its remaining errors are on record, not asserted.
DEV = json.loads((DATA / "crisis_cues_dev.json").read_text(encoding="utf-8"))
DEV_CRISIS = [t for t in DEV["crisis"] if t not in DEV["not_asserted"]["crisis_missed"]]
DEV_BENIGN = [t for t in DEV["benign"] if t not in DEV["not_asserted"]["benign_fired"]]
# Round 2's development set: the blind sets' error categories in new wordings, judged by the whole check
# (its false alarms came from the lexicon, its misses from both); its remaining errors are on record.
ROUND2 = json.loads((DATA / "crisis_round2_dev.json").read_text(encoding="utf-8"))
ROUND2_CRISIS = [t for t in ROUND2["crisis"] if t not in ROUND2["not_asserted"]["crisis_missed"]]
ROUND2_BENIGN = [t for t in ROUND2["benign"] if t not in ROUND2["not_asserted"]["benign_fired"]]
# Round 3's development set: fresh6_blind's false-alarm categories in new wordings (passive hyperbole, a
# joke's 宁愿去死, a phone about to die, a game's or a novel's deaths) and the wishes beside them that must fire.
ROUND3 = json.loads((DATA / "crisis_round3_dev.json").read_text(encoding="utf-8"))
ROUND3_CRISIS = [t for t in ROUND3["crisis"] if t not in ROUND3["not_asserted"]["crisis_missed"]]
ROUND3_BENIGN = [t for t in ROUND3["benign"] if t not in ROUND3["not_asserted"]["benign_fired"]]
# The lexicon's labelled sets: their everyday lines must stay quiet under this net too.
LEXICON_SETS = [
    "crisis_labelled.json",
    "crisis_heldout.json",
    "crisis_fresh.json",
    "crisis_fresh2.json",
    "crisis_fresh3.json",
    "crisis_fresh4_dev.json",
]


def _benign_of(name: str) -> list[tuple[str, str]]:
    data = json.loads((DATA / name).read_text(encoding="utf-8"))
    on_record = set(data.get("not_asserted", {}).get("benign_fired", []))
    return [(name, text) for text in data["benign"] if text not in on_record]


def _all_benign_of(name: str) -> list[tuple[str, str]]:
    return [(name, text) for text in json.loads((DATA / name).read_text(encoding="utf-8"))["benign"]]


def test_the_dev_set_is_large_enough_and_holds_both_languages() -> None:
    assert len(DEV["crisis"]) >= 60 and len(DEV["benign"]) >= 60
    for lines in (DEV["crisis"], DEV["benign"]):
        assert any(any("\u4e00" <= c <= "\u9fff" for c in t) for t in lines)
        assert any(t.isascii() for t in lines)


@pytest.mark.parametrize("text", DEV_CRISIS)
def test_a_crisis_line_of_the_dev_set_is_seen(text: str) -> None:
    assert crisis_seen(text), text


@pytest.mark.parametrize("text", DEV_BENIGN)
def test_an_everyday_line_of_the_dev_set_is_quiet_under_the_cues(text: str) -> None:
    assert not signals_crisis(text), text


def test_the_dev_sets_errors_on_record_are_still_errors() -> None:
    # when one is fixed, take it off the record so it is asserted from then on
    assert not any(crisis_seen(t) for t in DEV["not_asserted"]["crisis_missed"])
    assert all(signals_crisis(t) for t in DEV["not_asserted"]["benign_fired"])


def test_the_round2_dev_set_is_large_enough_and_holds_both_languages() -> None:
    assert len(ROUND2["crisis"]) >= 100 and len(ROUND2["benign"]) >= 100
    for lines in (ROUND2["crisis"], ROUND2["benign"]):
        assert any(any("\u4e00" <= c <= "\u9fff" for c in t) for t in lines)
        assert any(t.isascii() for t in lines)


@pytest.mark.parametrize("text", ROUND2_CRISIS)
def test_a_crisis_line_of_the_round2_dev_set_is_seen(text: str) -> None:
    assert crisis_seen(text), text


@pytest.mark.parametrize("text", ROUND2_BENIGN)
def test_an_everyday_line_of_the_round2_dev_set_is_quiet_under_the_whole_check(text: str) -> None:
    assert not crisis_seen(text), text


def test_the_round2_dev_sets_errors_on_record_are_still_errors() -> None:
    # when one is fixed, take it off the record so it is asserted from then on
    assert not any(crisis_seen(t) for t in ROUND2["not_asserted"]["crisis_missed"])
    assert all(crisis_seen(t) for t in ROUND2["not_asserted"]["benign_fired"])


def test_the_round3_dev_set_has_both_sides_in_both_languages() -> None:
    assert len(ROUND3["crisis"]) >= 20 and len(ROUND3["benign"]) >= 40
    for lines in (ROUND3["crisis"], ROUND3["benign"]):
        assert any(any("\u4e00" <= c <= "\u9fff" for c in t) for t in lines)
        assert any(t.isascii() for t in lines)


@pytest.mark.parametrize("text", ROUND3_CRISIS)
def test_a_crisis_line_of_the_round3_dev_set_is_seen(text: str) -> None:
    assert crisis_seen(text), text


@pytest.mark.parametrize("text", ROUND3_BENIGN)
def test_an_everyday_line_of_the_round3_dev_set_is_quiet_under_the_whole_check(text: str) -> None:
    assert not crisis_seen(text), text


def test_the_round3_dev_sets_errors_on_record_are_still_errors() -> None:
    # when one is fixed, take it off the record so it is asserted from then on
    assert not any(crisis_seen(t) for t in ROUND3["not_asserted"]["crisis_missed"])
    assert all(crisis_seen(t) for t in ROUND3["not_asserted"]["benign_fired"])


def test_the_cues_catch_most_of_what_the_lexicon_misses_on_the_dev_set() -> None:
    missed = [t for t in DEV["crisis"] if not crisis_in(t)]
    assert sum(map(signals_crisis, missed)) >= 0.9 * len(missed)


@pytest.mark.parametrize("name,text", [pair for name in LEXICON_SETS for pair in _all_benign_of(name)])
def test_every_everyday_line_of_the_lexicon_sets_is_quiet_under_the_cues(name: str, text: str) -> None:
    assert not signals_crisis(text), (name, text)


@pytest.mark.parametrize("name,text", [pair for name in LEXICON_SETS for pair in _benign_of(name)])
def test_every_everyday_line_of_the_lexicon_sets_is_quiet_under_the_combined_check(name: str, text: str) -> None:
    assert not (crisis_in(text) or signals_crisis(text)), (name, text)


@pytest.mark.parametrize(
    "text",
    [
        "药都攒好了 今晚全部吃掉",
        "买了炭 周末去露营烧烤",
        "我把猫托付给朋友 我出差一周",
        "the only way out is ending it",
        "goodbye. thank you for always listening to me",
        "bye, talk tomorrow",
        "honestly kms",
        "紫砂壶真好看",
        "每次难受我就用烟头烫手臂",
        "",
    ],
)
def test_crisis_seen_is_the_lexicon_or_the_cues(text: str) -> None:
    assert crisis_seen(text) == (crisis_in(text) or signals_crisis(text))


@pytest.mark.parametrize(
    ("crisis", "everyday"),
    [
        ("绳子准备好了 今晚就这样吧", "绳子准备好了 明天去攀岩"),
        ("took the whole bottle of tylenol tonight", "took two tylenol tonight for my headache"),
        ("我现在在天台 决定了", "今晚在天台烧烤 准备好了"),
        ("gave my cat away, i won't be around to feed her", "gave my old clothes to charity, won't need them"),
        ("再见了 谢谢你一直陪我", "再见了 明天见"),
        ("tired of existing", "tired of existing in this group chat"),
        ("scratching myself until it bleeds", "scratching my mosquito bites until they bleed"),
        ("想紫砂", "紫砂壶泡茶"),
        ("煤气开了 我躺着等", "煤气开了 我躺着等水开"),
        (
            "i worked out how to do it, the car running in the garage with the door shut",
            "warming up the car in the garage, it's freezing",
        ),
        ("the gun is loaded and on my lap", "the nerf gun is loaded and on my lap"),
        ("把积蓄都转给我妹了 没什么牵挂了", "把积蓄转给我妹了 她要买房 以后用得上"),
        ("衣服都捐了 反正我不会在了", "衣服都捐了 断舍离"),
        (
            "if im not here tomorrow tell my mom i loved her",
            "if im not here tomorrow im at the dentist, tell my boss im sorry",
        ),
        ("wrote letters to my family, sealed on my desk", "wrote christmas cards to my family, sealed on my desk"),
        (
            "my family gets the life insurance if im gone, at least im worth something",
            "bought life insurance, my family gets it if im gone",
        ),
        ("carving into my arm again", "carving my name into the pumpkin again"),
    ],
)
def test_each_cue_class_has_an_everyday_counterpart(crisis: str, everyday: str) -> None:
    assert signals_crisis(crisis) and not signals_crisis(everyday)


def test_the_slow_path_of_both_nets_stays_quiet_on_everyday_death_words() -> None:
    # everyday Chinese with death words in nearly every clause (timed by bench/crisis_check.py)
    text = ("累死了 笑死我了 这部剧男主最后死了 跑完步我已经死了哈哈 我不活了哈哈哈 手机又死机了 " * 4)[:200]
    assert not crisis_seen(text)
