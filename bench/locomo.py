"""The LoCoMo evaluation data as plain values, and the rule that decides whether a fact is "in" a text.

`../shared/data/locomo-dev.json` (relative to the repo root; the environment variable `LOCOMO_DATA`
names another path, e.g. from a git worktree elsewhere) holds five LoCoMo conversations (Maharana et al.,
ACL 2024; snap-research/locomo's `data/locomo10.json`, CC BY-NC 4.0: evaluation only, never shipped).
Sessions become topics: speaker_a is the person ("user"), speaker_b the companion ("assistant").
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from dreamchat.domain.retrieval import words

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = Path(os.environ.get("LOCOMO_DATA") or ROOT.parent / "shared" / "data" / "locomo-dev.json")
QA_CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
TURN_SECONDS = 30  # the replay spaces a session's turns this far apart
WORD_SHARE = 0.8  # a fact is present when this share of its words are (see `fact_present`)

# Function words that carry no fact; `retrieval.words` keeps them (it drops only a handful).
ENGLISH_STOP = frozenset(
    """
a about above after again all also am an and any are as at be because been before being both but by
can could did do does doing don down during each few for from further had has have having he her here
hers herself him himself his how i if in into is it its itself just me more most my myself no nor not
now of off on once only or other our ours out over own same she should so some such than that the
their theirs them themselves then there these they this those through to too under until up very was
we were what when where which while who whom why will with would you your yours yourself s t re ve ll d
really lot lots thing things get got also like
""".split()
)

_DIA = re.compile(r"D:?(\d+):(\d+)")


@dataclass(frozen=True)
class Turn:
    speaker: str
    role: str  # "user" (speaker_a) or "assistant" (speaker_b)
    dia_id: str
    text: str


@dataclass(frozen=True)
class Fact:
    text: str
    dia_ids: tuple[str, ...]
    speaker: str


@dataclass(frozen=True)
class Session:
    number: int
    started: datetime
    turns: list[Turn]
    summary: str
    facts: list[Fact]

    @property
    def chars(self) -> int:
        return sum(len(turn.text) for turn in self.turns)


@dataclass(frozen=True)
class Question:
    question: str
    category: int
    evidence: tuple[str, ...]
    answer: str = ""


@dataclass
class Dialogue:
    sample_id: str
    speaker_a: str
    speaker_b: str
    sessions: list[Session]
    questions: list[Question]
    facts_by_dia: dict[str, list[Fact]] = field(default_factory=dict)
    turns_by_dia: dict[str, Turn] = field(default_factory=dict)

    def date_of(self, dia_id: str) -> str:
        """The ISO date of the session a turn belongs to."""
        number = int(dia_id[1:].split(":")[0])
        return next((s.started.strftime("%Y-%m-%d") for s in self.sessions if s.number == number), "")

    def evidence_turns(self, question: Question) -> list[Turn]:
        """The raw turns the question's evidence names (the ceiling of what any memory could keep)."""
        return [self.turns_by_dia[d] for d in question.evidence if d in self.turns_by_dia]

    def evidence_facts(self, question: Question) -> list[Fact]:
        """The observation facts whose dia_id is among the question's evidence (each once); none when
        the evidence reaches past the sessions loaded (`--sessions`)."""
        last = self.sessions[-1].number if self.sessions else 0
        if any(int(dia[1:].split(":")[0]) > last for dia in question.evidence):
            return []
        found = {id(f): f for dia in question.evidence for f in self.facts_by_dia.get(dia, [])}
        return list(found.values())


def load(path: Path = DEFAULT_DATA, *, limit: int | None = None, sessions: int | None = None) -> list[Dialogue]:
    """The first `limit` conversations, each cut to its first `sessions` sessions (questions kept)."""
    if not path.exists():
        raise SystemExit(
            f"LoCoMo data not found at {path} (five conversations of snap-research/locomo's data/locomo10.json); pass --data"
        )
    raw = json.loads(path.read_text())
    return [_dialogue(item, sessions) for item in raw[:limit]]


