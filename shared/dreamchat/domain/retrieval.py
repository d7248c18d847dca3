"""On-demand retrieval over the long-term index: BM25, with jieba words for Chinese."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import jieba
import numpy as np
from rank_bm25 import BM25Okapi

from dreamchat.domain.emotions import LABELS
from dreamchat.domain.models import LongTermIndex

jieba.setLogLevel(60)  # jieba prints its dictionary loading otherwise

_TOKEN = re.compile(r"[\u4e00-\u9fff]+|[a-z0-9]+", re.IGNORECASE)
_STOP = frozenset(
    """
的 了 是 我 你 他 她 它 们 在 和 与 也 都 就 吗 呢 吧 啊 呀 哦 嗯 这 那 有 没 不 要 会 一 个 很 还 又 把 被 让 给
a about above after again all also am an and any are as at be because been before being both but by
can could did do does doing don down during each few for from further had has have having he her here
hers herself him himself his how i if in into is it its itself just me more most my myself no nor not
now of off on once only or other our ours out over own same she should so some such than that the
their theirs them themselves then there these they this those through to too under until up very was
we were what when where which while who whom why will with would you your yours yourself s t re ve ll d
really lot lots thing things get got like
""".split()
)
# An entry is a strong match (its detail document is loaded) when the query names at least half
# of its title's words, or shares at least this many distinct rare words with it (a word in
# more than RARE_SHARE of the entries, like "today" or "new", says nothing about which one).
TITLE_SHARE = 0.5
SHARED_WORDS = 2
RARE_SHARE = 0.25
# Greeting, catching-up and time-passing words: they rank, but never make a message "about" a
# memory (they name no topic), so "It's been a few days. What's new with you?" gets the
# small-talk budget however many memories say "days" or "new".
SMALL_TALK = frozenset(
    """
hey hi hello hiya howdy yo new news day days week weeks month months year years today yesterday
lately recently recent ago while
你好 您好 嗨 哈喽 哈啰 早上好 晚上好 好久不见 怎么样 新鲜事 今天 昨天 最近 几天 好几天 这几天 前几天 这段时间
""".split()
)


_LABELS = frozenset(label for labels in LABELS.values() for label in labels)


def words(text: str) -> list[str]:
    """Search words: jieba's search-mode cut for Chinese runs, lower-cased words otherwise."""
    return list(_words(text))


@lru_cache(maxsize=65536)
def _words(text: str) -> tuple[str, ...]:
    # Index entries are cut again on every turn; the cut of a text never changes.
    result: list[str] = []
    for run in _TOKEN.findall(text.casefold()):
        if run.isascii():
            result.append(run)
        else:
            result += [w for w in jieba.lcut_for_search(run) if w.strip()]
    return tuple(w for w in result if w not in _STOP)


def entry_text(entry: LongTermIndex) -> str:
    return " ".join([entry.title, *entry.key_points])


@dataclass(frozen=True)
class Scored:
    entry: LongTermIndex
    score: float


def rank(query: str, entries: list[LongTermIndex]) -> list[Scored]:
    """Entries by BM25 relevance to the query, best first (zero when nothing matches)."""
    query_words = words(query)
    if not entries or not query_words:
        return [Scored(entry, 0.0) for entry in entries]
    corpus = [words(entry_text(entry)) or ["∅"] for entry in entries]
    scores = BM25Okapi(corpus).get_scores(query_words)
    # BM25Okapi can score a word present in most entries at or below zero; overlap still counts.
    overlap = [len(set(query_words) & set(doc)) for doc in corpus]
    combined = [max(float(s), 0.0) + 0.1 * o for s, o in zip(scores, overlap, strict=False)]
    return sorted((Scored(e, s) for e, s in zip(entries, combined, strict=False)), key=lambda x: -x.score)


def strong_matches(query: str, ranked: list[Scored], limit: int = 2) -> list[Scored]:
    """The best matches good enough to load their detail documents."""
    query_words = set(words(query))
    entry_words = {s.entry.id: set(words(entry_text(s.entry))) for s in ranked}
    common = _common_words(query_words, list(entry_words.values()))
    strong: list[Scored] = []
    for scored in ranked:
        if scored.score <= 0 or len(strong) == limit:
            break
        title = set(words(scored.entry.title)) - common
        shared = (query_words & entry_words[scored.entry.id]) - common
        if (title and len(title & query_words) / len(title) >= TITLE_SHARE) or len(shared) >= SHARED_WORDS:
            strong.append(scored)
    return strong


