"""The workspace's webhook endpoints (admin scope): register, list, change, remove, rotate, test, deliveries."""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, cast

from ._operations import route
from ._transport import Transport
from .types import (
    Webhook,
    WebhookCreated,
    WebhookDeliveriesList,
    WebhookSecretRotated,
    WebhooksList,
)


class Webhooks:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def create(self, url: str, events: Sequence[str], *, description: Optional[str] = None) -> WebhookCreated:
        """Registers an endpoint; keep the answer's ``secret`` (``whsec_…``): it is not shown again."""
        body: Dict[str, Any] = {"url": url, "events": list(events)}
        if description is not None:
            body["description"] = description
        return cast(WebhookCreated, self._transport.json(*route("createWebhook"), body=body))

    def list(self) -> WebhooksList:
        """The workspace's endpoints, never their secrets; ``disabledReason`` says why the service disabled one."""
        return cast(WebhooksList, self._transport.json(*route("listWebhooks")))

    def get(self, id: str) -> Webhook:
        return cast(Webhook, self._transport.json(*route("getWebhook", {"id": id})))

    def update(
        self,
        id: str,
        *,
        url: Optional[str] = None,
        events: Optional[Sequence[str]] = None,
        description: Optional[str] = None,
        enabled: Optional[bool] = None,
    ) -> Webhook:
        """Changes what is given; ``enabled=True`` re-enables an endpoint the service disabled."""
        body: Dict[str, Any] = {}
        if url is not None:
            body["url"] = url
        if events is not None:
            body["events"] = list(events)
        if description is not None:
            body["description"] = description
        if enabled is not None:
            body["enabled"] = enabled
        return cast(Webhook, self._transport.json(*route("updateWebhook", {"id": id}), body=body))

    def delete(self, id: str) -> None:
        """Removes the endpoint and its deliveries log."""
        self._transport.send(*route("deleteWebhook", {"id": id}))

    def rotate_secret(self, id: str) -> WebhookSecretRotated:
        """A new secret, shown once; the previous one keeps signing until ``previousSecretValidUntil``."""
        return cast(WebhookSecretRotated, self._transport.json(*route("rotateWebhookSecret", {"id": id})))

    def test(self, id: str) -> None:
        """Queues a ``webhook.test`` event for this endpoint only; its delivery shows in ``deliveries(id)``."""
        self._transport.send(*route("testWebhook", {"id": id}))

    def deliveries(self, id: str) -> WebhookDeliveriesList:
        """The endpoint's newest deliveries: status, attempts, the receiver's last answer or error, duration."""
        return cast(WebhookDeliveriesList, self._transport.json(*route("listWebhookDeliveries", {"id": id})))
