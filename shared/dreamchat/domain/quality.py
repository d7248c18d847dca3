"""The spec's compression quality targets, as running figures per pair.

短期→中期: 信息完整性 ≥ 80 %, 压缩率 ≥ 70 %; 中期→长期: 核心要点提取准确率 ≥ 90 %, 提炼率 ≥ 90 %.
The compression ratio and the extraction rate are measured on every run; completeness and
key-point accuracy are judged by a model on a sampled share of runs (scores 0-100).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

TARGETS = {"compression_ratio": 0.70, "completeness": 0.80, "key_point_accuracy": 0.90, "extraction_rate": 0.90}


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
