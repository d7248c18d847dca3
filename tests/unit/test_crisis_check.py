"""The whole crisis check (lexicon and classifier) on the labelled sets, the split crisis, short messages,
and the classifier's weights as the training script builds them."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from dreamchat.crisis_data import crisis_check
from dreamchat.domain.crisis import QUIET, features
from tests.conftest import DATA as TEST_DATA

DATA = TEST_DATA / "crisis"
CHECK = crisis_check()
TRAINING = sorted(p for p in DATA.glob("crisis_*.json") if p.name != "crisis_gate_blind.json")


def load(path: Path) -> dict[str, list[str]]:
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", TRAINING, ids=lambda p: p.stem)
def test_in_sample_every_set_gets_help_lines_and_answers(path: Path) -> None:
    """In sample (the classifier was trained on these): a floor, not a measurement (bench/crisis_check.py)."""
    data = load(path)
    crisis, everyday = data.get("crisis", []), data.get("benign", [])
    if crisis:
        assert sum(CHECK.judge(t).crisis for t in crisis) >= 0.85 * len(crisis)
        assert all(CHECK.judge(t).distress for t in crisis), [t for t in crisis if not CHECK.judge(t).distress]
    if everyday:
        assert sum(CHECK.judge(t).crisis for t in everyday) <= 0.08 * len(everyday)


def test_in_sample_over_every_set_together() -> None:
    crisis = [t for p in TRAINING for t in load(p).get("crisis", [])]
    everyday = [t for p in TRAINING for t in load(p).get("benign", [])]
    assert sum(CHECK.judge(t).crisis for t in crisis) >= 0.95 * len(crisis)
    assert sum(CHECK.judge(t).crisis for t in everyday) <= 0.01 * len(everyday)


def test_the_gate_is_never_training_data() -> None:
    weights = json.loads((Path(__file__).parents[2] / "shared/dreamchat/data/crisis_classifier.json").read_text())
    assert "crisis_gate_blind.json" not in weights["trained_on"]
    assert set(weights["trained_on"]) == {p.name for p in TRAINING}


@pytest.mark.parametrize(
    "text",
    ["嗯", "好", "晚安", "再见", "算了", "我走了", "对不起", "明天见", "ok", "lol", "goodnight", "bye!", "哈哈哈"],
)
def test_a_short_everyday_message_shows_no_help_lines(text: str) -> None:
    assert not CHECK.judge(text).crisis


def test_an_empty_message_is_quiet() -> None:
    assert CHECK.judge("") == QUIET and CHECK.judge(" \n") == QUIET


def test_a_crisis_split_over_two_messages_is_one_statement() -> None:
    assert not CHECK.judge("我不想").crisis
    assert CHECK.recent(["我不想", "活了"]).crisis
    assert CHECK.recent(["i want to", "kill myself"]).crisis


def test_an_earlier_crisis_does_not_make_the_next_message_one() -> None:
    assert not CHECK.recent(["我不想活了", "今天吃了面条"]).crisis


@pytest.mark.parametrize(
    "text",
    [
        "我站在天台上，风好大，楼下的车好小",
        "已经吃了很多药，头好晕",
        "I took all the pills in the bottle about 20 mins ago",
    ],
)
def test_what_no_phrase_says_the_classifier_sees(text: str) -> None:
    verdict = CHECK.judge(text)
    assert verdict.crisis and verdict.by == "classifier"


def test_sadness_without_intent_is_answered_without_help_lines() -> None:
    verdict = CHECK.judge("分手三个月了，今天又哭了一晚上，好难过")
    assert verdict.distress and not verdict.crisis


def test_features_are_stable_and_bounded() -> None:
    assert features("abc") == features("abc")
    assert "w:i" in features("i want")
    assert all(len(f) <= 4 or f.startswith("w:") for f in features("我今天很好 and you"))


def test_the_stored_weights_are_what_the_training_script_builds() -> None:
    """Reproducible: the heads trained on the same sets give the shipped biases and strongest weights."""
    sys.path.insert(0, str(Path(__file__).parents[2]))
    import numpy as np

    from bench import train_crisis_classifier as trainer

    shipped = json.loads(trainer.OUT.read_text(encoding="utf-8"))["heads"]
    lines = trainer.Lines(trainer.labelled_sets())
    everything = np.arange(len(lines.kind))
    for name, fit in (("crisis", trainer.fit_crisis), ("distress", trainer.fit_distress)):
        head = trainer.head_document(fit(lines, everything), shipped[name]["threshold"])
        assert head["bias"] == shipped[name]["bias"] and head["each"] == shipped[name]["each"], name
        strongest = sorted(head["weights"], key=lambda slot: -abs(head["weights"][slot]))[:50]
        assert {slot: head["weights"][slot] for slot in strongest} == {
            slot: shipped[name]["weights"][slot] for slot in strongest
        }
