"""The report as Markdown, to paste into a ticket: findings by severity with their evidence and
fix, then muted findings, skipped rules and collectors that failed."""

from __future__ import annotations

from pinchpoint.model.findings import Finding, Report
from pinchpoint.report.words import (
    by_severity,
    fact_text,
    headline,
    host_name,
    latency_line,
    mute_text,
    muted,
    simulated_line,
    status_line,
    verdict,
)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _finding(finding: Finding) -> list[str]:
    lines = [
        f"### {finding.severity.value.upper()}: {headline(finding)}",
        "",
        f"Rule `{finding.rule}` on `{finding.entity.id}` ({finding.entity.kind.value}).",
        "",
    ]
    for evidence in finding.evidence:
        lines.append(f"- {evidence.summary}")
        lines.extend(f"  - {fact_text(fact)}" for fact in evidence.facts)
        if evidence.peers:
            lines.append(f"  - compared with: {', '.join(p.name for p in evidence.peers)}")
    if finding.evidence:
        lines.append("")
    lines += [f"**Fix:** {finding.remediation}", ""]
    if finding.related:
        folded = ", ".join(f"`{other}`" for other in finding.related)
        lines += [f"Folded in (same cause, evidence above): {folded}", ""]
    if finding.muted is not None:
        lines += [f"_{mute_text(finding.muted)}_", ""]
    return lines


def report_markdown(report: Report) -> str:
    """The whole report as one Markdown document."""
    lines = [
        f"## pinchpoint check: {host_name(report)}",
        "",
        f"Generated {report.generated_at:%Y-%m-%d %H:%M:%S %Z}. {status_line(report)}.",
        "",
    ]
    simulated = simulated_line(report)
    if simulated is not None:
        lines[1:1] = ["", f"**{simulated.upper()}.**"]
    latency = latency_line(report)
    if latency is not None:
        lines += [f"{latency[0].upper()}{latency[1:]}.", ""]
    said = verdict(report)
    if said is not None:
        lines += [f"**{said}.**", ""]
    for _severity, findings in by_severity(report):
        for finding in findings:
            lines += _finding(finding)
    silenced = muted(report)
    if silenced:
        lines += ["### Muted", ""]
        for finding in silenced:
            lines += _finding(finding)
    if report.skipped:
        lines += ["### Rules skipped", "", "| rule | why |", "|---|---|"]
        lines += [f"| `{s.rule}` | {_cell(s.reason)} |" for s in report.skipped]
        lines.append("")
    if report.collection:
        lines += ["### Not collected", "", "| part | what | why |", "|---|---|---|"]
        lines += [
            f"| {p.part} | {_cell(p.subject)} | {_cell(p.reason)} |" for p in report.collection
        ]
        lines.append("")
    return "\n".join(lines)
