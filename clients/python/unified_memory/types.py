"""Names for the API's bodies (from the generated ``_generated`` module) and the client's own results."""

from __future__ import annotations

from typing import Literal, TypedDict, Union

from ._generated import (
    GetPersonResponse,
    ListPeopleCorrectionsResponse,
    ListPeopleCorrectionsResponseCorrection,
    ListPeopleResponse,
    ListPeopleResponsePeople,
    PeopleSuggestionsResponse,
    GetImportResponse,
    ListImportsResponse,
    DiffVersionResponse,
    DismissStatementResponse,
    DismissStatementResponseDismissal,
    GetItemResponse,
    GetMemoryResponse202,
    GetMemoryResponseVariant1,
    GetMemoryResponseVariant1StatementCitation,
    GetMemoryResponseVariant1Statement,
    GetMemoryResponseVariant2,
    GetMemoryResponseVariant3,
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
    MyAuditResponse,
    MyAuditResponseEvent,
    MyUsageResponse,
    MyUsageResponseDay,
    PutTeamRequest,
    RefreshMemoryResponse,
    SearchItemsResponse,
    SearchItemsResponseItem,
    WorkspaceUsageResponse,
    WorkspaceUsageResponseSubject,
    CreateWebhookResponse,
    GetWebhookResponse,
    ListWebhookDeliveriesResponse,
    ListWebhookDeliveriesResponseDeliverie,
    ListWebhooksResponse,
    RotateWebhookSecretResponse,
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
#: GET /people: one page of the caller's people.
PeoplePage = ListPeopleResponse
Person = ListPeopleResponsePeople
#: GET /people/{id}: every identifier with its names, link and evidence.
PersonDetail = GetPersonResponse
Suggestions = PeopleSuggestionsResponse
CorrectionsList = ListPeopleCorrectionsResponse
#: A member's people correction (merge, split or distinct).
Correction = ListPeopleCorrectionsResponseCorrection
MembersList = ListMembersResponse
Member = ListMembersResponseMember
TeamsList = ListTeamsResponse
Team = ListTeamsResponseTeam
TeamInput = PutTeamRequest
IngestAddress = IssueIngestAddressResponse
VersionDiff = DiffVersionResponse
Dismissed = DismissStatementResponse
#: A statement the subject dismissed: later runs are told, and a restatement of it is dropped.
Dismissal = DismissStatementResponseDismissal
AuditPage = MyAuditResponse
#: One audit event: who did what to whose memory or items, when, on which channel.
AuditEvent = MyAuditResponseEvent
#: GET /me/usage: the caller's days with anything on them, oldest first.
Usage = MyUsageResponse
UsageDay = MyUsageResponseDay
#: GET /usage: each subject of the workspace with its totals and days.
WorkspaceUsage = WorkspaceUsageResponse
SubjectUsage = WorkspaceUsageResponseSubject
#: A webhook endpoint (never its secret): whether it is enabled, and why the service disabled it.
Webhook = GetWebhookResponse
#: The registered endpoint with its signing secret, answered this once.
WebhookCreated = CreateWebhookResponse
WebhooksList = ListWebhooksResponse
WebhookSecretRotated = RotateWebhookSecretResponse
WebhookDeliveriesList = ListWebhookDeliveriesResponse
#: One delivery of an event to the endpoint: status, attempts, the receiver's last answer or the error.
WebhookDelivery = ListWebhookDeliveriesResponseDeliverie


class ReadyMemory(GetMemoryResponseVariant1):
    """A memory: markdown in ``memory`` (or ``statements`` with format json); ``etag`` for ``if_none_match``."""

    status: Literal["ready"]
    etag: str


class EmptyMemory(GetMemoryResponseVariant2):
    """The subject can see no item yet: nothing to remember, no run asked for."""

    status: Literal["empty"]


class PastMemory(GetMemoryResponseVariant3):
    """The version that was current at ``as_of`` (``current`` says whether it still is)."""

    status: Literal["past"]


#: Still being generated after the wait: ask again after ``retryAfter`` seconds.
Generating = GetMemoryResponse202


class NotModified(TypedDict):
    status: Literal["not_modified"]
    etag: str


MemoryResult = Union[ReadyMemory, EmptyMemory, PastMemory, Generating, NotModified]


#: An import through the service (POST /imports): its status, how far it got, and its summary.
Import = GetImportResponse
ImportsList = ListImportsResponse
