"""The workspace store: upsert in batches, search, read and delete, all as the token's user."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union, cast

from ._batches import MAX_BATCH_BYTES, MAX_BATCH_ITEMS, EncodedItem, batch_body, encode_items, plan_batches
from ._operations import route
from ._pages import Pages
from ._time import Instant, iso_instant
from ._transport import Transport
from .errors import UnifiedMemoryError
from .types import Item, SearchHit, SearchPage

#: Rounds of "drop the items a 422 named, send the rest" per batch (sharing is checked after the schema).
MAX_VALIDATION_ROUNDS = 3


@dataclass
class ItemProblem:
    """One problem of a refused item, as the API's 422 names it."""

    path: str
    message: str


@dataclass
class UpsertItemResult:
    """What became of one item; ``index`` is its position in the list given to ``upsert``."""

    index: int
    ok: bool
    source: str
    external_id: str
    id: Optional[str] = None
    #: created, updated or unchanged (when ``ok``).
    status: Optional[str] = None
    error: Optional[UnifiedMemoryError] = None
    #: What the API found wrong with this item (422), else empty.
    problems: List[ItemProblem] = field(default_factory=lambda: _no_problems())


def _no_problems() -> List[ItemProblem]:
    return []


@dataclass
class UpsertResult:
    items: List[UpsertItemResult]
    created: int
    updated: int
    unchanged: int
    failed: int
    #: POST /items requests that got an answer (retries of one request not counted).
    requests: int



