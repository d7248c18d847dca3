"""Is a message a crisis (show the help lines) or distress (never answer it with silence)?

Three layers give the verdict, each reading the same normalised text (`Normaliser`: NFKC, casefold,
zero-width characters out, traditional characters mapped, spaced-out letters and characters joined,
disguises such as 紫砂, unalive, kms or su1cide read as what they hide):

- the **lexicon** (`Lexicon`): phrase families that say it plainly (想死, 不想活了, "kill myself"), each a
  record of data with the everyday uses it must not match and examples that must fire and stay quiet;
- the **classifier** (`Classifier`): two linear heads over hashed character n-grams and words, `crisis`
  (help lines; naive Bayes) and `distress` (sadness, hopelessness, finality: the turn is answered; logistic
  regression), their weights built by `bench/train_crisis_classifier.py` from the labelled sets;
- the chat model's own judgment: its reply starts with `CRISIS_MARKER` (`read_crisis_marker`).

`CrisisCheck.judge` combines the first two: crisis when the lexicon fires or the crisis head reaches its
threshold; distress when there is a crisis or the distress head reaches its threshold. Recall
comes first for distress: answering a sad message costs nothing, silence to a crisis may cost a life.
"""

from __future__ import annotations

import math
import re
import unicodedata
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

CRISIS_MARKER = "[CRISIS]"
# the marker as a model may write it: any case, spaces inside, ASCII or full-width brackets and letters
_MARKER = re.compile(r"[\[［【〔]\s*(?:crisis|ｃｒｉｓｉｓ)\s*[\]］】〕]", re.IGNORECASE)
_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_CJK_CHAR = re.compile(f"[{_CJK}]")
_LATIN = re.compile("[a-z]")
_CJK_GAP = re.compile(rf"(?<=[{_CJK}])[\s.\-_*·•/|~^]+(?=[{_CJK}])")  # 我 不 想 活 了, 自.杀
_LEET_I = re.compile(r"(?<=[a-z])[1!|](?=[a-z])")  # k!ll, su1cide (before "!" can end a sentence)
_SPELT_OUT = re.compile(r"(?<![a-z])(?:[a-z][ .\-_*]){2,}[a-z](?![a-z])")  # k i l l, d.i.e
_SENTENCE = re.compile(r"[。!?;\n…]+|\.(?=\s|$)|\.{2,}")
_CLAUSE = re.compile(r"[,、:]")
_WORD = re.compile(r"[a-z0-9']+")


def read_crisis_marker(text: str) -> tuple[str, bool]:
    """The model's reply without `CRISIS_MARKER` (never shown to the person), and whether it was there."""
    cleaned, count = _MARKER.subn("", text)
    return cleaned, count > 0


class Normaliser:
    """The text as every layer reads it. `traditional`/`simplified`: characters mapped one to one;
    `disguises`: (pattern, what it stands for) pairs, applied in order."""

    def __init__(self, traditional: str, simplified: str, disguises: Sequence[tuple[str, str]]) -> None:
        if len(traditional) != len(simplified):
            raise ValueError("the traditional and simplified character lists differ in length")
        plain = dict(zip(traditional, simplified, strict=True)) | {c: "'" for c in "\u2018\u2019\u02bc\u2032`"}
        self._plain = plain
        self._mapped = re.compile("[" + re.escape("".join(plain)) + "]")
        self._disguises = tuple((re.compile(pattern), meaning) for pattern, meaning in disguises)

    def __call__(self, text: str) -> str:
        text = self._mapped.sub(lambda m: self._plain[m.group()], unicodedata.normalize("NFKC", text).casefold())
        text = "".join(c for c in text if unicodedata.category(c) != "Cf")  # zero-width spaces, joiners
        text = _LEET_I.sub("i", re.sub(r"\s+", " ", text))
        text = _SPELT_OUT.sub(lambda m: re.sub(r"[ .\-_*]", "", m.group()), text)
        for disguise, meaning in self._disguises:
            text = disguise.sub(meaning, text)
        return _CJK_GAP.sub("", text).strip()


