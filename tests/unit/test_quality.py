"""The spec's quality figures per pair: running sums, averages, targets."""

from __future__ import annotations

from dreamchat.domain.quality import QualityFigures, extraction_rate, sampled


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
