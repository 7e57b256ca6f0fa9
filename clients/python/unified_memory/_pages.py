"""Cursor pagination as iteration: ``for run in client.memory.runs()``, or ``.pages()``."""

from __future__ import annotations

from typing import Callable, Generic, Iterator, List, Optional, Sequence, Set, Tuple, TypeVar

from .errors import UnifiedMemoryError

T = TypeVar("T")
P = TypeVar("P")


class Pages(Generic[T, P]):
    """Iterates the entries of every page; ``pages()`` gives the pages as the API answered them."""

    def __init__(
        self,
        fetch_page: Callable[[Optional[str]], P],
        entries_of: Callable[[P], Tuple[Sequence[T], Optional[str]]],
    ) -> None:
        self._fetch_page = fetch_page
        self._entries_of = entries_of

    def pages(self) -> Iterator[P]:
        seen: Set[str] = set()
        cursor: Optional[str] = None
        while True:
            page = self._fetch_page(cursor)
            yield page
            _, next_cursor = self._entries_of(page)
            if next_cursor is None:
                return
            if next_cursor in seen:
                raise UnifiedMemoryError(
                    "invalid_response",
                    "The server answered a cursor it had already given: stopping instead of looping",
                    200,
                )
            seen.add(next_cursor)
            cursor = next_cursor

    def __iter__(self) -> Iterator[T]:
        for page in self.pages():
            entries, _ = self._entries_of(page)
            yield from entries

    def to_list(self, limit: Optional[int] = None) -> List[T]:
        """Every entry, collected (the first ``limit`` when given)."""
        out: List[T] = []
        if limit is not None and limit <= 0:
            return out
        for entry in self:
            out.append(entry)
            if limit is not None and len(out) >= limit:
                break
        return out
