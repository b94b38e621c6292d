"""Parameter types shared by the routes."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import BeforeValidator

# The moments the routes work with. Narrower than what `datetime` holds, so that the
# arithmetic the routes and the store do with them (a default window of an hour, a year's
# range, a time zone offset) cannot leave `datetime`'s range (OverflowError, a 500 before).
# A moment outside is brought to the nearer end: the OpenAPI document can only say
# "date-time", so every date-time must be accepted, and for a filter or an expiry year 314
# means what 1970 means (and year 9999 what 9000 means).
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(9000, 1, 1, tzinfo=UTC)


def _iso_datetime(value: Any) -> Any:
    """Accept ISO 8601 text (and datetimes), not the bare numbers pydantic would read as epoch
    seconds: `until=0.5` is a mistake, not 1970. A moment without a time zone is UTC; the
    result is in UTC, brought within `EARLIEST` and `LATEST`."""
    if isinstance(value, datetime):
        moment = value
    elif not isinstance(value, str):
        raise ValueError("give a date and time in ISO 8601, e.g. 2026-11-22T10:00:00Z")
    else:
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            raise ValueError(
                f"{value[:64]!r} is not an ISO 8601 date and time (e.g. 2026-11-22T10:00:00Z)"
            ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        utc = moment.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00+01:00 has no UTC: it lies at one end
        return EARLIEST if moment.year < 5000 else LATEST
    return min(max(utc, EARLIEST), LATEST)


IsoDatetime = Annotated[datetime, BeforeValidator(_iso_datetime)]
