"""The narrow interfaces between services and the outside world.

Storage adapters (DynamoDB/S3, SQLite/directory, and an in-memory item store for tests)
implement `ItemStore` and `BlobStore` with the same behaviour; `tests/contract` runs one suite
against each.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

Item = dict[str, Any]

MAX_TRANSACTION_ITEMS = 25
TTL_ATTRIBUTE = "expires_at"
DUE_PK = "due_pk"
DUE_SK = "due_sk"


class StoreError(Exception):
    """A storage call failed for a reason the caller can act on."""


class ConditionFailed(StoreError):
    """A create-if-absent, version or transaction condition did not hold; nothing was written."""


@dataclass(frozen=True)
class Put:
    """Write one item; optionally only if absent, or only if its stored version matches.

    `expected_version` 0 means the item must not exist yet; the written item carries its
    own new `version`. `if_unversioned`: the item must exist and carry no version yet (one
    stored before its kind had versions, getting its first).
    """

    item: Item
    if_absent: bool = False
    expected_version: int | None = None
    if_unversioned: bool = False


@dataclass(frozen=True)
class Delete:
    """Remove one item; with `expected_version`, only while it is stored at that version."""

    pk: str
    sk: str
    expected_version: int | None = None


@dataclass(frozen=True)
class Check:
    """A transaction condition on another item: it must be absent (or expired); with a positive
    `expected_version`, it must be stored at exactly that version. Writes nothing."""

    pk: str
    sk: str
    expected_version: int | None = None

    @property
    def absent(self) -> bool:
        return not self.expected_version


MAX_TRANSACTION_CHECKS = 75  # DynamoDB takes 100 items in all


@dataclass(frozen=True)
class ItemPage:
    items: list[Item]
    cursor: str | None = None


@dataclass(frozen=True)
class KeyRange:
    """Sort-key condition: a prefix, or an inclusive range (either end open)."""

    prefix: str | None = None
    start: str | None = None
    end: str | None = None


Operation = Put | Delete | Check


def check_transaction(operations: Sequence[Operation]) -> None:
    """The limits every item store enforces: 1 to 25 writes (and up to 75 checks), each item touched once."""
    writes = [op for op in operations if not isinstance(op, Check)]
    if not 0 < len(writes) <= MAX_TRANSACTION_ITEMS or len(operations) - len(writes) > MAX_TRANSACTION_CHECKS:
        raise ValueError(f"a transaction takes 1 to {MAX_TRANSACTION_ITEMS} writes")
    keys = [(op.item["pk"], op.item["sk"]) if isinstance(op, Put) else (op.pk, op.sk) for op in operations]
    if len(set(keys)) != len(keys):
        raise ValueError("a transaction may touch each item once")


class ItemStore(Protocol):
    def get(self, pk: str, sk: str) -> Item | None: ...

    def put(self, item: Item) -> None: ...

    def put_if_absent(self, item: Item) -> bool:
        """Write the item only if (pk, sk) is free; True when this call created it."""
        ...

    def put_versioned(self, item: Item, expected_version: int | None) -> int:
        """Write with optimistic locking on `version`; None means "must not exist yet".

        Returns the new version; raises ConditionFailed if the stored version differs.
        """
        ...

    def delete(self, pk: str, sk: str) -> None: ...

    def transact(self, operations: Sequence[Operation]) -> None:
        """All-or-nothing write of up to 25 operations (plus checks); ConditionFailed writes nothing."""
        ...

    def query(
        self,
        pk: str,
        key: KeyRange = KeyRange(),
        *,
        limit: int | None = None,
        descending: bool = False,
        cursor: str | None = None,
        consistent: bool = True,
    ) -> ItemPage:
        """Items of one partition in sort-key order; `consistent=False` may miss writes of the last
        second or so, at half the read cost on DynamoDB (for reads where freshness does not matter)."""
        ...

    def query_due(self, due_pk: str, until: str, *, limit: int | None = None, cursor: str | None = None) -> ItemPage:
        """Items of the sparse due index in `due_pk` whose `due_sk` <= until, in due order."""
        ...


def query_all(
    store: ItemStore, pk: str, key: KeyRange = KeyRange(), *, page_size: int = 100, consistent: bool = True
) -> list[Item]:
    """Every live item of a partition (within the key range), in sort-key order."""
    items: list[Item] = []
    cursor = None
    while True:
        page = store.query(pk, key, limit=page_size, cursor=cursor, consistent=consistent)
        items += page.items
        if (cursor := page.cursor) is None:
            return items


class BlobStore(Protocol):
    def put(self, key: str, data: bytes, content_type: str = "application/json") -> None: ...

    def get(self, key: str) -> bytes | None: ...

    def delete(self, key: str) -> None: ...

    def list(self, prefix: str) -> list[str]: ...


@dataclass(frozen=True)
class UploadForm:
    """Where a client posts one file straight to the blob store, and the form fields to post with it."""

    url: str
    fields: dict[str, str]


@runtime_checkable
class SignedBlobs(Protocol):
    """A blob store a client can reach itself (S3), through links signed here for one object and a short
    time: the Lambda's 6 MB payload then never carries a file. The directory store signs nothing."""

    def download_url(self, key: str, content_type: str, seconds: int) -> str: ...

    def upload_form(
        self, key: str, content_type: str, max_bytes: int, seconds: int, tags: dict[str, str]
    ) -> UploadForm: ...