def _dialogue(item: dict, max_sessions: int | None) -> Dialogue:
    conv = item["conversation"]
    numbers = sorted(int(k.split("_")[1]) for k in conv if re.fullmatch(r"session_\d+", k) and conv[k])
    a, b = conv["speaker_a"], conv["speaker_b"]
    sessions: list[Session] = []
    for number in numbers[:max_sessions]:
        started = parse_when(conv[f"session_{number}_date_time"])
        if sessions and started <= sessions[-1].started:  # keep the replay's clock moving forward
            started = sessions[-1].started + timedelta(hours=1)
        turns = [
            Turn(t["speaker"], "user" if t["speaker"] == a else "assistant", t["dia_id"], turn_text(t))
            for t in conv[f"session_{number}"]
        ]
        summary = item["session_summary"].get(f"session_{number}_summary", "")
        facts = _facts(item["observation"].get(f"session_{number}_observation", {}))
        sessions.append(Session(number, started, turns, summary, facts))
    questions = [
        Question(q["question"], q["category"], dia_ids(q.get("evidence", [])), str(q.get("answer", "")))
        for q in item["qa"]
    ]
    dialogue = Dialogue(item["sample_id"], a, b, sessions, questions)
    for session in sessions:
        dialogue.turns_by_dia.update({t.dia_id: t for t in session.turns})
        for fact in session.facts:
            for dia in fact.dia_ids:
                dialogue.facts_by_dia.setdefault(dia, []).append(fact)
    return dialogue


def _facts(observation: dict[str, list]) -> list[Fact]:
    return [
        Fact(text, dia_ids(ids if isinstance(ids, list) else [ids]), speaker)
        for speaker, entries in observation.items()
        for text, ids in entries
    ]


def dia_ids(values: Iterable[str]) -> tuple[str, ...]:
    """Dialogue ids as `D<session>:<turn>`, repairing the data's few odd ones ("D8:6; D9:17", "D:11:26")."""
    return tuple(f"D{s}:{t}" for value in values for s, t in _DIA.findall(str(value)))


def parse_when(text: str) -> datetime:
    """LoCoMo's "1:56 pm on 8 May, 2023", read as UTC."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def turn_text(turn: dict) -> str:
    """What was said; a shared photo is kept as its caption, the way LoCoMo's own baselines show it."""
    caption = turn.get("blip_caption")
    return f"{turn['text']} [shares a photo of {caption}]" if caption else turn["text"]


def content_words(text: str) -> list[str]:
    """The jieba search words of `retrieval.words`, without English function words."""
    return [w for w in words(text) if w not in ENGLISH_STOP]


def fact_present(fact: str, lines: list[str], line_words: list[set[str]] | None = None) -> bool:
    """The rule: the fact's text appears verbatim (case-insensitive) in the context, or at least 80 % of
    its distinct content words appear together in one line of it (one index entry, summary or detail)."""
    lowered = fact.casefold().strip().rstrip(".")
    if any(lowered in line.casefold() for line in lines):
        return True
    wanted = set(content_words(fact))
    if not wanted:
        return False
    pools = line_words if line_words is not None else [set(content_words(line)) for line in lines]
    return any(len(wanted & pool) >= WORD_SHARE * len(wanted) for pool in pools)


ANSWER_SHARE = 0.6  # an answer is in a text when this share of its content words are in one sentence of it
_SENTENCE = re.compile(r"[.!?。！？；;\n]+\s*")


_ISO_DATE = re.compile(r"(\d{4})-(\d{2})(?:-(\d{2}))?")
_LINE_DATE = re.compile(r"^- (\d{4}-\d{2}(?:-\d{2})?)")


def spelled_dates(text: str) -> str:
    """ISO dates written as LoCoMo's answers write them ("2023-05-08" -> "8 May 2023"): one date, two spellings."""

    def spell(match: re.Match[str]) -> str:
        year, month, day = match.groups()
        name = datetime(int(year), int(month), 1).strftime("%B")
        return f"{int(day)} {name} {year}" if day else f"{name} {year}"

    return _ISO_DATE.sub(spell, text)


def sentences(lines: list[str], dates: list[str] | None = None) -> list[set[str]]:
    """The content words of each sentence of the lines (split at . ! ? ; and their CJK forms); a line's
    date (its leading `- <date>`, or `dates[i]`) belongs to every sentence of that line."""
    pools = []
    for number, line in enumerate(lines):
        found = _LINE_DATE.match(line)
        date = dates[number] if dates else (found.group(1) if found else "")
        date_words = set(content_words(spelled_dates(date)))
        pools += [
            date_words | set(content_words(spelled_dates(part)))
            for part in _SENTENCE.split(line)
            if content_words(part)
        ]
    return pools


def answer_present(answer: str, pools: list[set[str]]) -> bool:
    """The answer-in-context rule: >= 60 % of the gold answer's distinct content words in one sentence."""
    wanted = set(content_words(answer))
    return bool(wanted) and any(len(wanted & pool) >= ANSWER_SHARE * len(wanted) for pool in pools)


def share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "n/a"
