"""A subject's memory: the caller's own at /memory, a team's at /teams/{team}/memory (same methods)."""

from __future__ import annotations

import math
import time
from typing import Any, Dict, Optional, cast

from ._pages import Pages
from ._transport import Transport
from .types import MemoryResult, RefreshAnswer, Run, RunsPage, Version, VersionSummary, VersionsPage

#: The most the API holds one GET /memory (its ``wait`` parameter); longer waits are several requests.
API_MAX_WAIT_SECONDS = 30


class Memory:
    def __init__(self, transport: Transport, base: str) -> None:
        self._transport = transport
        self._base = base

    def get(
        self, wait: float = 0, format: Optional[str] = None, if_none_match: Optional[str] = None
    ) -> MemoryResult:
        """The memory; with ``wait`` (seconds), through its 202s until it is ready or the time is up.

        Answers a dict with ``status``: ``ready`` (with ``etag``), ``empty``, ``generating`` (with
        ``retryAfter``) or ``not_modified`` (when ``if_none_match`` is still the current version).
        ``format="json"`` gives ``statements`` instead of markdown ``memory``.
        """
        wait = max(0.0, float(wait))
        deadline = time.monotonic() + wait
        max_requests = math.ceil(wait) + 1
        headers = {} if if_none_match is None else {"If-None-Match": if_none_match}
        request = 0
        while True:
            request += 1
            hold = min(API_MAX_WAIT_SECONDS, int(max(0.0, deadline - time.monotonic())))
            response = self._transport.send(
                "GET",
                self._base,
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
        return cast(RefreshAnswer, self._transport.json("POST", f"{self._base}/refresh", retry_rate_limited=False))

    def runs(self, limit: Optional[int] = None) -> Pages[Run, RunsPage]:
        """The runs ledger, newest first, across pages."""
        return Pages(
            lambda cursor: cast(
                RunsPage, self._transport.json("GET", f"{self._base}/runs", query={"limit": limit, "cursor": cursor})
            ),
            lambda page: (page["runs"], page["nextCursor"]),
        )

    def versions(self, limit: Optional[int] = None) -> Pages[VersionSummary, VersionsPage]:
        """Accepted versions, newest first, across pages."""
        return Pages(
            lambda cursor: cast(
                VersionsPage,
                self._transport.json("GET", f"{self._base}/versions", query={"limit": limit, "cursor": cursor}),
            ),
            lambda page: (page["versions"], page["nextCursor"]),
        )

    def version(self, id: str) -> Version:
        """One version with its statements, verdict and citations."""
        return cast(Version, self._transport.json("GET", f"{self._base}/versions/{_segment(id)}"))


def _segment(value: str) -> str:
    from urllib.parse import quote

    return quote(value, safe="")