def _common_words(query_words: set[str], documents: list[set[str]]) -> set[str]:
    """The query's words that appear in more than RARE_SHARE of the entries (with 4+ entries)."""
    if len(documents) < 4:
        return set()
    return {w for w in query_words if sum(w in d for d in documents) > RARE_SHARE * len(documents)}


# Fine-grained retrieval: units (one key point, or one summary) ranked by words and meaning.

Precision = Literal["hour", "day", "month"]
HITS = 400  # the ranking keeps this many (far more than any budget shows)
SCORED = 1000  # BM25 scores at most this many units per query (those sharing the most words with it)
# Calibrated score fusion, meaning first: a unit's score is its cosine with the conversation (the
# message and the turns before it, `recall_query`), plus WORDS_SHARE times its BM25 score scaled to
# [0, 1] by the best unit's (shared words, the feeling's labels among them, break near-ties of meaning
# and lift a unit that names the message's rare words), plus TIME_SHARE when it was made in the period
# the message names. On recall_zh dev and LoCoMo the embedding alone ranks better than BM25 alone and
# better than reciprocal-rank fusion of the two (bench/recall_fusion.py, bench/RESULTS.md "Issue 39").
# Without vectors, BM25 ranks alone.
WORDS_SHARE = 0.03
TIME_SHARE = 0.1
# A message naming a time ("last June", "去年夏天", "on 8 May 2023"; `periods.period_of`): the units
# made in that period (widened by PERIOD_SLACK seconds each side: a thing done on the 8th is often
# told on the 9th) gain TIME_SHARE and count as relevant (the message is about what happened then).
PERIOD_SLACK = 7 * 86400
# A memory whose best unit matches the message lifts its other units: each unit gains this share of
# the best score among its memory's units (the other facts of a session the message is about are
# likelier evidence than a stray match elsewhere, and they share its dated line).
PARENT_WEIGHT = 0.3


@dataclass(frozen=True)
class Unit:
    """One retrievable memory: a key point of a long-term entry (or a whole summary), with its date
    and its parent memory."""

    id: str
    parent_id: str
    text: str
    created_at: int
    precision: Precision = "day"
    title: str = ""
    source: str = ""  # the id of the message it was drawn from, when known
    # a key point a later one replaced: what holds now instead, and since when (shown as past)
    replaced_by: str = ""
    replaced_at: int = 0
    tags: tuple[str, ...] = ()  # its memory's emotion labels (feeling, scene, atmosphere): matched as words


@dataclass(frozen=True)
class UnitIndex:
    """The pair's units prepared for ranking; built once per set of units."""

    units: list[Unit]
    postings: dict[str, np.ndarray]  # word -> the units holding it
    bm25: BM25Okapi | None
    matrix: np.ndarray | None  # unit-length rows, zero for a unit without a vector
    has_vector: np.ndarray  # per unit
    created: np.ndarray  # per unit, epoch seconds
    parents: np.ndarray  # per unit, the number of its parent memory (in order of first appearance)


@dataclass(frozen=True)
class Query:
    """What the turn asks: the message, the recent turns, the feeling shown (emotion labels); `vectors`
    holds one row per `texts` entry when an embedding model answered."""

    message: str
    recent: str = ""
    vectors: np.ndarray | None = None
    period: tuple[int, int] | None = None  # [start, end) epoch seconds the message names, when it names one
    feeling: tuple[str, ...] = ()

    @property
    def conversation(self) -> str:
        return f"{self.recent}\n{self.message}" if self.recent else self.message

    @property
    def texts(self) -> list[str]:
        """The texts to embed: the conversation (the message after the recent turns). (Embedding the
        message's parts apart, "A and B", measured no better on LoCoMo and worse on recall_zh dev.)"""
        return [self.conversation]


@dataclass(frozen=True)
class Hit:
    unit: Unit
    score: float
    relevant: bool


def build_index(units: list[Unit], vectors: list[np.ndarray | None]) -> UnitIndex:
    postings: dict[str, list[int]] = {}
    documents = [[*words(u.text), *u.tags] for u in units]
    for number, document in enumerate(documents):
        for word in set(document):
            postings.setdefault(word, []).append(number)
    bm25 = BM25Okapi([d or ["∅"] for d in documents]) if units else None
    matrix = _matrix(vectors)
    has_vector = np.any(matrix, axis=1) if matrix is not None else np.zeros(len(units), dtype=bool)
    created = np.array([u.created_at for u in units], dtype=np.int64)
    numbers: dict[str, int] = {}
    parents = np.array([numbers.setdefault(u.parent_id, len(numbers)) for u in units], dtype=np.int64)
    return UnitIndex(units, {w: np.array(p) for w, p in postings.items()}, bm25, matrix, has_vector, created, parents)


