"""The words every renderer uses for a report's parts, so the table, Markdown and HTML agree."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.findings import Fact, Finding, Mute, Report, ReportStatus, Severity
from pinchpoint.model.inventory import SourceKind
from pinchpoint.report.summary import findings_summary

SEVERITY_ORDER = (Severity.CRITICAL, Severity.WARNING, Severity.INFO)


def value_text(value: float | int | str | bool | None) -> str:
    """A fact's value: `12`, `14.2`, `0.0031`, `yes`, `—`."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if value.is_integer():
            return f"{value:,.0f}"
        return f"{value:,.2f}" if abs(value) >= 0.1 else f"{value:.3g}"
    if isinstance(value, int):
        return f"{value:,}"
    return value


def fact_text(fact: Fact) -> str:
    """`queue per disk: 262.1 I/Os (JBOD-003)`."""
    unit = f" {fact.unit}" if fact.unit else ""
    whose = f" ({fact.entity.name})" if fact.entity is not None else ""
    return f"{fact.name}: {value_text(fact.value)}{unit}{whose}"


def mute_text(mute: Mute) -> str:
    """`muted until 2026-12-01 00:00 UTC: recabling booked`."""
    until = f" until {mute.until:%Y-%m-%d %H:%M %Z}".rstrip() if mute.until else ""
    return f"muted{until}: {mute.reason or 'no reason given'}"


def by_severity(report: Report) -> Iterator[tuple[Severity, list[Finding]]]:
    """Unmuted findings grouped by severity, worst first (only severities that have some)."""
    for severity in SEVERITY_ORDER:
        found = [f for f in report.findings if f.severity is severity and f.muted is None]
        if found:
            yield severity, found


def muted(report: Report) -> list[Finding]:
    return [f for f in report.findings if f.muted is not None]


def status_line(report: Report) -> str:
    """`2 critical, 1 warning, 0 info; 1 muted; 31 rules run, 3 skipped`."""
    summary = findings_summary(report.findings)
    unmuted = summary.unmuted.model_dump()
    counts = ", ".join(f"{unmuted[s.value]} {s.value}" for s in SEVERITY_ORDER)
    return (
        f"{counts}; {summary.muted} muted; {report.rules_evaluated} rules run, "
        f"{len(report.skipped)} skipped"
    )


def verdict(report: Report) -> str | None:
    """The report's word when no finding speaks for it: `PARTIAL: 26 of 37 rules could not run
    (12 rules: no SAS HBA on this host; …)` or `OK: no findings`; None when findings stand and
    every rule that could run ran."""
    if report.status is ReportStatus.PARTIAL:
        head, *reasons = report.status_reasons
        why = f" ({'; '.join(reasons)})" if reasons else ""
        return f"PARTIAL: {head}{why}"
    if report.status is ReportStatus.OK:
        return "OK: no findings"
    return None


SIMULATED = "simulated host: the bundled demo (field case 1), not a machine that was read"


def simulated_line(report: Report) -> str | None:
    """What every rendering says first about the demo: its host is imagined, not read."""
    return SIMULATED if report.host.source is SourceKind.DEMO else None


def latency_line(report: Report) -> str | None:
    """`latency: per-I/O latency recorded in the kernel (eBPF), 10 s` or `latency: averages
    only: per-I/O latency is not recorded because …`: what the latency rules judged (the words
    of `model/latency_source.py`, which the service's statistics API uses too); None for a
    report made before reports said it."""
    if report.latency is None:
        return None
    return f"latency: {report.latency.summary}"


def host_name(report: Report) -> str:
    return report.host.hostname or "unknown host"
