"""The caller's people: every address and account one human uses, and the members' corrections."""

from __future__ import annotations

from typing import Optional, cast

from ._operations import route
from ._pages import Pages
from ._transport import Transport
from .types import Correction, CorrectionsList, PeoplePage, Person, PersonDetail, Suggestions


class People:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def list(self, q: Optional[str] = None, *, limit: Optional[int] = None) -> Pages[Person, PeoplePage]:
        """The caller's people, most involved first (``q`` matches names and identifiers), across pages."""
        query = {"q": q, "limit": limit}
        return Pages(
            lambda cursor: cast(PeoplePage, self._transport.json(*route("listPeople"), query={**query, "cursor": cursor})),
            lambda page: (page["people"], page["nextCursor"]),
        )

    def get(self, id: str) -> PersonDetail:
        """One person (a saved id answers the person its identifier belongs to now); ``not_found`` otherwise."""
        return cast(PersonDetail, self._transport.json(*route("getPerson", {"id": id})))

    def suggestions(self) -> Suggestions:
        """Pairs that may be one person: accept with ``merge``, reject with ``distinct``."""
        return cast(Suggestions, self._transport.json(*route("peopleSuggestions")))

    def merge(self, a: str, b: str) -> Correction:
        """Asserts that two identifiers (``email:ada@acme.com``) or person ids are one person."""
        return cast(Correction, self._transport.json(*route("mergePeople"), body={"a": a, "b": b}))

    def split(self, identifier: str) -> Correction:
        """Takes an identifier out of its person."""
        return cast(Correction, self._transport.json(*route("splitPerson"), body={"identifier": identifier}))

    def distinct(self, a: str, b: str) -> Correction:
        """Asserts that two identifiers or person ids are never one person."""
        return cast(Correction, self._transport.json(*route("distinctPeople"), body={"a": a, "b": b}))

    def corrections(self) -> CorrectionsList:
        """The workspace's corrections about identifiers the caller sees, newest first."""
        return cast(CorrectionsList, self._transport.json(*route("listPeopleCorrections")))

    def withdraw(self, correction_id: str) -> Correction:
        """Withdraws a correction: people are resolved without it from the next read on."""
        return cast(Correction, self._transport.json(*route("withdrawPeopleCorrection", {"id": correction_id})))
