"""The caller's workspace: members and teams (changes need the admin scope), a team's memory, the caller."""

from __future__ import annotations

from typing import Sequence, cast
from urllib.parse import quote

from ._transport import Transport
from .memory import Memory
from .types import IngestAddress, Member, MembersList, Team, TeamsList


def _segment(value: str) -> str:
    return quote(value, safe="")


class Members:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def list(self) -> MembersList:
        return cast(MembersList, self._transport.json("GET", "/members"))

    def add(self, user: str) -> Member:
        """Adds a user to the workspace, or adds a removed one back."""
        return cast(Member, self._transport.json("PUT", f"/members/{_segment(user)}"))

    def remove(self, user: str) -> None:
        """Ends the member's access at once (erases nothing of theirs)."""
        self._transport.send("DELETE", f"/members/{_segment(user)}")


class Teams:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def list(self) -> TeamsList:
        return cast(TeamsList, self._transport.json("GET", "/teams"))

    def get(self, team: str) -> Team:
        return cast(Team, self._transport.json("GET", f"/teams/{_segment(team)}"))

    def put(self, team: str, name: str, members: Sequence[str]) -> Team:
        """Creates the team or replaces its name and members."""
        body = {"name": name, "members": list(members)}
        return cast(Team, self._transport.json("PUT", f"/teams/{_segment(team)}", body=body))

    def delete(self, team: str) -> None:
        self._transport.send("DELETE", f"/teams/{_segment(team)}")

    def memory(self, team: str) -> Memory:
        """The team's memory: the same methods as ``client.memory`` (members only; others get not_found)."""
        return Memory(self._transport, f"/teams/{_segment(team)}/memory")


class Me:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def erase(self) -> None:
        """Erases everything of the caller: items, memory, versions, runs."""
        self._transport.send("DELETE", "/me")

    def ingest_address(self) -> IngestAddress:
        """The caller's private inbound-email address (the same one until revoked)."""
        return cast(IngestAddress, self._transport.json("POST", "/me/ingest-address"))

    def revoke_ingest_address(self) -> None:
        self._transport.send("DELETE", "/me/ingest-address")
