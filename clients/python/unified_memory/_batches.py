"""Splits items into POST /items requests within the API's limits: 500 items and 5 MB of JSON each."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, List, Sequence, Tuple

from ._generated import MAX_BATCH_BYTES, MAX_BATCH_ITEMS

__all__ = ["MAX_BATCH_BYTES", "MAX_BATCH_ITEMS"]
#: ``{"items":[`` and ``]}`` around the items.
_ENVELOPE_BYTES = 12


@dataclass(frozen=True)
class EncodedItem:
    index: int
    data: bytes


def encode_items(items: Sequence[Any]) -> List[EncodedItem]:
    return [
        EncodedItem(i, json.dumps(item, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
        for i, item in enumerate(items)
    ]


def batch_body(batch: Sequence[EncodedItem]) -> bytes:
    return b'{"items":[' + b",".join(e.data for e in batch) + b"]}"


def plan_batches(
    items: Sequence[EncodedItem], max_items: int, max_bytes: int
) -> Tuple[List[List[EncodedItem]], List[EncodedItem]]:
    """Consecutive batches within both limits, and the items too large to travel even alone."""
    batches: List[List[EncodedItem]] = []
    oversized: List[EncodedItem] = []
    current: List[EncodedItem] = []
    size = _ENVELOPE_BYTES
    for entry in items:
        if _ENVELOPE_BYTES + len(entry.data) > max_bytes:
            oversized.append(entry)
            continue
        added = len(entry.data) + (1 if current else 0)
        if len(current) >= max_items or size + added > max_bytes:
            batches.append(current)
            current, size = [], _ENVELOPE_BYTES
            added = len(entry.data)
        current.append(entry)
        size += added
    if current:
        batches.append(current)
    return batches, oversized
