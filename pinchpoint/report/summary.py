"""What a report's findings add up to: how many of each severity no mute holds, how many are
muted, and the worst severity among those not muted. The store keeps these figures beside each
report (its list of reports and a host's history show them without reading the findings)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pydantic import BaseModel

from pinchpoint.model.findings import Finding, Severity


class SeverityCounts(BaseModel):
    """How many findings of each severity."""

    critical: int = 0
    warning: int = 0
    info: int = 0

    def total(self) -> int:
        return self.critical + self.warning + self.info


@dataclass(frozen=True)
class FindingsSummary:
    """A report's findings in figures."""

    unmuted: SeverityCounts  # findings no mute held when the report was made
    muted: int  # findings a mute held
    worst: Severity | None  # the worst unmuted finding's severity (None: there is none)


def findings_summary(findings: Iterable[Finding]) -> FindingsSummary:
    """Count `findings` by severity, the muted ones apart (`Finding.muted` set)."""
    counts = {severity: 0 for severity in Severity}
    muted = 0
    for finding in findings:
        if finding.muted is not None:
            muted += 1
        else:
            counts[finding.severity] += 1
    present = [severity for severity, count in counts.items() if count]
    return FindingsSummary(
        unmuted=SeverityCounts(
            critical=counts[Severity.CRITICAL],
            warning=counts[Severity.WARNING],
            info=counts[Severity.INFO],
        ),
        muted=muted,
        worst=max(present, key=lambda s: s.rank) if present else None,
    )
