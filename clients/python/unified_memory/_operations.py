"""A request of one operation, from the operation table generated from the API's contract.

``_generated.OPERATIONS`` holds each operation's method and path; the client's methods are thin wrappers
over :func:`route`, so the paths are written nowhere else.
"""

from __future__ import annotations

import re
from typing import Mapping, Optional, Tuple
from urllib.parse import quote

from ._generated import OPERATIONS, TEAM_OPERATIONS

__all__ = ["TEAM_OPERATIONS", "route"]

_PARAM = re.compile(r"\{(\w+)\}")


def route(operation_id: str, params: Optional[Mapping[str, str]] = None) -> Tuple[str, str]:
    """The method and the path of the operation, its path parameters filled in (URL-encoded)."""
    operation = OPERATIONS[operation_id]
    given = params or {}

    def fill(match: "re.Match[str]") -> str:
        name = match.group(1)
        if name not in given:
            raise TypeError(f"{operation_id} needs the path parameter {name}")
        return quote(given[name], safe="")

    return operation.method, _PARAM.sub(fill, operation.path)
