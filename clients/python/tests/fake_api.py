"""A scripted HTTP server for the unit tests: answers from a queue (or one function) and records requests."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional, Tuple, Union
from urllib.parse import parse_qs, urlsplit


@dataclass
class Call:
    method: str
    path: str
    query: Dict[str, List[str]]
    headers: Dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8"))


#: (status, body, headers); a body that is not bytes is sent as JSON.
Answer = Tuple[int, Any, Dict[str, str]]
Script = Union[List[Answer], Callable[[Call], Answer]]


def api_error(status: int, code: str, headers: Optional[Dict[str, str]] = None, details: Any = None) -> Answer:
    error: Dict[str, Any] = {"code": code, "message": f"{code}!", "requestId": f"req-{status}"}
    if details is not None:
        error["details"] = details
    return status, {"error": error}, headers or {}


class FakeApi:
    def __init__(self, script: Script) -> None:
        self.calls: List[Call] = []
        self._script = script
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                parts = urlsplit(self.path)
                call = Call(
                    self.command,
                    parts.path,
                    parse_qs(parts.query),
                    {k.lower(): v for k, v in self.headers.items()},
                    self.rfile.read(length) if length else b"",
                )
                fake.calls.append(call)
                status, body, headers = fake._next(call)
                data = body if isinstance(body, bytes) else json.dumps(body).encode("utf-8")
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                if status != 304:
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                self.end_headers()
                if status != 304:
                    self.wfile.write(data)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _answer

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/base"
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)
        self._thread.start()

    def _next(self, call: Call) -> Answer:
        if callable(self._script):
            return self._script(call)
        if not self._script:
            return 599, {"error": {"code": "unexpected", "message": f"{call.method} {call.path}"}}, {}
        return self._script.pop(0)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> "FakeApi":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def store_all(call: Call) -> Answer:
    """POST /items that stores whatever it gets, answering ``created`` for each item."""
    items = call.json()["items"]
    return (
        200,
        {"items": [{"id": f"id-{i}", "source": it["source"], "externalId": it["externalId"], "status": "created"} for i, it in enumerate(items)]},
        {},
    )
