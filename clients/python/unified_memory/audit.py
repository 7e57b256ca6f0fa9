"""The audit trail and the usage ledger: the caller's own (``client.me.audit()``, ``client.me.usage()``)
and, with the admin scope, the workspace's (``client.audit``, ``client.usage``)."""

from __future__ import annotations

import json
from typing import Any, Dict, Iterator, Optional, cast

from ._operations import route
from ._pages import Pages
from ._time import Day, Instant, iso_day, iso_instant
from ._transport import QueryValue, Transport
from .errors import UnifiedMemoryError
from .types import AuditEvent, AuditPage, WorkspaceUsage


def audit_pages(
    transport: Transport,
    operation_id: str,
    *,
    actor: Optional[str] = None,
    subject: Optional[str] = None,
    action: Optional[str] = None,
    since: Optional[Instant] = None,
    until: Optional[Instant] = None,
    limit: Optional[int] = None,
) -> Pages[AuditEvent, AuditPage]:
    """Audit events newest first, across pages, from ``myAudit`` (GET /me/audit) or ``workspaceAudit`` (GET /audit)."""
    query = {
        "actor": actor,
        "subject": subject,
        "action": action,
        "since": iso_instant(since),
        "until": iso_instant(until),
        "limit": limit,
    }
    return Pages(
        lambda cursor: cast(AuditPage, transport.json(*route(operation_id), query={**query, "cursor": cursor})),
        lambda page: (page["events"], page["nextCursor"]),
    )


def usage_query(since: Optional[Day], until: Optional[Day]) -> Dict[str, QueryValue]:
    return {"since": iso_day(since), "until": iso_day(until)}


class Audit:
    """The workspace's audit trail (admin scope); the caller's own is ``client.me.audit()``."""

    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def list(
        self,
        *,
        actor: Optional[str] = None,
        subject: Optional[str] = None,
        action: Optional[str] = None,
        since: Optional[Instant] = None,
        until: Optional[Instant] = None,
        limit: Optional[int] = None,
    ) -> Pages[AuditEvent, AuditPage]:
        """Events newest first, across pages: ``for event in client.audit.list(subject="ada")``."""
        return audit_pages(
            self._transport,
            "workspaceAudit",
            actor=actor,
            subject=subject,
            action=action,
            since=since,
            until=until,
            limit=limit,
        )

    def export(
        self,
        *,
        actor: Optional[str] = None,
        subject: Optional[str] = None,
        action: Optional[str] = None,
        since: Optional[Instant] = None,
        until: Optional[Instant] = None,
    ) -> Iterator[AuditEvent]:
        """Every matching event in one answer (``?format=ndjson``), newest first, parsed line by line.

        The request is sent when iteration starts; the answer is read whole first (the standard library's
        client has no streaming body here), then parsed one line at a time.
        """
        query = {
            "actor": actor,
            "subject": subject,
            "action": action,
            "since": iso_instant(since),
            "until": iso_instant(until),
            "format": "ndjson",
        }
        response = self._transport.send(
            *route("workspaceAudit"), query=query, headers={"Accept": "application/x-ndjson"}
        )
        for number, line in enumerate(response.body.decode("utf-8").split("\n"), start=1):
            if not line.strip():
                continue
            try:
                event: Any = json.loads(line)
            except ValueError as cause:
                raise UnifiedMemoryError(
                    "invalid_response",
                    f"Expected one JSON event on line {number} of the export, got {line[:100]!r}",
                    response.status,
                    request_id=response.headers.get("x-request-id"),
                ) from cause
            yield cast(AuditEvent, event)


class Usage:
    """The workspace's usage ledger (admin scope); the caller's own is ``client.me.usage()``."""

    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def list(
        self, *, since: Optional[Day] = None, until: Optional[Day] = None, sort: Optional[str] = None
    ) -> WorkspaceUsage:
        """Each subject with its totals and days, by estimated cost unless ``sort`` (``"tokens"``,
        ``"subject"``) says otherwise. Days are UTC and inclusive; at most 366 in all."""
        query = {**usage_query(since, until), "sort": sort}
        return cast(WorkspaceUsage, self._transport.json(*route("workspaceUsage"), query=query))
