"""Emotion labels: stray model labels map to the spec's, and the cue lexicon only yields the spec's."""

from __future__ import annotations

import pytest

from dreamchat.domain.emotions import DEFAULTS, LABELS, EmotionKind, closest_label, infer_tags


@pytest.mark.parametrize(
    ("kind", "raw", "label"),
    [
        ("basic_emotion", "开心", "开心"),
        ("basic_emotion", "高兴", "开心"),
        ("basic_emotion", "非常开心！", "开心"),
        ("basic_emotion", "不开心", "失落"),
        ("basic_emotion", "难过", "失落"),
        ("basic_emotion", "伤心", "失落"),
        ("basic_emotion", "担心", "关心"),
        ("basic_emotion", "Curious", "好奇"),
        ("basic_emotion", "「严肃」", "严肃"),
        ("scene", "聊天", "闲聊"),
        ("scene", "咨询", "求助"),
        ("atmosphere", "热情", "热烈"),
        ("atmosphere", "温馨", "平和"),
    ],
)
def test_a_stray_label_maps_to_the_closest_spec_label(kind: EmotionKind, raw: str, label: str) -> None:
    assert closest_label(kind, raw) == label


@pytest.mark.parametrize("kind", list(LABELS))
def test_nonsense_falls_back_to_the_kinds_default(kind: EmotionKind) -> None:
    assert closest_label(kind, "量子纠缠") == DEFAULTS[kind]
    assert closest_label(kind, None) == DEFAULTS[kind]


def test_the_defaults_are_spec_labels() -> None:
    assert all(DEFAULTS[kind] in labels for kind, labels in LABELS.items())


def test_cues_pick_the_labels_of_a_conversation() -> None:
    tags = infer_tags("我好难过，考试没考好，怎么办？")
    assert (tags.basic_emotion, tags.scene) == ("失落", "求助")


def test_a_negated_cue_is_not_read_as_its_opposite() -> None:
    assert infer_tags("今天不开心").basic_emotion == "失落"


def test_a_lively_chat_is_hot() -> None:
    assert infer_tags("哈哈哈太棒了！！").atmosphere == "热烈"


def test_no_cue_gives_the_defaults() -> None:
    tags = infer_tags("嗯")
    assert (tags.basic_emotion, tags.scene, tags.atmosphere) == tuple(DEFAULTS.values())
