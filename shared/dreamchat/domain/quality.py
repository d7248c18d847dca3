"""The spec's compression quality targets, as running figures per pair.

短期→中期: 信息完整性 ≥ 80 %, 压缩率 ≥ 70 %; 中期→长期: 核心要点提取准确率 ≥ 90 %, 提炼率 ≥ 90 %.
The compression ratio and the extraction rate are measured on every run; completeness and
key-point accuracy are judged by a model on a sampled share of runs (scores 0-100).

The compression ratio is also a bound: a summary never keeps more than `SUMMARY_SHARE` of its topic's
characters (`summary_budget`); the model is asked for that much, and a longer answer is cut (`fit_summary`).
A topic too short for a fact to fit in its share (under 40 characters: a line or two, "我上个月搬到上海了")
may keep `SHORT_SUMMARY_CHARS`, never more than the topic itself: there completeness (≥ 80 %) comes first.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from dreamchat.domain.reply import shorten

TARGETS = {"compression_ratio": 0.70, "completeness": 0.80, "key_point_accuracy": 0.90, "extraction_rate": 0.90}
SUMMARY_SHARE = round(1 - TARGETS["compression_ratio"], 6)  # 0.3: what a summary may keep of its topic
SHORT_SUMMARY_CHARS = 12  # a fact's length, the share of a 40-character topic: what a shorter topic may keep


def summary_budget(topic_chars: int) -> int:
    """The most characters a summary of a topic of `topic_chars` may have: the spec's share (压缩率 ≥ 70 %),
    or for a topic too short to say a fact in that, `SHORT_SUMMARY_CHARS` but never more than the topic."""
    share = int(round(topic_chars * SUMMARY_SHARE, 6))
    return max(1, share, min(topic_chars, SHORT_SUMMARY_CHARS))


@dataclass(frozen=True)
class FittedSummary:
    summary: str
    compression_ratio: float  # 1 - summary characters / topic characters (the spec's 压缩率)
    cut: bool  # the model's summary was longer than its topic's budget and was cut to it


def fit_summary(summary: str, topic_chars: int) -> FittedSummary:
    """The summary within its topic's budget (a longer one cut, at a sentence end where one is near)
    and its compression ratio."""
    fitted = shorten(summary, summary_budget(topic_chars))
    ratio = round(1 - len(fitted) / topic_chars, 4) if topic_chars else 0.0
    return FittedSummary(fitted, ratio, cut=fitted != summary)


class QualityFigures(BaseModel):
    """Running sums; `report` turns them into averages."""

    model_config = ConfigDict(extra="ignore")
    compressions: int = 0
    ratio_sum: float = 0.0
    completeness_samples: int = 0
    completeness_sum: float = 0.0
    extractions: int = 0
    considered: int = 0
    extracted: int = 0
    accuracy_samples: int = 0
    accuracy_sum: float = 0.0

    def with_compression(self, ratio: float, completeness: float | None = None) -> QualityFigures:
        sampled = completeness is not None
        return self.model_copy(
            update={
                "compressions": self.compressions + 1,
                "ratio_sum": self.ratio_sum + ratio,
                "completeness_samples": self.completeness_samples + sampled,
                "completeness_sum": self.completeness_sum + (completeness or 0.0),
            }
        )

    def with_extraction(self, considered: int, extracted: int, accuracy: float | None = None) -> QualityFigures:
        sampled = accuracy is not None
        return self.model_copy(
            update={
                "extractions": self.extractions + 1,
                "considered": self.considered + considered,
                "extracted": self.extracted + extracted,
                "accuracy_samples": self.accuracy_samples + sampled,
                "accuracy_sum": self.accuracy_sum + (accuracy or 0.0),
            }
        )

    def report(self) -> dict[str, object]:
        """Each figure (a share, 0-1; None until measured), how many runs it rests on, and the spec's target."""
        figures = {
            "compression_ratio": (_share(self.ratio_sum, self.compressions), self.compressions),
            "completeness": (_share(self.completeness_sum, self.completeness_samples), self.completeness_samples),
            "key_point_accuracy": (_share(self.accuracy_sum, self.accuracy_samples), self.accuracy_samples),
            "extraction_rate": (_share(self.extracted, self.considered), self.extractions),
        }
        return {
            name: {"value": value, "runs": runs, "target": TARGETS[name]} for name, (value, runs) in figures.items()
        }


def extraction_rate(considered: int, extracted: int) -> float | None:
    """The share of the mid-term memories considered that went into a long-term memory (提炼率)."""
    return _share(extracted, considered)


def sampled(random: float, share: float) -> bool:
    return random < share


def _share(total: float, count: int) -> float | None:
    return round(total / count, 4) if count else None
