"""How a host's findings move between states as its reports arrive, and which moves are told.

A finding (keyed by host and `Finding.id`) is *pending* until `raise_after` consecutive reports
hold it, then *open*; an open finding is *resolved* once `resolve_after` consecutive reports do
not hold it, and a resolved one counts again from one when it reappears. A pending finding
absent `resolve_after` times is resolved too, without a notification (it never opened). So with
2 and 2 a flapping link — on, off, on, off — never opens, and an open one that flaps never
resolves. An open finding whose severity rises is *worsened*. An open finding a mute holds for
is shown as *muted* (never stored so: mutes come and go on their own).

These are plain functions over a finding's `Progress`; the store reads and writes them
(`pinchpoint/service/store/findings.py`) and leaves out the transitions a mute holds for.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum

from pinchpoint.model.findings import Severity
from pinchpoint.service.events import FindingTransition, TransitionKind

# What the store keeps in `finding_states.state`.
PENDING, OPEN, RESOLVED = "pending", "open", "resolved"


class FindingState(StrEnum):
    """Where a finding of one host stands across its reports."""

    PENDING = "pending"  # seen, but not yet in `raise_after` consecutive reports
    OPEN = "open"  # raised, and no mute holds
    MUTED = "muted"  # raised, and a mute holds (computed when asked, from the mutes)
    RESOLVED = "resolved"  # absent from `resolve_after` consecutive reports


@dataclass(frozen=True)
class Progress:
    """Where one finding of one host stands, and the counts that move it."""

    state: str  # PENDING, OPEN or RESOLVED
    first_seen: datetime  # generated_at of the first report that held it
    last_seen: datetime  # … and of the newest
    seen_streak: int = 0  # consecutive reports holding it
    missing_streak: int = 0  # consecutive reports without it
    times_seen: int = 0  # reports that held it
    opened_at: datetime | None = None  # when it last became open
    resolved_at: datetime | None = None  # when it last became resolved


@dataclass(frozen=True)
class Move:
    """A finding's progress after one more report, and the transition it made, if any."""

    progress: Progress
    transition: TransitionKind | None = None


def unseen(at: datetime) -> Progress:
    """A finding no report of its host held before, first met at `at`: pending, not counted
    yet (`seen` counts the report that holds it)."""
    return Progress(state=PENDING, first_seen=at, last_seen=at)


def seen(
    progress: Progress,
    at: datetime,
    *,
    raise_after: int,
    severity: Severity,
    previous: Severity,
) -> Move:
    """One more report holds the finding (now of `severity`, before of `previous`): NEW when it
    opens, WORSENED when it was open and its severity rose."""
    was_open = progress.state == OPEN
    streak = 1 if progress.missing_streak else progress.seen_streak + 1
    opens = not was_open and streak >= raise_after
    counted = replace(
        progress,
        state=OPEN if was_open or opens else PENDING,
        seen_streak=streak,
        missing_streak=0,
        times_seen=progress.times_seen + 1,
        last_seen=max(progress.last_seen, at),
        opened_at=at if opens else progress.opened_at,
    )
    if opens:
        return Move(counted, TransitionKind.NEW)
    if was_open and severity.rank > previous.rank:
        return Move(counted, TransitionKind.WORSENED)
    return Move(counted)


def missed(progress: Progress, at: datetime, *, resolve_after: int) -> Move:
    """One more report does not hold the finding: RESOLVED when an open one resolves."""
    missing = progress.missing_streak + 1
    if missing < resolve_after:
        return Move(replace(progress, seen_streak=0, missing_streak=missing))
    resolved = replace(
        progress, state=RESOLVED, seen_streak=0, missing_streak=missing, resolved_at=at
    )
    return Move(resolved, TransitionKind.RESOLVED if progress.state == OPEN else None)


def shown_state(stored: str, mute_holds: bool) -> FindingState:
    """The state a stored one is shown as: an open finding a mute holds for is muted."""
    if stored == OPEN and mute_holds:
        return FindingState.MUTED
    return FindingState(stored)


def stored_state(state: FindingState) -> str:
    """The stored state behind a shown one (muted and open are both stored open)."""
    return OPEN if state in (FindingState.OPEN, FindingState.MUTED) else state.value


def notification_order(transitions: Iterable[FindingTransition]) -> list[FindingTransition]:
    """Resolved first, then new, then worsened; the most severe first within each."""
    order = {TransitionKind.RESOLVED: 0, TransitionKind.NEW: 1, TransitionKind.WORSENED: 2}
    return sorted(transitions, key=lambda t: (order[t.kind], -t.severity.rank, t.finding.id))
