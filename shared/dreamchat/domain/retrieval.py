"""On-demand retrieval over the long-term index: BM25, with jieba words for Chinese."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import jieba
from rank_bm25 import BM25Okapi

from dreamchat.domain.models import LongTermIndex

jieba.setLogLevel(60)  # jieba prints its dictionary loading otherwise

_TOKEN = re.compile(r"[\u4e00-\u9fff]+|[a-z0-9]+", re.IGNORECASE)
_STOP = frozenset("""
的 了 是 我 你 他 她 它 们 在 和 与 也 都 就 吗 呢 吧 啊 呀 哦 嗯 这 那 有 没 不 要 会 一 个 很 还 又 把 被 让 给
a about above after again all also am an and any are as at be because been before being both but by
can could did do does doing don down during each few for from further had has have having he her here
hers herself him himself his how i if in into is it its itself just me more most my myself no nor not
now of off on once only or other our ours out over own same she should so some such than that the
their theirs them themselves then there these they this those through to too under until up very was
we were what when where which while who whom why will with would you your yours yourself s t re ve ll d
really lot lots thing things get got like
""".split())
# An entry is a strong match (its detail document is loaded) when the query names at least half
# of its title's words, or shares at least this many distinct rare words with it (a word in
# more than RARE_SHARE of the entries, like "today" or "new", says nothing about which one).
TITLE_SHARE = 0.5
SHARED_WORDS = 2
RARE_SHARE = 0.25


def words(text: str) -> list[str]:
    """Search words: jieba's search-mode cut for Chinese runs, lower-cased words otherwise."""
    return list(_words(text))


@lru_cache(maxsize=16384)
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
