"""The spec's quality figures per pair: running sums, averages, targets."""

from __future__ import annotations

import pytest

from dreamchat.domain.quality import QualityFigures, extraction_rate, fit_summary, sampled, summary_budget


def test_figures_average_over_the_runs_each_rests_on() -> None:
    figures = (
        QualityFigures()
        .with_compression(0.8)
        .with_compression(0.6, completeness=0.9)
        .with_extraction(considered=10, extracted=9)
        .with_extraction(considered=10, extracted=8, accuracy=1.0)
    )
    report = figures.report()
    assert report["compression_ratio"] == {"value": 0.7, "runs": 2, "target": 0.7}
    assert report["completeness"] == {"value": 0.9, "runs": 1, "target": 0.8}
    assert report["extraction_rate"] == {"value": 0.85, "runs": 2, "target": 0.9}
    assert report["key_point_accuracy"] == {"value": 1.0, "runs": 1, "target": 0.9}


def test_nothing_measured_is_none_not_zero() -> None:
    assert {name: f["value"] for name, f in QualityFigures().report().items()} == dict.fromkeys(
        ("compression_ratio", "completeness", "key_point_accuracy", "extraction_rate")
    )
    assert extraction_rate(0, 0) is None


def test_a_share_of_zero_samples_nothing_and_one_samples_everything() -> None:
    assert not sampled(0.0, 0.0) and sampled(0.999, 1.0) and sampled(0.01, 0.02) and not sampled(0.02, 0.02)


@pytest.mark.parametrize(
    ("topic_chars", "budget"),
    [(40, 12), (100, 30), (1000, 300), (20_000, 6000), (41, 12), (39, 12), (12, 12), (6, 6), (1, 1)],
)
def test_a_summary_keeps_the_specs_share_of_its_topic_and_a_short_topic_at_most_itself(topic_chars, budget) -> None:
    """压缩率 ≥ 70 % from 40 characters on; a shorter topic may keep a fact's 12 characters, never more than itself."""
    assert summary_budget(topic_chars) == budget
    if topic_chars >= 40:
        assert 1 - budget / topic_chars >= 0.7


def test_a_summary_within_its_budget_is_kept_and_a_longer_one_cut_at_a_sentence_end_and_marked() -> None:
    kept = fit_summary("聊了运动和晚饭。", 40)
    assert (kept.summary, kept.cut, kept.compression_ratio) == ("聊了运动和晚饭。", False, 0.8)
    cut = fit_summary("聊了运动和晚饭。" * 625, 40)  # 5,000 characters for a 40-character topic
    assert (cut.summary, cut.cut, cut.compression_ratio) == ("聊了运动和晚饭。", True, 0.8)
    bare = fit_summary("x" * 5000, 1000)
    assert len(bare.summary) == 300 and bare.cut and bare.compression_ratio == 0.7