def _matrix(vectors: list[np.ndarray | None]) -> np.ndarray | None:
    sizes = {v.shape[-1] for v in vectors if v is not None}
    if len(sizes) != 1:
        return None
    size = sizes.pop()
    matrix = np.zeros((len(vectors), size), dtype=np.float32)
    for row, vector in enumerate(vectors):
        if vector is not None:
            matrix[row] = vector
    return matrix


def search(index: UnitIndex, query: Query) -> list[Hit]:
    """Units by fused score (cosine with the conversation, plus a share of BM25 and of the period the
    message names), best first; `relevant` marks the ones the message is really about: they share a
    rare word with it or the turns before it, or were made in the period it names. (Cosine ranks but
    does not decide: on LoCoMo, greetings stand further above a pair's cosines than questions do.)"""
    if not index.units:
        return []
    lexical, relevant = _lexical(index, [*words(query.conversation), *query.feeling])
    if query.recent:  # the message's own words count as much again as the conversation's
        lexical = (lexical + _lexical(index, words(query.message))[0]) / 2
    meaning = _meaning(index, query)
    scores = lexical if meaning is None else meaning + WORDS_SHARE * lexical
    if query.period is not None:
        start, end = query.period
        inside = (index.created >= start - PERIOD_SLACK) & (index.created < end + PERIOD_SLACK)
        scores = scores + TIME_SHARE * inside
        relevant |= inside
    scores = _with_parent(index, scores)
    order = np.argsort(-scores, kind="stable")[:HITS]
    return [Hit(index.units[i], float(scores[i]), bool(relevant[i])) for i in order if scores[i] > 0]


def _with_parent(index: UnitIndex, scores: np.ndarray) -> np.ndarray:
    """Each scored unit plus PARENT_WEIGHT times the best score among its memory's units."""
    if PARENT_WEIGHT <= 0:
        return scores
    best = np.zeros(int(index.parents.max()) + 1)
    np.maximum.at(best, index.parents, scores)
    return np.where(scores > 0, scores + PARENT_WEIGHT * best[index.parents], 0.0)


def _meaning(index: UnitIndex, query: Query) -> np.ndarray | None:
    """Each unit's cosine with the conversation; a unit without a vector gets the mean of the others'
    (its words decide where it stands); None without vectors."""
    if query.vectors is None or index.matrix is None or query.vectors.shape[-1] != index.matrix.shape[1]:
        return None
    if not index.has_vector.any():
        return None
    cosines = index.matrix @ np.asarray(query.vectors, dtype=np.float32)[0]
    return np.where(index.has_vector, cosines, float(cosines[index.has_vector].mean()))


def _lexical(index: UnitIndex, query_words: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Each unit's BM25 score for the query scaled to [0, 1] (scored only where a word is shared); and
    `about`: the units sharing a rare word (in at most RARE_SHARE of the units) that is not a greeting's
    or an emotion label (a feeling ranks, but does not make a message about one memory)."""
    scaled = np.zeros(len(index.units))
    about = np.zeros(len(index.units), dtype=bool)
    found = {w: index.postings[w] for w in dict.fromkeys(query_words) if w in index.postings}
    if not found or index.bm25 is None:
        return scaled, about
    limit = RARE_SHARE * len(index.units) if len(index.units) >= 4 else len(index.units)
    rare = {w: posting for w, posting in found.items() if len(posting) <= limit}
    for word, posting in rare.items():
        about[posting] |= word not in SMALL_TALK and word not in _LABELS
    # common words alone do not make a candidate; the units sharing the most words are scored
    counts = np.bincount(np.concatenate(list((rare or found).values())), minlength=len(index.units))
    candidates = np.flatnonzero(counts)
    if len(candidates) > SCORED:
        candidates = np.sort(np.argsort(-counts, kind="stable")[:SCORED])
    scores = np.maximum(np.asarray(index.bm25.get_batch_scores(query_words, candidates.tolist())), 0.0)
    # BM25Okapi scores a word present in most units at or below zero (in a small pair, every word):
    # sharing it still counts, as in `rank`
    shared = np.bincount(np.concatenate(list(found.values())), minlength=len(index.units))
    scores = scores + 0.1 * shared[candidates]
    if scores.max(initial=0.0) > 0:
        scaled[candidates] = scores / scores.max()
    return scaled, about
