"""A subject's memory: the caller's own at /memory, a team's at /teams/{team}/memory (same methods)."""

from __future__ import annotations

import math
import time
from typing import Any, Dict, List, Optional, Tuple, cast

from ._operations import TEAM_OPERATIONS, route
from ._pages import Pages
from ._time import Instant, iso_instant
from ._transport import Transport
from .types import (
    Dismissal,
    Dismissed,
    MemoryResult,
    RefreshAnswer,
    Run,
    RunsPage,
    Version,
    VersionDiff,
    VersionSummary,
    VersionsPage,
)

#: The most the API holds one GET /memory (its ``wait`` parameter); longer waits are several requests.
API_MAX_WAIT_SECONDS = 30


class Memory:
    def __init__(self, transport: Transport, team: Optional[str]) -> None:
        """``team`` None: the caller's own memory."""
        self._transport = transport
        self._team = team

    def _route(self, operation_id: str, **params: str) -> Tuple[str, str]:
        if self._team is None:
            return route(operation_id, params)
        return route(TEAM_OPERATIONS[operation_id], {**params, "team": self._team})

    def get(
        self,
        wait: float = 0,
        format: Optional[str] = None,
        if_none_match: Optional[str] = None,
        as_of: Optional[Instant] = None,
    ) -> MemoryResult:
        """The memory; with ``wait`` (seconds), through its 202s until it is ready or the time is up.

        Answers a dict with ``status``: ``ready`` (with ``etag``), ``empty``, ``generating`` (with
        ``retryAfter``) or ``not_modified`` (when ``if_none_match`` is still the current version).
        ``format="json"`` gives ``statements`` instead of markdown ``memory``. ``as_of`` (ISO 8601 or a
        datetime, naive meaning UTC) answers the version current then, ``status`` ``past``, without waiting;
        ``no_memory_at`` (404) when there was none.
        """
        if as_of is not None:
            query = {"asOf": iso_instant(as_of), "format": format}
            past: Dict[str, Any] = self._transport.json(*self._route("getMemory"), query=query)
            return cast(MemoryResult, {"status": "past", **past})
        wait = max(0.0, float(wait))
        deadline = time.monotonic() + wait
        max_requests = math.ceil(wait) + 1
        headers = {} if if_none_match is None else {"If-None-Match": if_none_match}
        request = 0
        while True:
            request += 1
            hold = min(API_MAX_WAIT_SECONDS, int(max(0.0, deadline - time.monotonic())))
            response = self._transport.send(
                *self._route("getMemory"),
                query={"wait": hold if hold > 0 else None, "format": format},
                headers=headers,
            )
            if response.status == 304:
                etag = response.headers.get("etag") or if_none_match or ""
                return {"status": "not_modified", "etag": etag}
            body: Dict[str, Any] = response.json()
            if response.status == 202:
                left = deadline - time.monotonic()
                if left <= 0 or request >= max_requests:
                    return cast(MemoryResult, body)
                self._transport.sleep(min(left, max(1.0, float(body.get("retryAfter", 1)))))
                continue
            if body.get("empty"):
                return cast(MemoryResult, {"status": "empty", **body})
            etag = response.headers.get("etag") or f'"{body.get("version")}"'
            return cast(MemoryResult, {"status": "ready", "etag": etag, **body})

    def refresh(self) -> RefreshAnswer:
        """Asks for a run now. Inside the minimum interval or a backoff: UnifiedMemoryError
        ``rate_limited`` (429) with ``retry_after``."""
        return cast(RefreshAnswer, self._transport.json(*self._route("refreshMemory"), retry_rate_limited=False))

    def runs(self, limit: Optional[int] = None) -> Pages[Run, RunsPage]:
        """The runs ledger, newest first, across pages."""
        return Pages(
            lambda cursor: cast(
                RunsPage, self._transport.json(*self._route("listRuns"), query={"limit": limit, "cursor": cursor})
            ),
            lambda page: (page["runs"], page["nextCursor"]),
        )

    def versions(self, limit: Optional[int] = None) -> Pages[VersionSummary, VersionsPage]:
        """Accepted versions, newest first, across pages."""
        return Pages(
            lambda cursor: cast(
                VersionsPage,
                self._transport.json(*self._route("listVersions"), query={"limit": limit, "cursor": cursor}),
            ),
            lambda page: (page["versions"], page["nextCursor"]),
        )

    def version(self, id: str) -> Version:
        """One version with its statements, verdict and citations."""
        return cast(Version, self._transport.json(*self._route("getVersion", id=id)))

    def diff(self, id: str, against: Optional[str] = None) -> VersionDiff:
        """Statement by statement: added, kept and removed (with the reason), against ``against`` or the
        version before."""
        return cast(VersionDiff, self._transport.json(*self._route("diffVersion", id=id), query={"against": against}))

    def dismiss(self, statement_id: str, reason: Optional[str] = None) -> Dismissed:
        """Takes a statement (``statements[].id`` of format json) out of the current version at once and
        records the dismissal: later runs are told, and a restatement of it is dropped."""
        body = {} if reason is None else {"reason": reason}
        return cast(Dismissed, self._transport.json(*self._route("dismissStatement", id=statement_id), body=body))

    def dismissals(self) -> List[Dismissal]:
        """The dismissed statements, newest first."""
        page: Dict[str, Any] = self._transport.json(*self._route("listDismissals"))
        return cast(List[Dismissal], page["dismissals"])

    def withdraw_dismissal(self, id: str) -> None:
        """Withdraws a dismissal (by its id): the statement may return with the next run."""
        self._transport.send(*self._route("withdrawDismissal", id=id))

