"""The same client for asyncio: ``AsyncClient(base_url, token)``, every method awaitable, cursors as
``async for``.

The standard library has no asynchronous HTTP client, so each request runs the blocking client in a
worker thread (``asyncio.to_thread``): the event loop never blocks, and there is no dependency, but every
request in flight holds a thread of the default executor.
"""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator, Generic, Iterator, List, Optional, TypeVar

from ._pages import Pages
from .client import Client
from .items import Items, UpsertResult
from .memory import Memory
from .types import (
    IngestAddress,
    Item,
    Member,
    MembersList,
    MemoryResult,
    RefreshAnswer,
    Run,
    RunsPage,
    SearchHit,
    SearchPage,
    Team,
    TeamsList,
    Version,
    VersionSummary,
    VersionsPage,
)
from .workspace import Me, Members, Teams

T = TypeVar("T")
P = TypeVar("P")
_DONE = object()


class AsyncPages(Generic[T, P]):
    """``async for entry in pages``; ``pages.pages()`` gives the pages as the API answered them."""

    def __init__(self, pages: Pages[T, P]) -> None:
        self._pages = pages

    async def pages(self) -> AsyncIterator[P]:
        iterator = self._pages.pages()
        while True:
            page = await asyncio.to_thread(next, iterator, _DONE)
            if page is _DONE:
                return
            yield page  # type: ignore[misc]

    def __aiter__(self) -> AsyncIterator[T]:
        return self._entries()

    async def _entries(self) -> AsyncIterator[T]:
        iterator: Iterator[T] = iter(self._pages)
        while True:
            entry = await asyncio.to_thread(next, iterator, _DONE)
            if entry is _DONE:
                return
            yield entry  # type: ignore[misc]

    async def to_list(self, limit: Optional[int] = None) -> List[T]:
        return await asyncio.to_thread(self._pages.to_list, limit)


class AsyncMemory:
    def __init__(self, memory: Memory) -> None:
        self._memory = memory

    async def get(
        self, wait: float = 0, format: Optional[str] = None, if_none_match: Optional[str] = None
    ) -> MemoryResult:
        return await asyncio.to_thread(self._memory.get, wait, format, if_none_match)

    async def refresh(self) -> RefreshAnswer:
        return await asyncio.to_thread(self._memory.refresh)

    def runs(self, limit: Optional[int] = None) -> AsyncPages[Run, RunsPage]:
        return AsyncPages(self._memory.runs(limit))

    def versions(self, limit: Optional[int] = None) -> AsyncPages[VersionSummary, VersionsPage]:
        return AsyncPages(self._memory.versions(limit))

    async def version(self, id: str) -> Version:
        return await asyncio.to_thread(self._memory.version, id)


class AsyncItems:
    def __init__(self, items: Items) -> None:
        self._items = items

    async def upsert(self, items: Any, **options: Any) -> UpsertResult:
        """As ``Client.items.upsert``; ``on_batch`` is called from the worker thread."""
        return await asyncio.to_thread(self._items.upsert, items, **options)

    def search(self, **options: Any) -> AsyncPages[SearchHit, SearchPage]:
        return AsyncPages(self._items.search(**options))

    async def get(self, id: str) -> Item:
        return await asyncio.to_thread(self._items.get, id)

    async def delete(self, id: str) -> None:
        await asyncio.to_thread(self._items.delete, id)


class AsyncTeams:
    def __init__(self, teams: Teams) -> None:
        self._teams = teams

    async def list(self) -> TeamsList:
        return await asyncio.to_thread(self._teams.list)

    async def get(self, team: str) -> Team:
        return await asyncio.to_thread(self._teams.get, team)

    async def put(self, team: str, name: str, members: List[str]) -> Team:
        return await asyncio.to_thread(self._teams.put, team, name, members)

    async def delete(self, team: str) -> None:
        await asyncio.to_thread(self._teams.delete, team)

    def memory(self, team: str) -> AsyncMemory:
        return AsyncMemory(self._teams.memory(team))


class AsyncMembers:
    def __init__(self, members: Members) -> None:
        self._members = members

    async def list(self) -> MembersList:
        return await asyncio.to_thread(self._members.list)

    async def add(self, user: str) -> Member:
        return await asyncio.to_thread(self._members.add, user)

    async def remove(self, user: str) -> None:
        await asyncio.to_thread(self._members.remove, user)


class AsyncMe:
    def __init__(self, me: Me) -> None:
        self._me = me

    async def erase(self) -> None:
        await asyncio.to_thread(self._me.erase)

    async def ingest_address(self) -> IngestAddress:
        return await asyncio.to_thread(self._me.ingest_address)

    async def revoke_ingest_address(self) -> None:
        await asyncio.to_thread(self._me.revoke_ingest_address)


class AsyncClient:
    """``AsyncClient(base_url, token, ...)``: the options of ``Client``."""

    def __init__(self, base_url: str, token: Optional[str] = None, **options: Any) -> None:
        self._client = Client(base_url, token, **options)
        self.memory = AsyncMemory(self._client.memory)
        self.items = AsyncItems(self._client.items)
        self.teams = AsyncTeams(self._client.teams)
        self.members = AsyncMembers(self._client.members)
        self.me = AsyncMe(self._client.me)


__all__ = ["AsyncClient", "AsyncPages"]
