"""Helpers of the report store tests: reports shifted in time or changed, and every row of
the store to compare before and after."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import create_engine, select

from pinchpoint.model.findings import Finding, Report, Severity
from pinchpoint.model.inventory import Inventory
from pinchpoint.service.store.schema import Base

T0 = datetime(2026, 11, 23, 10, 0, 0, tzinfo=UTC)


@dataclass(frozen=True)
class CheckedHost:
    """What `pinchpoint check --snapshot` makes of a simulated host: report and inventory."""

    report: Report
    inventory: Inventory


def at(report: Report, minutes: float, host: str | None = None) -> Report:
    """`report` as if generated `minutes` after T0 (and by `host`)."""
    update: dict[str, Any] = {"generated_at": T0 + timedelta(minutes=minutes)}
    if host is not None:
        update["host"] = report.host.model_copy(update={"hostname": host})
    return report.model_copy(update=update)


def with_findings(report: Report, findings: list[Finding]) -> Report:
    return report.model_copy(update={"findings": findings})


def reseverity(finding: Finding, severity: Severity) -> Finding:
    return finding.model_copy(update={"severity": severity})


def table_rows(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every store table, in primary-key order: to prove nothing changed."""
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return {
                table.name: [
                    tuple(row)
                    for row in connection.execute(
                        select(table).order_by(*table.primary_key.columns)
                    )
                ]
                for table in Base.metadata.sorted_tables
            }
    finally:
        engine.dispose()