class Items:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def upsert(
        self,
        items: Sequence[Mapping[str, Any]],
        max_batch_items: int = MAX_BATCH_ITEMS,
        max_batch_bytes: int = MAX_BATCH_BYTES,
        concurrency: int = 1,
        on_batch: Optional[Callable[[List[UpsertItemResult]], None]] = None,
    ) -> UpsertResult:
        """Creates or updates items (idempotent by source and externalId), split into requests within
        the API's limits. A 413 splits a request in two; a 422 marks the items it names as failed and
        sends the rest again; 429/502/503/504 are retried (Retry-After). Other refusals fail that
        request's items. Raised: 401/403 (the token), and no answer after the retries. A retry after a 503
        or a timeout may follow an attempt the server stored anyway: its new items then count as unchanged."""
        encoded = encode_items(items)
        batches, oversized = plan_batches(encoded, max_batch_items, max_batch_bytes)
        results: List[UpsertItemResult] = [
            _failed(
                items,
                entry,
                UnifiedMemoryError(
                    "payload_too_large",
                    f"The item is {len(entry.data)} bytes as JSON; one request carries at most {max_batch_bytes}",
                    413,
                ),
            )
            for entry in oversized
        ]
        lock = threading.Lock()
        requests = 0

        def counted() -> None:
            nonlocal requests
            with lock:
                requests += 1

        def send(batch: List[EncodedItem], round: int) -> List[UpsertItemResult]:
            try:
                body: Any = self._transport.json(*route("ingestItems"), body_bytes=batch_body(batch))
                counted()
                answered: List[Dict[str, Any]] = _items_of(body)
                if len(answered) != len(batch):
                    raise UnifiedMemoryError(
                        "invalid_response", f"POST /items answered no result per item for {len(batch)} items", 200
                    )
                return [
                    UpsertItemResult(
                        index=entry.index,
                        ok=True,
                        source=one["source"],
                        external_id=one["externalId"],
                        id=one["id"],
                        status=one["status"],
                    )
                    for entry, one in zip(batch, answered)
                ]
            except UnifiedMemoryError as error:
                if error.status in (0, 401, 403):
                    raise
                counted()
                if error.status == 413 and len(batch) > 1:
                    half = (len(batch) + 1) // 2
                    return send(batch[:half], round) + send(batch[half:], round)
                problems = _problems_by_position(error.details, len(batch)) if error.status == 422 else {}
                if not problems:
                    return [_failed(items, entry, error) for entry in batch]
                refused = [_failed(items, batch[at], error, found) for at, found in sorted(problems.items())]
                rest = [entry for at, entry in enumerate(batch) if at not in problems]
                if not rest:
                    return refused
                if round + 1 >= MAX_VALIDATION_ROUNDS:
                    return refused + [_failed(items, entry, error) for entry in rest]
                return refused + send(rest, round + 1)

        def run(batch: List[EncodedItem]) -> List[UpsertItemResult]:
            done = send(batch, 0)
            if on_batch is not None:
                on_batch(done)
            return done

        if concurrency <= 1 or len(batches) <= 1:
            for batch in batches:
                results.extend(run(batch))
        else:
            with ThreadPoolExecutor(max_workers=min(concurrency, len(batches))) as pool:
                for done in pool.map(run, batches):
                    results.extend(done)

        results.sort(key=lambda r: r.index)
        return UpsertResult(
            items=results,
            created=sum(1 for r in results if r.ok and r.status == "created"),
            updated=sum(1 for r in results if r.ok and r.status == "updated"),
            unchanged=sum(1 for r in results if r.ok and r.status == "unchanged"),
            failed=sum(1 for r in results if not r.ok),
            requests=requests,
        )

    def search(
        self,
        q: Optional[str] = None,
        kind: Union[str, Sequence[str], None] = None,
        since: Optional[Instant] = None,
        until: Optional[Instant] = None,
        people: Union[str, Sequence[str], None] = None,
        limit: Optional[int] = None,
        mode: Optional[str] = None,
    ) -> Pages[SearchHit, SearchPage]:
        """Search what the caller may see, across pages: ``for hit in client.items.search(q="...")``.
        ``since`` is inclusive, ``until`` exclusive (strings, or datetimes: a naive one is UTC); ``kind``
        and ``people`` take one value or several. ``mode``: ``"hybrid"`` (words and meaning, fused; the server's
        default with an embedding model), ``"keyword"`` or ``"semantic"``."""
        query: Dict[str, Any] = {
            "q": q,
            "mode": mode,
            "kind": [kind] if isinstance(kind, str) else kind,
            "since": iso_instant(since),
            "until": iso_instant(until),
            "people": [people] if isinstance(people, str) else people,
            "limit": limit,
        }
        return Pages(
            lambda cursor: cast(SearchPage, self._transport.json(*route("searchItems"), query={**query, "cursor": cursor})),
            lambda page: (page["items"], page["nextCursor"]),
        )

    def get(self, id: str) -> Item:
        """One item with its links both ways (``not_found`` for an item the caller cannot see)."""
        return cast(Item, self._transport.json(*route("getItem", {"id": id})))

    def delete(self, id: str) -> None:
        """The owner deletes the item; a direct sharee leaves it. Memories citing it are redacted at once."""
        self._transport.send(*route("deleteItem", {"id": id}))


def _failed(
    items: Sequence[Mapping[str, Any]],
    entry: EncodedItem,
    error: UnifiedMemoryError,
    problems: Optional[List[ItemProblem]] = None,
) -> UpsertItemResult:
    item = items[entry.index]
    return UpsertItemResult(
        index=entry.index,
        ok=False,
        source=str(item.get("source", "")),
        external_id=str(item.get("externalId", "")),
        error=error,
        problems=problems or [],
    )


def _items_of(body: Any) -> List[Dict[str, Any]]:
    """``body["items"]`` when it is a list of objects, else an empty list."""
    listed: Any = cast(Dict[str, Any], body).get("items") if isinstance(body, dict) else None
    if not isinstance(listed, list):
        return []
    return [cast(Dict[str, Any], p) for p in cast(List[Any], listed) if isinstance(p, dict)]


def _problems_by_position(details: Any, size: int) -> Dict[int, List[ItemProblem]]:
    out: Dict[int, List[ItemProblem]] = {}
    for p in _items_of(details):
        index: Any = p.get("index")
        if not isinstance(index, int) or not 0 <= index < size:
            continue
        out.setdefault(index, []).append(ItemProblem(str(p.get("path", "")), str(p.get("message", ""))))
    return out
