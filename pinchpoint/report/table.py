"""The report on a terminal: findings by severity, each with its entity, evidence and fix; then
muted findings, skipped rules and collectors that failed."""

from __future__ import annotations

import io

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from pinchpoint.markup import markdown_rich
from pinchpoint.model.findings import Finding, Report, ReportStatus, Severity
from pinchpoint.report.words import (
    by_severity,
    fact_text,
    host_name,
    latency_line,
    mute_text,
    muted,
    names_entity,
    simulated_line,
    status_line,
    verdict,
)

STYLE = {Severity.CRITICAL: "bold red", Severity.WARNING: "bold yellow", Severity.INFO: "cyan"}
PLAIN_WIDTH = 120


def _finding(finding: Finding, style: str) -> Table:
    """The finding's title line, its evidence (sentence, facts, peers) and its fix, indented
    under its severity so wrapped lines stay in their column."""
    body = Text()
    if names_entity(finding):
        body.append(f"{finding.title}\n", style="bold")
    else:
        body.append(finding.entity.name, style="bold")
        body.append(f" — {finding.title}\n")
    body.append(f"{finding.rule}  [{finding.entity.id}]", style="dim")
    for evidence in finding.evidence:
        body.append(f"\n• {evidence.summary}")
        if evidence.facts:
            facts = "; ".join(fact_text(fact) for fact in evidence.facts)
            body.append(f"\n  {facts}", style="dim")
        if evidence.peers:
            peers = ", ".join(peer.name for peer in evidence.peers)
            body.append(f"\n  compared with: {peers}", style="dim")
    body.append("\nfix: ", style="green")
    body.append_text(markdown_rich(finding.remediation))
    if finding.related:
        body.append("\nfolded in (same cause, evidence above): ", style="dim")
        body.append(", ".join(finding.related), style="dim")
    if finding.muted is not None:
        body.append(f"\n{mute_text(finding.muted)}", style="magenta")
    grid = Table.grid(padding=(0, 1))
    grid.add_column(width=8, no_wrap=True)
    grid.add_column(ratio=1)
    grid.add_row(Text(finding.severity.value.upper(), style=style), body)
    grid.add_row("", "")
    return grid


def report_view(report: Report) -> Group:
    """Every part of the report as Rich renderables, worst first."""
    parts: list[RenderableType] = []
    title = Text(f"pinchpoint check — {host_name(report)}", style="bold")
    title.append(f"   {report.generated_at:%Y-%m-%d %H:%M:%S %Z}", style="dim")
    parts.append(title)
    simulated = simulated_line(report)
    if simulated is not None:
        parts.append(Text(simulated.upper(), style="bold magenta"))
    parts.append(Text(status_line(report)))
    latency = latency_line(report)
    if latency is not None:
        parts.append(Text(latency, style="dim"))
    said = verdict(report)
    if said is not None:
        partial = report.status is ReportStatus.PARTIAL
        parts.append(Text(said, style="bold yellow" if partial else "bold green"))
    for severity, findings in by_severity(report):
        parts.append(Text(f"\n{severity.value.upper()} ({len(findings)})", style=STYLE[severity]))
        parts.extend(_finding(f, STYLE[severity]) for f in findings)
    silenced = muted(report)
    if silenced:
        parts.append(Text(f"\nMUTED ({len(silenced)})", style="magenta"))
        parts.extend(_finding(f, "dim") for f in silenced)
    if report.skipped:
        table = Table(title="rules skipped", title_justify="left")
        table.add_column("rule")
        table.add_column("why")
        for skipped in report.skipped:
            table.add_row(skipped.rule, skipped.reason)
        parts.append(table)
    if report.collection:
        table = Table(title="not collected", title_justify="left")
        table.add_column("part")
        table.add_column("what")
        table.add_column("why")
        for problem in report.collection:
            table.add_row(problem.part, problem.subject, problem.reason)
        parts.append(table)
    return Group(*parts)


def report_plain(report: Report, width: int = PLAIN_WIDTH) -> str:
    """The terminal view as plain text (no colours), for a file."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, no_color=True, highlight=False, emoji=False)
    console.print(report_view(report))
    return buffer.getvalue()
