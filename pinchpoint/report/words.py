"""The words every renderer uses for a report's parts, so the table, Markdown and HTML agree."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.findings import Fact, Finding, Mute, Report, ReportStatus, Severity
from pinchpoint.model.inventory import SourceKind
from pinchpoint.plurals import unit_for
from pinchpoint.report.summary import findings_summary
from pinchpoint.units import quantity_text

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


def fact_value_text(fact: Fact) -> str:
    """A fact's value with its unit, in the units every view uses: `262 I/Os`, `6.05 s` (a
    latency in ms said by its magnitude), `1 HBA port`, `yes`."""
    value = fact.value
    if fact.unit and isinstance(value, int | float) and not isinstance(value, bool):
        if fact.unit in ("ms", "µs", "MB/s", "Mb/s", "Gb/s"):
            return quantity_text(float(value), fact.unit)
        return f"{value_text(value)} {unit_for(value, fact.unit)}"
    unit = f" {fact.unit}" if fact.unit else ""
    return f"{value_text(value)}{unit}"


def fact_text(fact: Fact) -> str:
    """`queue per disk: 262.1 I/Os (JBOD-003)`."""
    whose = f" ({fact.entity.name})" if fact.entity is not None else ""
    return f"{fact.name}: {fact_value_text(fact)}{whose}"


def names_entity(finding: Finding) -> bool:
    """The title already names the finding's entity (`JBOD-003 has 1 of 2 SAS paths`): a view
    shows the title alone, not `JBOD-003 — JBOD-003 has …`."""
    name = finding.entity.name
    return bool(name) and name in finding.title


def headline(finding: Finding) -> str:
    """`JBOD-003 has 1 of 2 SAS paths`, or `sdq — queue too deep` when the title does not
    name the entity: every view's first line of a finding, the entity said once."""
    return finding.title if names_entity(finding) else f"{finding.entity.name} — {finding.title}"


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
