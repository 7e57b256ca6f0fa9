"""Names for the API's bodies (from the generated ``_generated`` module) and the client's own results."""

from __future__ import annotations

from typing import Literal, TypedDict, Union

from ._generated import (
    GetItemResponse,
    GetMemoryResponse202,
    GetMemoryResponseVariant1,
    GetMemoryResponseVariant1StatementCitation,
    GetMemoryResponseVariant1Statement,
    GetMemoryResponseVariant2,
    GetVersionResponse,
    IngestItemsRequestItem,
    IngestItemsResponseItem,
    IssueIngestAddressResponse,
    ListMembersResponse,
    ListMembersResponseMember,
    ListRunsResponse,
    ListRunsResponseRun,
    ListTeamsResponse,
    ListTeamsResponseTeam,
    ListVersionsResponse,
    ListVersionsResponseVersion,
    PutTeamRequest,
    RefreshMemoryResponse,
    SearchItemsResponse,
    SearchItemsResponseItem,
)

#: An item as POST /items takes it.
ItemInput = IngestItemsRequestItem
IngestedItem = IngestItemsResponseItem
SearchPage = SearchItemsResponse
SearchHit = SearchItemsResponseItem
#: GET /items/{id}: the item with its links both ways.
Item = GetItemResponse
Citation = GetMemoryResponseVariant1StatementCitation
Statement = GetMemoryResponseVariant1Statement
RefreshAnswer = RefreshMemoryResponse
RunsPage = ListRunsResponse
Run = ListRunsResponseRun
VersionsPage = ListVersionsResponse
VersionSummary = ListVersionsResponseVersion
Version = GetVersionResponse
MembersList = ListMembersResponse
Member = ListMembersResponseMember
TeamsList = ListTeamsResponse
Team = ListTeamsResponseTeam
TeamInput = PutTeamRequest
IngestAddress = IssueIngestAddressResponse


class ReadyMemory(GetMemoryResponseVariant1):
    """A memory: markdown in ``memory`` (or ``statements`` with format json); ``etag`` for ``if_none_match``."""

    status: Literal["ready"]
    etag: str


class EmptyMemory(GetMemoryResponseVariant2):
    """The subject can see no item yet: nothing to remember, no run asked for."""

    status: Literal["empty"]


#: Still being generated after the wait: ask again after ``retryAfter`` seconds.
Generating = GetMemoryResponse202


class NotModified(TypedDict):
    status: Literal["not_modified"]
    etag: str


MemoryResult = Union[ReadyMemory, EmptyMemory, Generating, NotModified]
