"""How a finding's state moves report by report, without a database: raise after N, resolve
after N, a flapping link never opens, worsened when an open finding's severity rises, and
which transitions are told first."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pinchpoint.model.findings import EntityKind, EntityRef, Finding, Severity
from pinchpoint.service.events import FindingTransition, TransitionKind
from pinchpoint.service.findings_state import (
    OPEN,
    PENDING,
    RESOLVED,
    FindingState,
    Move,
    Progress,
    missed,
    notification_order,
    seen,
    shown_state,
    stored_state,
    unseen,
)

T0 = datetime(2026, 11, 23, 10, 0, 0, tzinfo=UTC)
WARNING, CRITICAL = Severity.WARNING, Severity.CRITICAL


def sweep(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


def run(
    presence: str, raise_after: int = 2, resolve_after: int = 2
) -> tuple[Progress, list[TransitionKind | None]]:
    """Feed a finding's presence report by report ("x": held, ".": not) from its first
    sighting; the progress at the end and each report's transition."""
    progress: Progress | None = None
    transitions: list[TransitionKind | None] = []
    for minute, mark in enumerate(presence):
        at = sweep(5 * minute)
        move: Move
        if mark == "x":
            move = seen(
                progress or unseen(at),
                at,
                raise_after=raise_after,
                severity=WARNING,
                previous=WARNING,
            )
        else:
            assert progress is not None, "a finding starts with a report that holds it"
            move = missed(progress, at, resolve_after=resolve_after)
        progress = move.progress
        transitions.append(move.transition)
    assert progress is not None
    return progress, transitions


def test_a_finding_opens_after_raise_after_reports_and_resolves_after_resolve_after() -> None:
    progress, transitions = run("xx..")
    assert transitions == [None, TransitionKind.NEW, None, TransitionKind.RESOLVED]
    assert progress.state == RESOLVED
    assert progress.first_seen == sweep(0) and progress.last_seen == sweep(5)
    assert progress.opened_at == sweep(5) and progress.resolved_at == sweep(15)
    assert progress.times_seen == 2 and progress.missing_streak == 2


def test_a_flapping_link_never_opens_and_an_open_one_that_flaps_never_resolves() -> None:
    progress, transitions = run("x.x.x.x")
    assert transitions == [None] * 7 and progress.state == PENDING
    progress, transitions = run("xx.x.x.x")
    assert transitions == [None, TransitionKind.NEW, *[None] * 6]
    assert progress.state == OPEN and progress.times_seen == 5


def test_a_pending_finding_gone_resolves_without_a_word() -> None:
    progress, transitions = run("x..")
    assert transitions == [None, None, None] and progress.state == RESOLVED


def test_a_resolved_finding_counts_again_from_one() -> None:
    progress, transitions = run("xx..x")
    assert progress.state == PENDING and progress.seen_streak == 1
    progress, transitions = run("xx..xx")
    assert transitions[-1] is TransitionKind.NEW and progress.opened_at == sweep(25)


def test_with_one_and_one_every_report_moves_it() -> None:
    _, transitions = run("x.x", raise_after=1, resolve_after=1)
    assert transitions == [TransitionKind.NEW, TransitionKind.RESOLVED, TransitionKind.NEW]


def test_an_open_finding_whose_severity_rises_is_worsened_once() -> None:
    opened, _ = run("xx")
    worse = seen(opened, sweep(10), raise_after=2, severity=CRITICAL, previous=WARNING)
    assert worse.transition is TransitionKind.WORSENED and worse.progress.state == OPEN
    same = seen(worse.progress, sweep(15), raise_after=2, severity=CRITICAL, previous=CRITICAL)
    assert same.transition is None
    milder = seen(same.progress, sweep(20), raise_after=2, severity=WARNING, previous=CRITICAL)
    assert milder.transition is None
    pending = seen(unseen(T0), T0, raise_after=2, severity=CRITICAL, previous=WARNING)
    assert pending.transition is None  # not open yet: nothing to worsen


def test_a_late_report_does_not_move_last_seen_back() -> None:
    progress, _ = run("xx")
    late = seen(progress, sweep(-10), raise_after=2, severity=WARNING, previous=WARNING)
    assert late.progress.last_seen == sweep(5)


def test_an_open_finding_a_mute_holds_for_is_shown_muted_and_stored_open() -> None:
    assert shown_state(OPEN, True) is FindingState.MUTED
    assert shown_state(OPEN, False) is FindingState.OPEN
    assert shown_state(PENDING, True) is FindingState.PENDING
    assert shown_state(RESOLVED, True) is FindingState.RESOLVED
    assert stored_state(FindingState.MUTED) == stored_state(FindingState.OPEN) == OPEN
    assert stored_state(FindingState.PENDING) == PENDING
    assert stored_state(FindingState.RESOLVED) == RESOLVED


def transition(kind: TransitionKind, entity: str, severity: Severity) -> FindingTransition:
    finding = Finding(
        id=f"sas.enclosure.single_path@{entity}",
        rule="sas.enclosure.single_path",
        category="sas",
        severity=severity,
        title=entity,
        entity=EntityRef(kind=EntityKind.ENCLOSURE, id=entity, name=entity),
        remediation="cable it",
    )
    return FindingTransition(kind=kind, host="store01", finding=finding, severity=severity, at=T0)


def test_resolved_are_told_first_then_new_then_worsened_most_severe_first() -> None:
    told = notification_order(
        [
            transition(TransitionKind.WORSENED, "e1", CRITICAL),
            transition(TransitionKind.NEW, "e2", WARNING),
            transition(TransitionKind.NEW, "e3", CRITICAL),
            transition(TransitionKind.RESOLVED, "e5", WARNING),
            transition(TransitionKind.RESOLVED, "e4", WARNING),
        ]
    )
    assert [(t.kind.value, t.finding.entity.id) for t in told] == [
        ("resolved", "e4"),
        ("resolved", "e5"),
        ("new", "e3"),
        ("new", "e2"),
        ("worsened", "e1"),
    ]