@dataclass(frozen=True)
class Family:
    """One phrase family of the lexicon. It fires in a sentence where `pattern` matches, unless
    `not_in_sentence` matches that sentence or `unless` matches the clause around the match;
    `english` families are read only where there is a Latin letter, the others where there is a CJK one."""

    name: str
    pattern: re.Pattern[str]
    unless: re.Pattern[str] | None
    not_in_sentence: re.Pattern[str] | None
    english: bool
    fires: tuple[str, ...]
    quiet: tuple[str, ...]

    def found_in(self, sentence: str) -> bool:
        if not self.pattern.search(sentence):
            return False
        if self.not_in_sentence and self.not_in_sentence.search(sentence):
            return False
        return any(
            not (self.unless and self.unless.search(_clause(sentence, m))) for m in self.pattern.finditer(sentence)
        )


def _clause(sentence: str, match: re.Match[str]) -> str:
    starts = [b.end() for b in _CLAUSE.finditer(sentence, 0, match.start())]
    after = _CLAUSE.search(sentence, match.end())
    return sentence[starts[-1] if starts else 0 : after.start() if after else len(sentence)]


class Lexicon:
    """Phrase families read from records (see `dreamchat/data/crisis_lexicon.toml`). `{NAME}` in a
    pattern stands for the record set's shared part of that name."""

    def __init__(self, normalise: Normaliser, families: Sequence[Family]) -> None:
        self.normalise = normalise
        self.families = tuple(families)

    @classmethod
    def from_records(cls, data: Mapping[str, Any]) -> Lexicon:
        shared: dict[str, str] = dict(data.get("shared", {}))

        def expand(pattern: str) -> str:
            return re.sub(r"\{([A-Z_]+)\}", lambda m: f"(?:{shared[m.group(1)]})", pattern)

        def compiled(record: Mapping[str, Any], key: str, english: bool) -> re.Pattern[str] | None:
            if not record.get(key):
                return None
            pattern = expand(record[key])
            return re.compile(rf"(?<![a-z])(?:{pattern})(?![a-z])" if english and key == "pattern" else pattern)

        families = []
        for record in data["family"]:
            english = record.get("lang", "zh") == "en"
            pattern = compiled(record, "pattern", english)
            if pattern is None:
                raise ValueError(f"family {record.get('name')!r} has no pattern")
            families.append(
                Family(
                    name=record["name"],
                    pattern=pattern,
                    unless=compiled(record, "unless", english),
                    not_in_sentence=compiled(record, "not_in_sentence", english),
                    english=english,
                    fires=tuple(record.get("fires", ())),
                    quiet=tuple(record.get("quiet", ())),
                )
            )
        normalise = Normaliser(
            data["normalise"]["traditional"], data["normalise"]["simplified"], data["normalise"]["disguises"]
        )
        return cls(normalise, families)

    def family_of(self, text: str) -> str | None:
        """The name of the first family that fires in the text, or None."""
        for sentence in _SENTENCE.split(self.normalise(text)):
            chinese, latin = bool(_CJK_CHAR.search(sentence)), bool(_LATIN.search(sentence))
            for family in self.families:
                if (latin if family.english else chinese) and family.found_in(sentence):
                    return family.name
        return None


def features(normalised: str) -> list[str]:
    """What the classifier reads: character 1- to 4-grams (spaces kept inside, not alone) and, in Latin
    script, words and word pairs. The trainer and the check share this one function."""
    found: set[str] = set()
    text = f" {normalised} "
    for n in (1, 2, 3, 4):
        found.update(text[i : i + n] for i in range(len(text) - n + 1))
    words = _WORD.findall(normalised)
    found.update(f"w:{w}" for w in words)
    found.update(f"w:{a} {b}" for a, b in zip(words, words[1:], strict=False))
    found.discard(" ")
    return sorted(found)


def bucket(feature: str, size: int) -> int:
    """A feature's slot among `size` weights: a stable hash, the same in every process."""
    return zlib.crc32(feature.encode("utf-8")) % size


