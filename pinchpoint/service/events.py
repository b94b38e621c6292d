"""What changed between two sweeps of a host, as notifications and the findings history see it.

A finding is raised after N consecutive sweeps and resolved after N clean ones (so a flapping
link pages nobody twice); the store computes these transitions when it saves a report and the
notifier sends them.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel

from pinchpoint.model.findings import Finding, Severity


class TransitionKind(StrEnum):
    NEW = "new"  # became open: seen in enough consecutive sweeps
    WORSENED = "worsened"  # open, and its severity rose
    RESOLVED = "resolved"  # was open, absent from enough consecutive sweeps


class FindingTransition(BaseModel):
    """One finding of one host changing state in the sweep that produced `report_id`."""

    kind: TransitionKind
    host: str
    finding: Finding  # the newest body (for a resolved finding: the last one seen)
    severity: Severity
    previous_severity: Severity | None = None  # set for WORSENED
    at: datetime  # the report's generated_at
    report_id: int | None = None
