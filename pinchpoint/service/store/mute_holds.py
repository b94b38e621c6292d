"""When a stored mute holds for a finding, in Python and as SQL (kept side by side so that they
agree): the one rule of muting, `pinchpoint.model.findings.mute_holds` — same rule and entity,
not expired, not lifted by the finding having got worse than its severity when muted — plus the
host a stored mute is for (NULL: every host).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import ColumnElement, and_, or_

from pinchpoint.model.findings import Finding, mute_holds
from pinchpoint.service.store.schema import FindingStateRow, HostRow, MuteRow


def holds(row: MuteRow, host: str, finding: Finding, now: datetime) -> bool:
    """Whether the stored mute `row` silences `finding` of `host` at `now`."""
    if row.host is not None and row.host != host:
        return False
    return mute_holds(row.rule, row.entity_id, row.until, row.severity_rank_at_mute, finding, now)


def holding_mute(
    rows: Iterable[MuteRow], host: str, finding: Finding, now: datetime
) -> MuteRow | None:
    """The first stored mute (lowest id) that silences `finding` of `host`, if any."""
    for row in sorted(rows, key=lambda r: r.id):
        if holds(row, host, finding, now):
            return row
    return None


def holds_clause(now: datetime) -> ColumnElement[bool]:
    """The same test in SQL, for a `MuteRow` against a `FindingStateRow` of a `HostRow`."""
    return and_(
        MuteRow.rule == FindingStateRow.rule,
        MuteRow.entity_id == FindingStateRow.entity_id,
        or_(MuteRow.host.is_(None), MuteRow.host == HostRow.name),
        or_(MuteRow.until.is_(None), MuteRow.until > now),
        or_(
            MuteRow.severity_rank_at_mute.is_(None),
            FindingStateRow.severity_rank <= MuteRow.severity_rank_at_mute,
        ),
    )
