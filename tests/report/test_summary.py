"""What a report's findings add up to: counts by severity of the unmuted, the muted apart, the
worst unmuted severity (as `Report.worst` says)."""

from __future__ import annotations

from report.findings_made import finding, report

from pinchpoint.model.findings import Severity
from pinchpoint.report.summary import SeverityCounts, findings_summary


def test_findings_are_counted_by_severity_with_the_muted_apart() -> None:
    made = report(
        finding("sas.enclosure.single_path", "jbod-003", Severity.CRITICAL),
        finding("sas.enclosure.single_path", "jbod-012", Severity.CRITICAL, muted=True),
        finding("sas.chain.imbalance", "port-0", Severity.WARNING),
        finding("disk.smart.attribute", "disk-1", Severity.INFO),
        finding("disk.smart.attribute", "disk-2", Severity.INFO),
    )
    summary = findings_summary(made.findings)
    assert summary.unmuted == SeverityCounts(critical=1, warning=1, info=2)
    assert summary.unmuted.total() == 4
    assert summary.muted == 1
    assert summary.worst is Severity.CRITICAL is made.worst()


def test_the_worst_is_of_the_unmuted_only() -> None:
    made = report(
        finding("sas.enclosure.single_path", "jbod-003", Severity.CRITICAL, muted=True),
        finding("disk.smart.attribute", "disk-1", Severity.INFO),
    )
    summary = findings_summary(made.findings)
    assert summary.worst is Severity.INFO is made.worst()
    assert summary.unmuted == SeverityCounts(info=1) and summary.muted == 1


def test_no_findings_no_worst() -> None:
    summary = findings_summary([])
    assert summary.unmuted == SeverityCounts() and summary.muted == 0
    assert summary.worst is None
    muted_only = findings_summary([finding("sas.chain.imbalance", "port-0", muted=True)])
    assert muted_only.worst is None and muted_only.muted == 1
