"""The one error type of the client: an API error body, a refused request, or no answer at all."""

from __future__ import annotations

import email.utils
import json
import time
from typing import Any, Dict, Mapping, Optional, cast


class UnifiedMemoryError(Exception):
    """An API error (``code`` from its body), or ``network_error`` / ``timeout`` (status 0), or
    ``invalid_response``.

    Attributes: ``code``, ``message``, ``status`` (HTTP status, 0 without an answer), ``request_id``,
    ``retry_after`` (seconds the server asked to wait, or None) and ``details`` (e.g.
    ``{"items": [{"index", "path", "message"}]}`` for ``validation_failed``).
    """

    def __init__(
        self,
        code: str,
        message: str,
        status: int,
        request_id: Optional[str] = None,
        retry_after: Optional[float] = None,
        details: Any = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.request_id = request_id
        self.retry_after = retry_after
        self.details = details

    def __str__(self) -> str:
        return f"{self.code} ({self.status}): {self.message}"

    def __repr__(self) -> str:
        return (
            f"UnifiedMemoryError(code={self.code!r}, status={self.status}, "
            f"request_id={self.request_id!r}, retry_after={self.retry_after!r})"
        )


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[float]:
    """Retry-After in seconds (a number of seconds or an HTTP date), or None."""
    if value is None or value.strip() == "":
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        at = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0.0, float(int(at - (time.time() if now is None else now) + 0.999)))


def error_from_response(status: int, headers: Mapping[str, str], body: bytes) -> UnifiedMemoryError:
    """The error a non-2xx answer stands for, read from its ``{"error": {code, message, requestId, details}}``."""
    text = body.decode("utf-8", errors="replace")
    error: Dict[str, Any] = {}
    try:
        parsed: Any = json.loads(text)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        candidate: Any = cast(Dict[str, Any], parsed).get("error")
        if isinstance(candidate, dict):
            error = cast(Dict[str, Any], candidate)
    code = error.get("code")
    message = error.get("message")
    request_id = error.get("requestId")
    return UnifiedMemoryError(
        code=code if isinstance(code, str) else f"http_{status}",
        message=message if isinstance(message, str) else f"HTTP {status}: {text[:200]}".rstrip(": "),
        status=status,
        request_id=request_id if isinstance(request_id, str) else headers.get("x-request-id"),
        retry_after=parse_retry_after(headers.get("retry-after")),
        details=error.get("details"),
    )
