"""How a host's findings move between states as its reports arrive, and the transitions to
notify.

A finding (keyed by host and `Finding.id`) is *pending* until `raise_after` consecutive reports
hold it, then *open*; an open finding is *resolved* once `resolve_after` consecutive reports do
not hold it, and a resolved one counts again from one when it reappears. A pending finding
absent `resolve_after` times is resolved too, without a notification (it never opened). So with
2 and 2 a flapping link — on, off, on, off — never opens, and an open one that flaps never
resolves. An open finding whose severity rises is *worsened*.

Transitions (`new`, `worsened`, `resolved`) are emitted only when no mute holds for the finding:
neither the report's own (`Finding.muted`) nor one stored for the host at the report's time.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from pinchpoint.model.findings import Finding, Report, Severity
from pinchpoint.service.events import FindingTransition, TransitionKind
from pinchpoint.service.store.bodies import pack, unpack
from pinchpoint.service.store.schema import FindingStateRow

PENDING, OPEN, RESOLVED = "pending", "open", "resolved"

MuteTest = Callable[[Finding], bool]


def finding_of(row: FindingStateRow) -> Finding:
    """The last body stored for a finding state."""
    return Finding.model_validate_json(unpack(row.body))


def _describe(row: FindingStateRow, finding: Finding) -> None:
    """Copy what queries filter on from the finding's newest body."""
    row.rule = finding.rule
    row.category = finding.category
    row.entity_kind = finding.entity.kind.value
    row.entity_id = finding.entity.id
    row.entity_name = finding.entity.name
    row.severity = finding.severity.value
    row.severity_rank = finding.severity.rank
    row.body = pack(finding.model_dump_json())


def _new_state(host_id: int, finding: Finding, at: datetime, report_id: int) -> FindingStateRow:
    row = FindingStateRow(
        host_id=host_id,
        finding_id=finding.id,
        state=PENDING,
        seen_streak=0,
        missing_streak=0,
        first_seen=at,
        last_seen=at,
        times_seen=0,
        last_report_id=report_id,
    )
    _describe(row, finding)
    return row


def _seen(
    row: FindingStateRow, finding: Finding, at: datetime, report_id: int, raise_after: int
) -> tuple[TransitionKind | None, Severity | None]:
    """Count one more report holding the finding; the transition it makes, if any, and the
    severity it had before."""
    before_state, before = row.state, Severity(row.severity)
    if row.missing_streak:
        row.seen_streak = 0
    row.seen_streak += 1
    row.missing_streak = 0
    row.times_seen += 1
    row.last_seen = max(row.last_seen, at)
    row.last_report_id = report_id
    _describe(row, finding)
    if before_state != OPEN:
        if row.seen_streak >= raise_after:
            row.state, row.opened_at = OPEN, at
            return TransitionKind.NEW, None
        row.state = PENDING
        return None, None
    if finding.severity.rank > before.rank:
        return TransitionKind.WORSENED, before
    return None, None


def _missed(row: FindingStateRow, at: datetime, resolve_after: int) -> TransitionKind | None:
    """Count one more report without the finding; RESOLVED when an open one resolves."""
    row.seen_streak = 0
    row.missing_streak += 1
    if row.missing_streak < resolve_after:
        return None
    was_open = row.state == OPEN
    row.state, row.resolved_at = RESOLVED, at
    return TransitionKind.RESOLVED if was_open else None


def advance_states(
    session: Session,
    *,
    host_id: int,
    host: str,
    report: Report,
    report_id: int,
    raise_after: int,
    resolve_after: int,
    muted: MuteTest,
) -> list[FindingTransition]:
    """Move the host's finding states by one report; the transitions no mute holds for."""
    present = {finding.id: finding for finding in report.findings}
    at = report.generated_at
    rows = {
        row.finding_id: row
        for row in session.scalars(
            select(FindingStateRow).where(
                FindingStateRow.host_id == host_id,
                or_(
                    FindingStateRow.state != RESOLVED,
                    FindingStateRow.finding_id.in_(list(present)),
                ),
            )
        )
    }
    transitions: list[FindingTransition] = []

    def note(kind: TransitionKind, finding: Finding, previous: Severity | None) -> None:
        if not muted(finding):
            transitions.append(
                FindingTransition(
                    kind=kind,
                    host=host,
                    finding=finding,
                    severity=finding.severity,
                    previous_severity=previous,
                    at=at,
                    report_id=report_id,
                )
            )

    for finding_id, finding in present.items():
        row = rows.get(finding_id)
        if row is None:
            row = _new_state(host_id, finding, at, report_id)
            session.add(row)
        kind, previous = _seen(row, finding, at, report_id, raise_after)
        if kind is not None:
            note(kind, finding, previous)
    for finding_id, row in rows.items():
        if finding_id in present or row.state == RESOLVED:
            continue
        if _missed(row, at, resolve_after) is TransitionKind.RESOLVED:
            note(TransitionKind.RESOLVED, finding_of(row), None)
    order = {TransitionKind.RESOLVED: 0, TransitionKind.NEW: 1, TransitionKind.WORSENED: 2}
    transitions.sort(key=lambda t: (order[t.kind], -t.severity.rank, t.finding.id))
    return transitions
