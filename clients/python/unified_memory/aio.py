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
from ._time import Instant
from .audit import Audit, Usage
from .client import Client
from .imports import FileInput, Imports
from .items import Items, UpsertResult
from .memory import Memory
from .people import People
from .types import (
    AuditEvent,
    AuditPage,
    Correction,
    CorrectionsList,
    Dismissal,
    Dismissed,
    Import,
    ImportsList,
    IngestAddress,
    Item,
    Member,
    MembersList,
    MemoryResult,
    PeoplePage,
    Person,
    PersonDetail,
    RefreshAnswer,
    Run,
    RunsPage,
    SearchHit,
    SearchPage,
    Suggestions,
    Team,
    TeamsList,
    Usage as MyUsage,
    Version,
    VersionDiff,
    VersionSummary,
    VersionsPage,
    Webhook,
    WebhookCreated,
    WebhookDeliveriesList,
    WebhookSecretRotated,
    WebhooksList,
    WorkspaceUsage,
)
from .webhooks import Webhooks
from .workspace import Me, Members, Teams

T = TypeVar("T")
P = TypeVar("P")
_DONE = object()


class AsyncPages(Generic[T, P]):
    """``async for entry in pages``; ``pages.pages()`` gives the pages as the API answered them."""

    def __init__(self, pages: Pages[T, P]) -> None:
        self._pages = pages

    def pages(self) -> AsyncIterator[P]:
        return _in_threads(self._pages.pages())

    def __aiter__(self) -> AsyncIterator[T]:
        return _in_threads(iter(self._pages))

    async def to_list(self, limit: Optional[int] = None) -> List[T]:
        return await asyncio.to_thread(self._pages.to_list, limit)


async def _in_threads(iterator: Iterator[T]) -> AsyncIterator[T]:
    """A blocking iterator as an asynchronous one: each step in a worker thread."""
    while True:
        entry = await asyncio.to_thread(next, iterator, _DONE)
        if entry is _DONE:
            return
        yield entry  # type: ignore[misc]


class AsyncMemory:
    def __init__(self, memory: Memory) -> None:
        self._memory = memory

    async def get(
        self,
        wait: float = 0,
        format: Optional[str] = None,
        if_none_match: Optional[str] = None,
        as_of: Optional[Instant] = None,
    ) -> MemoryResult:
        return await asyncio.to_thread(self._memory.get, wait, format, if_none_match, as_of)

    async def refresh(self) -> RefreshAnswer:
        return await asyncio.to_thread(self._memory.refresh)

    def runs(self, limit: Optional[int] = None) -> AsyncPages[Run, RunsPage]:
        return AsyncPages(self._memory.runs(limit))

    def versions(self, limit: Optional[int] = None) -> AsyncPages[VersionSummary, VersionsPage]:
        return AsyncPages(self._memory.versions(limit))

    async def version(self, id: str) -> Version:
        return await asyncio.to_thread(self._memory.version, id)

    async def diff(self, id: str, against: Optional[str] = None) -> VersionDiff:
        return await asyncio.to_thread(self._memory.diff, id, against)

    async def dismiss(self, statement_id: str, reason: Optional[str] = None) -> Dismissed:
        return await asyncio.to_thread(self._memory.dismiss, statement_id, reason)

    async def dismissals(self) -> List[Dismissal]:
        return await asyncio.to_thread(self._memory.dismissals)

    async def withdraw_dismissal(self, id: str) -> None:
        await asyncio.to_thread(self._memory.withdraw_dismissal, id)


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

    async def add(self, user: str, *, email: Optional[str] = None) -> Member:
        return await asyncio.to_thread(self._members.add, user, email=email)

    async def remove(self, user: str) -> None:
        await asyncio.to_thread(self._members.remove, user)


class AsyncPeople:
    def __init__(self, people: People) -> None:
        self._people = people

    def list(self, q: Optional[str] = None, *, limit: Optional[int] = None) -> AsyncPages[Person, PeoplePage]:
        return AsyncPages(self._people.list(q, limit=limit))

    async def get(self, id: str) -> PersonDetail:
        return await asyncio.to_thread(self._people.get, id)

    async def suggestions(self) -> Suggestions:
        return await asyncio.to_thread(self._people.suggestions)

    async def merge(self, a: str, b: str) -> Correction:
        return await asyncio.to_thread(self._people.merge, a, b)

    async def split(self, identifier: str) -> Correction:
        return await asyncio.to_thread(self._people.split, identifier)

    async def distinct(self, a: str, b: str) -> Correction:
        return await asyncio.to_thread(self._people.distinct, a, b)

    async def corrections(self) -> CorrectionsList:
        return await asyncio.to_thread(self._people.corrections)

    async def withdraw(self, correction_id: str) -> Correction:
        return await asyncio.to_thread(self._people.withdraw, correction_id)