@dataclass(frozen=True)
class Event:
    """A domain event on the bus: `detail_type` names it, `detail` is JSON-ready."""

    detail_type: str
    detail: dict[str, Any] = field(default_factory=dict)


class EventBus(Protocol):
    def publish(self, event: Event) -> None: ...


EventHandler = Callable[[Event], None]


class WorkQueue(Protocol):
    """Independent work items (the heartbeat fan-out): SQS in AWS, the local bus locally."""

    def send(self, items: list[dict[str, Any]]) -> None: ...


class EmbeddingUnavailable(Exception):
    """The embedder gave no usable vectors; retrieval falls back to words alone (BM25)."""


class Embedder(Protocol):
    """The `embedding` role. `name` names provider, model and size ("" when there is none)."""

    name: str
    kind: str  # "api", "local" or "bm25"

    def embed(self, texts: Sequence[str], *, query: bool) -> Any:
        """One unit-length-or-not float vector per text, as a 2-D numpy array."""
        ...


@dataclass(frozen=True)
class SearchResult:
    title: str
    url: str  # the source the AI cites
    snippet: str


class SearchUnavailable(Exception):
    """Web search is not configured, or the provider failed or answered something unreadable."""


class SearchProvider(Protocol):
    """The `search_web` tool's provider: SearXNG, Bocha or Tavily, or none."""

    def search(self, query: str, limit: int = 5) -> list[SearchResult]: ...


class Clock(Protocol):
    def now(self) -> datetime:
        """The current time, timezone-aware UTC."""
        ...


class RandomSource(Protocol):
    def random(self) -> float:
        """Uniform in [0, 1)."""
        ...


class Counter(Protocol):
    def __call__(self, name: str, value: int = 1) -> None:
        """Count an operational event (a CloudWatch metric in AWS); never given any content."""
        ...


class ImageProblem(ValueError):
    """An image that cannot be used: it does not decode, or it is too large; the message says which."""


class AvatarImages(Protocol):
    """Turns an uploaded picture into the avatar we store (Pillow in `dreamchat.adapters.images`)."""

    def avatar(self, image: bytes) -> bytes:
        """The picture decoded, at most `AVATAR_SIDE` pixels a side, re-encoded as a PNG without any of
        the upload's metadata; ImageProblem when it cannot be decoded."""
        ...


class OperatorAlerts(Protocol):
    """Tells the operators at once that a crisis escalation was opened: an SNS topic in AWS, a log line
    locally (`dreamchat.adapters.alerts`). Its id and time only, never a word of the chat."""

    def escalation_opened(self, escalation_id: str, opened_at: int) -> None: ...
