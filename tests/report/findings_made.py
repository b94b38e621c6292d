"""Findings and reports made by hand for the tests of what a report's findings mean."""

from __future__ import annotations

from datetime import UTC, datetime

from pinchpoint.model.findings import EntityKind, EntityRef, Finding, Mute, Report, Severity
from pinchpoint.model.inventory import HostInfo, SourceKind

T0 = datetime(2026, 11, 23, 10, 0, 0, tzinfo=UTC)


def finding(
    rule: str, entity: str, severity: Severity = Severity.WARNING, *, muted: bool = False
) -> Finding:
    return Finding(
        id=f"{rule}@{entity}",
        rule=rule,
        category=rule.split(".")[0],
        severity=severity,
        title=f"{rule} on {entity}",
        entity=EntityRef(kind=EntityKind.ENCLOSURE, id=entity, name=entity.upper()),
        remediation="fix it",
        muted=Mute(rule=rule, entity_id=entity, reason="booked") if muted else None,
    )


def report(*findings: Finding) -> Report:
    return Report(
        host=HostInfo(hostname="store01", source=SourceKind.SNAPSHOT),
        generated_at=T0,
        findings=list(findings),
    )