class AsyncMe:
    def __init__(self, me: Me) -> None:
        self._me = me

    async def erase(self) -> None:
        await asyncio.to_thread(self._me.erase)

    async def ingest_address(self) -> IngestAddress:
        return await asyncio.to_thread(self._me.ingest_address)

    async def revoke_ingest_address(self) -> None:
        await asyncio.to_thread(self._me.revoke_ingest_address)

    def audit(self, **filters: Any) -> AsyncPages[AuditEvent, AuditPage]:
        """As ``Client.me.audit``: ``async for event in client.me.audit(since=...)``."""
        return AsyncPages(self._me.audit(**filters))

    async def usage(self, **days: Any) -> MyUsage:
        """As ``Client.me.usage`` (``since``, ``until``)."""
        return await asyncio.to_thread(lambda: self._me.usage(**days))


class AsyncAudit:
    def __init__(self, audit: Audit) -> None:
        self._audit = audit

    def list(self, **filters: Any) -> AsyncPages[AuditEvent, AuditPage]:
        """As ``Client.audit.list``."""
        return AsyncPages(self._audit.list(**filters))

    def export(self, **filters: Any) -> AsyncIterator[AuditEvent]:
        """As ``Client.audit.export``: ``async for event in client.audit.export(subject="ada")``."""
        return _in_threads(self._audit.export(**filters))


class AsyncUsage:
    def __init__(self, usage: Usage) -> None:
        self._usage = usage

    async def list(self, **options: Any) -> WorkspaceUsage:
        """As ``Client.usage.list`` (``since``, ``until``, ``sort``)."""
        return await asyncio.to_thread(lambda: self._usage.list(**options))


class AsyncWebhooks:
    def __init__(self, webhooks: Webhooks) -> None:
        self._webhooks = webhooks

    async def create(self, url: str, events: List[str], **options: Any) -> WebhookCreated:
        """As ``Client.webhooks.create`` (``description``)."""
        return await asyncio.to_thread(lambda: self._webhooks.create(url, events, **options))

    async def list(self) -> WebhooksList:
        return await asyncio.to_thread(self._webhooks.list)

    async def get(self, id: str) -> Webhook:
        return await asyncio.to_thread(self._webhooks.get, id)

    async def update(self, id: str, **changes: Any) -> Webhook:
        """As ``Client.webhooks.update`` (``url``, ``events``, ``description``, ``enabled``)."""
        return await asyncio.to_thread(lambda: self._webhooks.update(id, **changes))

    async def delete(self, id: str) -> None:
        await asyncio.to_thread(self._webhooks.delete, id)

    async def rotate_secret(self, id: str) -> WebhookSecretRotated:
        return await asyncio.to_thread(self._webhooks.rotate_secret, id)

    async def test(self, id: str) -> None:
        await asyncio.to_thread(self._webhooks.test, id)

    async def deliveries(self, id: str) -> WebhookDeliveriesList:
        return await asyncio.to_thread(self._webhooks.deliveries, id)
class AsyncImports:
    def __init__(self, imports: Imports) -> None:
        self._imports = imports

    async def upload(self, file: FileInput, name: Optional[str] = None, **options: Any) -> Import:
        return await asyncio.to_thread(self._imports.upload, file, name, **options)

    async def get(self, id: str) -> Import:
        return await asyncio.to_thread(self._imports.get, id)

    async def list(self) -> ImportsList:
        return await asyncio.to_thread(self._imports.list)

    async def wait(self, id: str, **options: Any) -> Import:
        return await asyncio.to_thread(self._imports.wait, id, **options)


class AsyncClient:
    """``AsyncClient(base_url, token, ...)``: the options of ``Client``."""

    def __init__(self, base_url: str, token: Optional[str] = None, **options: Any) -> None:
        self._client = Client(base_url, token, **options)
        self.memory = AsyncMemory(self._client.memory)
        self.items = AsyncItems(self._client.items)
        self.imports = AsyncImports(self._client.imports)
        self.teams = AsyncTeams(self._client.teams)
        self.members = AsyncMembers(self._client.members)
        self.people = AsyncPeople(self._client.people)
        self.me = AsyncMe(self._client.me)
        self.audit = AsyncAudit(self._client.audit)
        self.usage = AsyncUsage(self._client.usage)
        self.webhooks = AsyncWebhooks(self._client.webhooks)


__all__ = ["AsyncClient", "AsyncPages"]