@dataclass(frozen=True)
class Head:
    """One linear head over a message's hashed features: its log-odds are `bias`, plus `each` per feature,
    plus the features' `weights` (absent: 0). A short message ("再见", "我不想") carries less evidence than a
    long one, not more: a `normalised` head (a logistic regression) divides it by sqrt(max(count, floor));
    a naive Bayes head scales it by min(1, count/floor), and its `each` is the weight every feature unseen
    in training has. It fires at `threshold` (log-odds)."""

    bias: float
    weights: Mapping[int, float]
    threshold: float
    each: float = 0.0
    normalised: bool = True
    floor: int = 1

    def score(self, slots: Sequence[int]) -> float:
        evidence = self.each * len(slots) + sum(self.weights.get(s, 0.0) for s in slots)
        if self.normalised:
            return self.bias + evidence / math.sqrt(max(len(slots), self.floor, 1))
        return self.bias + evidence * min(1.0, len(slots) / max(self.floor, 1))


class Classifier:
    """The learned layer: `heads["crisis"]` and `heads["distress"]` over `features`, hashed into `size`
    slots (weights from `dreamchat/data/crisis_classifier.json`)."""

    def __init__(self, size: int, heads: Mapping[str, Head]) -> None:
        if set(heads) != {"crisis", "distress"}:
            raise ValueError(f"the classifier needs a crisis and a distress head, not {sorted(heads)}")
        self.size = size
        self.heads = dict(heads)

    @classmethod
    def from_weights(cls, data: Mapping[str, Any]) -> Classifier:
        heads = {
            name: Head(
                bias=float(head["bias"]),
                weights={int(slot): float(weight) for slot, weight in head["weights"].items()},
                threshold=float(head["threshold"]),
                each=float(head.get("each", 0.0)),
                normalised=bool(head.get("normalised", True)),
                floor=int(head.get("floor", 1)),
            )
            for name, head in data["heads"].items()
        }
        return cls(int(data["size"]), heads)

    def scores(self, normalised: str) -> dict[str, float]:
        """Each head's log-odds for the normalised text."""
        slots = sorted({bucket(f, self.size) for f in features(normalised)})
        return {name: head.score(slots) for name, head in self.heads.items()}


@dataclass(frozen=True)
class Verdict:
    """`crisis`: show the help lines and run the protocol; `distress`: the turn is answered, with the
    crisis-aware instruction; `by`: the layer that said crisis (or distress), for counting, never the text."""

    crisis: bool
    distress: bool
    by: str | None = None


QUIET = Verdict(crisis=False, distress=False)


class CrisisCheck:
    """The lexicon and the classifier together (the chat model's marker is read in the chat turn)."""

    def __init__(self, lexicon: Lexicon, classifier: Classifier) -> None:
        self.lexicon = lexicon
        self.classifier = classifier

    def judge(self, text: str) -> Verdict:
        if not text.strip():
            return QUIET
        if self.lexicon.family_of(text) is not None:
            return Verdict(crisis=True, distress=True, by="lexicon")
        scores = self.classifier.scores(self.lexicon.normalise(text))
        heads = self.classifier.heads
        if scores["crisis"] >= heads["crisis"].threshold:
            return Verdict(crisis=True, distress=True, by="classifier")
        if scores["distress"] >= heads["distress"].threshold:
            return Verdict(crisis=False, distress=True, by="classifier")
        return QUIET

    def crisis_in(self, text: str) -> bool:
        return self.judge(text).crisis

    def recent(self, texts: Sequence[str]) -> Verdict:
        """The newest of a topic's recent messages (oldest first), read alone and with the ones before it:
        a crisis split over messages ("我不想" / "活了") is one statement. An earlier message that was a
        crisis on its own had its own verdict; it does not make the newest one a crisis again."""
        verdict = self.judge(texts[-1])
        if verdict.crisis or len(texts) < 2 or any(self.judge(t).crisis for t in texts[:-1]):
            return verdict
        joined = "".join(texts) if all(_CJK_CHAR.search(t) for t in texts) else " ".join(texts)
        together = self.judge(joined)
        return together if together.crisis else verdict
