"""The caller's workspace: members and teams (changes need the admin scope), a team's memory, the caller."""

from __future__ import annotations

from typing import Optional, Sequence, cast
from ._operations import route
from ._pages import Pages
from ._transport import Transport
from ._time import Day, Instant
from .audit import audit_pages, usage_query
from .memory import Memory
from .types import AuditEvent, AuditPage, IngestAddress, Member, MembersList, Team, TeamsList, Usage


class Members:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def list(self) -> MembersList:
        return cast(MembersList, self._transport.json(*route("listMembers")))

    def add(self, user: str, *, email: Optional[str] = None) -> Member:
        """Adds a user to the workspace, or adds a removed one back; ``email`` ties them to that address."""
        body = None if email is None else {"email": email}
        return cast(Member, self._transport.json(*route("addMember", {"user": user}), body=body))

    def remove(self, user: str) -> None:
        """Ends the member's access at once (erases nothing of theirs)."""
        self._transport.send(*route("removeMember", {"user": user}))


class Teams:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def list(self) -> TeamsList:
        return cast(TeamsList, self._transport.json(*route("listTeams")))

    def get(self, team: str) -> Team:
        return cast(Team, self._transport.json(*route("getTeam", {"team": team})))

    def put(self, team: str, name: str, members: Sequence[str]) -> Team:
        """Creates the team or replaces its name and members."""
        body = {"name": name, "members": list(members)}
        return cast(Team, self._transport.json(*route("putTeam", {"team": team}), body=body))

    def delete(self, team: str) -> None:
        self._transport.send(*route("deleteTeam", {"team": team}))

    def memory(self, team: str) -> Memory:
        """The team's memory: the same methods as ``client.memory`` (members only; others get not_found)."""
        return Memory(self._transport, team)


class Me:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def erase(self) -> None:
        """Erases everything of the caller: items, memory, versions, runs."""
        self._transport.send(*route("eraseMe"))

    def ingest_address(self) -> IngestAddress:
        """The caller's private inbound-email address (the same one until revoked)."""
        return cast(IngestAddress, self._transport.json(*route("issueIngestAddress")))

    def revoke_ingest_address(self) -> None:
        self._transport.send(*route("revokeIngestAddress"))

    def audit(
        self,
        *,
        actor: Optional[str] = None,
        action: Optional[str] = None,
        since: Optional[Instant] = None,
        until: Optional[Instant] = None,
        limit: Optional[int] = None,
    ) -> Pages[AuditEvent, AuditPage]:
        """Who read the caller's memory and items, and when: events newest first, across pages."""
        return audit_pages(
            self._transport, "myAudit", actor=actor, action=action, since=since, until=until, limit=limit
        )

    def usage(self, *, since: Optional[Day] = None, until: Optional[Day] = None) -> Usage:
        """What the caller's memory cost per day (runs, LLM calls, tokens per model, reads, estimated USD)."""
        return cast(Usage, self._transport.json(*route("myUsage"), query=usage_query(since, until)))
