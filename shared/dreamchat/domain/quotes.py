"""The person's own words behind a memory.

A key point paraphrases what was said ("Melanie and her kids enjoy nature-inspired painting
projects"); the message it came from holds what a question may ask ("our latest work… a sunset with
a palm tree"). Each key point is anchored, when it is extracted, to the message of its topic that
says it best; a turn shows the sentences of that message that answer the message at hand.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rank_bm25 import BM25Okapi

from dreamchat.domain.retrieval import words
from dreamchat.domain.tokens import clip, estimate_tokens

ANCHOR_WORDS = 2  # a key point is anchored to a message sharing at least this many of its words
QUOTE_TOKENS = 60  # the most of one message a turn shows
QUOTE_RANKS = 3  # a turn shows the words behind its best this many hits
RECALL_QUOTES = 2  # recall_memory shows the words behind this many key points of each memory
_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[。！？…])|\n+|\s+(?=\[)")


@dataclass(frozen=True)
class Quote:
    """What was said, as a turn shows it: who said it (`user` is the person), when, the sentences."""

    message_id: str
    role: str
    timestamp: int
    text: str


def anchor(points: Sequence[str], messages: Sequence[tuple[str, str]]) -> list[str]:
    """For each key point, the id of the message (id, text) that says it best by BM25, or "" when no
    message shares ANCHOR_WORDS of its words (a point the model inferred, or an empty topic)."""
    corpus = [set(words(text)) for _, text in messages]
    if not any(corpus):
        return ["" for _ in points]
    bm25 = BM25Okapi([list(c) or ["∅"] for c in corpus])
    found = []
    for point in points:
        wanted = list(dict.fromkeys(words(point)))
        if not wanted:  # "……", an emoji: nothing to anchor by
            found.append("")
            continue
        scores = bm25.get_scores(wanted)
        shared = [len(c.intersection(wanted)) for c in corpus]
        best = max(range(len(messages)), key=lambda i: (shared[i], scores[i]))  # the first of equals
        found.append(messages[best][0] if shared[best] >= ANCHOR_WORDS else "")
    return found


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]


def excerpt(text: str, query: str, point: str, max_tokens: int = QUOTE_TOKENS) -> str:
    """The sentences of `text` that share most words with the query (twice) and the key point, in
    their order, within `max_tokens`; the whole text when it fits."""
    text = " ".join(text.split())
    if estimate_tokens(text) <= max_tokens:
        return text
    parts = _sentences(text)
    asked, said = set(words(query)), set(words(point))
    scores = [2 * len(asked.intersection(words(s))) + len(said.intersection(words(s))) for s in parts]
    chosen: list[int] = []
    spent = 0
    for number in sorted(range(len(parts)), key=lambda i: (-scores[i], i)):
        cost = estimate_tokens(parts[number]) + 1
        if spent + cost <= max_tokens:
            chosen.append(number)
            spent += cost
    if not chosen:  # one long sentence: its start
        return clip(parts[max(range(len(parts)), key=lambda i: scores[i])] if parts else text, max_tokens)
    return " ".join(parts[i] for i in sorted(chosen))
