"""Parameter types shared by the routes."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import BeforeValidator


def _iso_datetime(value: Any) -> Any:
    """Accept ISO 8601 text (and datetimes), not the bare numbers pydantic would read as epoch
    seconds: `until=0.5` is a mistake, not 1970."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if not isinstance(value, str):
        raise ValueError("give a date and time in ISO 8601, e.g. 2026-11-22T10:00:00Z")
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(
            f"{value!r} is not an ISO 8601 date and time (e.g. 2026-11-22T10:00:00Z)"
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


IsoDatetime = Annotated[datetime, BeforeValidator(_iso_datetime)]
