"""How a host's report differs from an earlier one, finding by finding (by `Finding.id`, the
rule and the entity): what is new, what resolved, what persists and which of those got worse."""

from __future__ import annotations

from dataclasses import dataclass

from pinchpoint.model.findings import Finding, Report


@dataclass(frozen=True)
class FindingsDiff:
    """The findings of report `after` against report `before`."""

    new: list[Finding]  # in after, not in before
    resolved: list[Finding]  # in before, not in after (before's body)
    persisting: list[Finding]  # in both (after's body)
    worsened: list[Finding]  # persisting, and more severe in after (after's body)


def findings_diff(before: Report, after: Report) -> FindingsDiff:
    """Compare two reports' findings, each list in the order of the report it comes from."""
    old = {finding.id: finding for finding in before.findings}
    kept = {finding.id for finding in after.findings}
    persisting = [f for f in after.findings if f.id in old]
    return FindingsDiff(
        new=[f for f in after.findings if f.id not in old],
        resolved=[f for f in before.findings if f.id not in kept],
        persisting=persisting,
        worsened=[f for f in persisting if f.severity.rank > old[f.id].severity.rank],
    )
