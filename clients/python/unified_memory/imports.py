"""Imports through the service: upload one export file (the import command's formats), then follow it."""

from __future__ import annotations

import os
import time
from datetime import datetime, timezone
from typing import Callable, Optional, Union, cast

from ._operations import route
from ._transport import Transport
from .errors import UnifiedMemoryError
from .types import Import, ImportsList

FileInput = Union[bytes, bytearray, memoryview, str, "os.PathLike[str]"]


class Imports:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def upload(
        self,
        file: FileInput,
        name: Optional[str] = None,
        *,
        format: Optional[str] = None,
        source: Optional[str] = None,
        modified_at: Optional[Union[str, datetime]] = None,
    ) -> Import:
        """Uploads the file (bytes, or a path to read; up to 25 MB) and answers its import, queued.

        ``name`` names the file in reports and, without ``format``, tells the format by its ending (a path's
        own name by default). ``modified_at`` is the date of records without one of their own; a path's
        modification time by default, so uploading the same file again changes nothing.
        """
        if isinstance(file, (bytes, bytearray, memoryview)):
            data = bytes(file)
            if name is None:
                raise TypeError("name is required when the file is given as bytes")
        else:
            path = os.fspath(file)
            with open(path, "rb") as handle:
                data = handle.read()
            name = name or os.path.basename(path)
            if modified_at is None:
                modified_at = datetime.fromtimestamp(os.path.getmtime(path), tz=timezone.utc)
        stamp = modified_at.isoformat() if isinstance(modified_at, datetime) else modified_at
        query = {"name": name, "format": format, "source": source, "modifiedAt": stamp}
        method, route_path = route("createImport")
        return cast(
            Import,
            self._transport.json(
                method,
                route_path,
                query=query,
                body_bytes=data,
                headers={"Content-Type": "application/octet-stream"},
            ),
        )

    def get(self, id: str) -> Import:
        return cast(Import, self._transport.json(*route("getImport", {"id": id})))

    def list(self) -> ImportsList:
        """The caller's imports, newest first."""
        return cast(ImportsList, self._transport.json(*route("listImports")))

    def wait(
        self,
        id: str,
        *,
        interval: float = 1.0,
        timeout: float = 600.0,
        on_progress: Optional[Callable[[Import], None]] = None,
    ) -> Import:
        """Polls the import until it is done or failed (a failed import is answered, not raised)."""
        deadline = time.monotonic() + timeout
        while True:
            job = self.get(id)
            if on_progress is not None:
                on_progress(job)
            if job["status"] in ("done", "failed"):
                return job
            if time.monotonic() + interval > deadline:
                records = job["summary"]["records"]
                raise UnifiedMemoryError("timeout", f"Import {id} is still {job['status']} ({records} records so far)", 0)
            self._transport.sleep(interval)
