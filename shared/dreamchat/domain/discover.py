"""Discover: the categories an owner files an AI user under, its tags, and what a search of the public
listing matches. Pure rules; the listing itself is read by `FriendListService.public`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

# The categories, in the order the discover screen shows them. 恋爱 is a romantic or intimate partner:
# an AI user filed there is marked `romance` (closed to a person in minors' mode) by `AIUser` itself.
CharacterCategory = Literal["陪伴", "朋友", "学习", "冒险", "幻想", "恋爱", "其他"]
CATEGORIES: tuple[CharacterCategory, ...] = get_args(CharacterCategory)
DEFAULT_CATEGORY: CharacterCategory = "其他"
ROMANCE_CATEGORY: CharacterCategory = "恋爱"


def unique_tags(tags: Iterable[str]) -> list[str]:
    """The tags in their order, each once (compared without case), blank ones dropped."""
    seen: set[str] = set()
    kept: list[str] = []
    for tag in (t.strip() for t in tags):
        if tag and tag.casefold() not in seen:
            seen.add(tag.casefold())
            kept.append(tag)
    return kept


def card_category(tags: Sequence[str], romance: bool) -> CharacterCategory:
    """The category of an imported character card: 恋爱 for a partner, else the first tag that names a
    category, else 其他."""
    if romance:
        return ROMANCE_CATEGORY
    named = {tag.strip() for tag in tags}
    return next((c for c in CATEGORIES if c in named), DEFAULT_CATEGORY)


@dataclass(frozen=True)
class Listed:
    """An entry of the public listing: what a search reads without loading the AI user (`name` None: an
    entry written before entries held more than the id, so the AI user must be read)."""

    ai_user_id: str
    name: str | None = None
    tags: tuple[str, ...] = ()
    category: str | None = None


@dataclass(frozen=True)
class Search:
    """What a person looks for on the discover screen: words in a name or a tag (`q`), one tag exactly
    (`tag`), one category. Case is ignored; an empty search matches everything."""

    q: str | None = None
    tag: str | None = None
    category: str | None = None

    @classmethod
    def of(cls, q: str | None = None, tag: str | None = None, category: str | None = None) -> Search:
        """Blank words are no filter: a search box cleared is the whole listing."""
        return cls(_folded(q), _folded(tag), category)

    @property
    def empty(self) -> bool:
        return self.q is None and self.tag is None and self.category is None

    def matches(self, name: str, tags: Sequence[str], category: str) -> bool:
        folded = [t.casefold() for t in tags]
        if self.category is not None and category != self.category:
            return False
        if self.tag is not None and self.tag not in folded:
            return False
        return self.q is None or self.q in name.casefold() or any(self.q in t for t in folded)


def _folded(text: str | None) -> str | None:
    text = (text or "").strip()
    return text.casefold() if text else None
