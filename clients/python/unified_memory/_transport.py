"""Every request of the client: the bearer token, JSON in and out, and bounded retries.

429, 502, 503 and 504 answers, refused connections and timeouts are tried again after Retry-After (or an
exponential backoff with jitter), at most ``retries`` times; a Retry-After longer than ``max_retry_after``
is not waited for but raised at once. Any other answer outside 2xx/304 is raised as UnifiedMemoryError.

A write that is not idempotent (a dismissal, a delete) is tried again only after a 429, which the service
answers before doing anything: after a timeout, a lost connection or a 5xx it may have committed, and a
second attempt would report a dismissal that happened as not_found.

The token is checked once (a ``get_token``'s each time it is asked): surrounding whitespace is trimmed, and
one holding CR, LF or NUL is a ValueError that never quotes it. No message or traceback holds a token.
"""

from __future__ import annotations

import json
import random
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union, cast

from .errors import UnifiedMemoryError, error_from_response

QueryValue = Union[str, int, float, bool, Sequence[str], None]

RETRYABLE_STATUS = frozenset({429, 502, 503, 504})
#: 503s that say something lasting about the subject, not about load: retrying changes nothing.
FINAL_CODES = frozenset({"llm_not_configured", "generation_failing"})


@dataclass
class Response:
    status: int
    headers: Mapping[str, str]
    body: bytes
    url: str

    def json(self) -> Any:
        try:
            return json.loads(self.body.decode("utf-8"))
        except ValueError as cause:
            raise UnifiedMemoryError(
                "invalid_response",
                f"Expected JSON from {self.url}, got {self.body[:100]!r}",
                self.status,
                request_id=self.headers.get("x-request-id"),
            ) from cause


class _Headers(Dict[str, str]):
    """Response headers, looked up without regard to case."""

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        return super().get(key.lower(), default)


class Transport:
    def __init__(
        self,
        base_url: str,
        token: Optional[str] = None,
        get_token: Optional[Callable[[], str]] = None,
        retries: int = 4,
        max_retry_after: float = 60.0,
        timeout: float = 60.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if not base_url:
            raise ValueError("base_url is required")
        if token is None and get_token is None:
            raise ValueError("token or get_token is required")
        self.base = base_url.rstrip("/")
        self.retries = max(0, int(retries))
        self.max_retry_after = max_retry_after
        self.timeout = timeout
        self.sleep = sleep
        if get_token is not None:
            self._token: Callable[[], str] = lambda: checked_token(get_token())
        else:
            checked = checked_token(token or "")
            self._token = lambda: checked
        # Redirects are answers, not followed: the token is never sent on to another address.
        self._opener = urllib.request.build_opener(_NoRedirect())

    def url(self, path: str, query: Optional[Mapping[str, QueryValue]] = None) -> str:
        pairs: List[Tuple[str, str]] = []
        for name, value in (query or {}).items():
            if value is None:
                continue
            if isinstance(value, (list, tuple)):
                pairs.extend((name, str(v)) for v in cast(Sequence[Any], value))
            elif isinstance(value, bool):
                pairs.append((name, "true" if value else "false"))
            else:
                pairs.append((name, str(value)))
        search = urllib.parse.urlencode(pairs)
        return f"{self.base}{path}{'?' + search if search else ''}"

    def send(
        self,
        method: str,
        path: str,
        query: Optional[Mapping[str, QueryValue]] = None,
        body: Any = None,
        body_bytes: Optional[bytes] = None,
        headers: Optional[Mapping[str, str]] = None,
        retry_rate_limited: bool = True,
    ) -> Response:
        """The answer (2xx or 304), after at most ``retries`` retries; anything else is raised."""
        url = self.url(path, query)
        data = body_bytes
        if data is None and body is not None:
            data = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        once = not _idempotent(method, path)
        attempt = 0
        while True:
            last = attempt >= self.retries
            try:
                response = self._attempt(method, url, data, headers)
            except UnifiedMemoryError:
                if last or once:
                    raise
                self.sleep(self._backoff(attempt))
                attempt += 1
                continue
            if 200 <= response.status < 300 or response.status == 304:
                return response
            error = error_from_response(response.status, response.headers, response.body)
            retryable = (
                response.status in RETRYABLE_STATUS
                and error.code not in FINAL_CODES
                and (response.status != 429 or retry_rate_limited)
                and (response.status == 429 or not once)
            )
            if not retryable or last:
                raise error
            delay = self._backoff(attempt) if error.retry_after is None else error.retry_after
            if delay > self.max_retry_after:
                raise error
            self.sleep(delay)
            attempt += 1

    def json(self, method: str, path: str, **options: Any) -> Any:
        return self.send(method, path, **options).json()

    def _attempt(
        self, method: str, url: str, data: Optional[bytes], extra: Optional[Mapping[str, str]]
    ) -> Response:
        token = self._token()
        headers: Dict[str, str] = {"Accept": "application/json", "Authorization": f"Bearer {token}"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        headers.update(extra or {})
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with self._opener.open(request, timeout=self.timeout) as answer:
                return Response(answer.status, _headers(answer.headers), answer.read(), url)
        except urllib.error.HTTPError as answer:
            with answer:
                return Response(answer.code, _headers(answer.headers), answer.read(), url)
        except (socket.timeout, TimeoutError) as cause:
            raise UnifiedMemoryError("timeout", f"No answer from {url} within {self.timeout} s", 0) from cause
        except (urllib.error.URLError, ConnectionError, OSError) as cause:
            reason = getattr(cause, "reason", cause)
            if isinstance(reason, (socket.timeout, TimeoutError)):
                raise UnifiedMemoryError("timeout", f"No answer from {url} within {self.timeout} s", 0) from cause
            message = str(reason).replace(token, "[token]")
            raise UnifiedMemoryError("network_error", f"Cannot reach {url}: {message}", 0) from cause

    def _backoff(self, attempt: int) -> float:
        """Exponential (0.25 s × 2ⁿ, at most max_retry_after), with jitter so clients do not retry in step."""
        ceiling = min(self.max_retry_after, 0.25 * 2**attempt)
        return ceiling * (0.5 + random.random() / 2)


def checked_token(token: str) -> str:
    """The token as sent: trimmed; CR, LF or NUL inside is a usage error that does not quote it."""
    if not isinstance(token, str):  # pyright: ignore[reportUnnecessaryIsInstance]
        raise TypeError("the token must be a str")
    trimmed = token.strip()
    if not trimmed:
        raise ValueError("the token is empty")
    if any(c in trimmed for c in "\r\n\x00"):
        raise ValueError("the token holds CR, LF or NUL (a wrapped paste, or a file's line break?): check it")
    return trimmed


def _idempotent(method: str, path: str) -> bool:
    """A dismissal and a delete change something once: a second attempt cannot tell it happened."""
    return method != "DELETE" and not (method == "POST" and path.endswith("/dismiss"))


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def _headers(message: Any) -> _Headers:
    out = _Headers()
    for key, value in message.items():
        out[key.lower()] = value
    return out
