"""The client: ``Client(base_url, token)``, one attribute per part of the API."""

from __future__ import annotations

import time
from typing import Callable, Optional

from ._transport import Transport
from .audit import Audit, Usage
from .imports import Imports
from .items import Items
from .memory import Memory
from .webhooks import Webhooks
from .people import People
from .workspace import Me, Members, Teams


class Client:
    """``Client("https://memory.example.com", token)``.

    ``get_token`` instead of ``token`` is asked before every attempt (short-lived tokens). ``retries``
    (default 4) bounds how often a 429/502/503/504, a refused connection or a timeout is tried again;
    a Retry-After longer than ``max_retry_after`` seconds (default 60) is raised at once; ``timeout`` is
    per attempt in seconds (default 60); ``sleep`` replaces the waits between retries and 202 polls.
    """

    def __init__(
        self,
        base_url: str,
        token: Optional[str] = None,
        *,
        get_token: Optional[Callable[[], str]] = None,
        retries: int = 4,
        max_retry_after: float = 60.0,
        timeout: float = 60.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        transport = Transport(
            base_url,
            token=token,
            get_token=get_token,
            retries=retries,
            max_retry_after=max_retry_after,
            timeout=timeout,
            sleep=sleep,
        )
        #: The caller's own memory.
        self.memory = Memory(transport, None)
        self.items = Items(transport)
        #: Imports through the service: upload an export file, then follow its import.
        self.imports = Imports(transport)
        #: Teams, and a team's memory: ``client.teams.memory("payments").get()``.
        self.teams = Teams(transport)
        self.members = Members(transport)
        #: The caller's people and the workspace's people corrections.
        self.people = People(transport)
        self.me = Me(transport)
        #: The workspace's audit trail (admin scope); the caller's own is ``client.me.audit()``.
        self.audit = Audit(transport)
        #: The workspace's usage ledger (admin scope); the caller's own is ``client.me.usage()``.
        self.usage = Usage(transport)
        #: The workspace's webhook endpoints and their deliveries (admin scope).
        self.webhooks = Webhooks(transport)
