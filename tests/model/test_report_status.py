"""A report's status: ok, findings or partial, one rule for reports and stored summaries."""

from __future__ import annotations

from datetime import UTC, datetime

from pinchpoint.model.findings import (
    Report,
    ReportStatus,
    SkippedRule,
    report_status,
)
from pinchpoint.model.inventory import HostInfo, SourceKind


def _report(ran: int, reasons: list[str]) -> Report:
    return Report(
        host=HostInfo(hostname="vm", source=SourceKind.LIVE),
        generated_at=datetime(2026, 11, 26, tzinfo=UTC),
        skipped=[SkippedRule(rule=f"rule.{i}", reason=r) for i, r in enumerate(reasons)],
        rules_evaluated=ran,
    )


def test_more_skipped_than_run_is_partial_with_findings_or_without() -> None:
    assert report_status(False, 11, 20) is ReportStatus.PARTIAL
    assert report_status(True, 11, 20) is ReportStatus.PARTIAL
    assert report_status(True, 29, 8) is ReportStatus.FINDINGS
    assert report_status(False, 29, 8) is ReportStatus.OK
    assert report_status(False, 10, 10) is ReportStatus.OK  # half is not most


def test_the_reasons_are_the_count_then_the_commonest_reasons() -> None:
    reasons = ["no SAS HBA"] * 12 + ["no FC ports"] * 5 + ["no SMART"] * 2 + ["a", "b"]
    report = _report(11, reasons)
    assert report.status is ReportStatus.PARTIAL
    assert report.status_reasons == [
        "21 of 32 rules could not run",
        "12 rules: no SAS HBA",
        "5 rules: no FC ports",
        "2 rules: no SMART",
        "2 other reasons",
    ]


def test_a_complete_report_has_no_reasons() -> None:
    report = _report(30, ["no ZFS pools"])
    assert report.status is ReportStatus.OK
    assert report.status_reasons == []
    assert report.model_dump()["status"] == "ok"
