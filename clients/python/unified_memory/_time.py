"""Instants and days as the API's query parameters take them."""

from __future__ import annotations

from datetime import date, datetime, timezone
from typing import Optional, Union

#: An instant: ISO 8601 text, or a datetime (a naive one is read as UTC).
Instant = Union[str, datetime]
#: A day (UTC): ``YYYY-MM-DD`` text, or a date.
Day = Union[str, date]


def iso_instant(value: Optional[Instant]) -> Optional[str]:
    """A datetime as ISO 8601 with its zone (a naive one is read as UTC); a string as given."""
    if not isinstance(value, datetime):
        return value
    return (value if value.tzinfo else value.replace(tzinfo=timezone.utc)).isoformat()


def iso_day(value: Optional[Day]) -> Optional[str]:
    """A date (or a datetime's UTC date) as ``YYYY-MM-DD``; a string as given."""
    if isinstance(value, datetime):
        aware = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        return aware.astimezone(timezone.utc).date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return value
