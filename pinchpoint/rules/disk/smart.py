"""SMART verdicts the disk rules share: a disk that fails now, the counters of media wear, the
last self-test that ran to the end."""

from __future__ import annotations

from pinchpoint.model.findings import Fact
from pinchpoint.model.health import DiskHealth, SelfTest, SelfTestOutcome
from pinchpoint.rules.base import Limits


def failed_now(health: DiskHealth) -> bool:
    """smartctl's verdict is FAILED, or an attribute is at or below its threshold now."""
    if not health.collected:
        return False
    failing_now = bool(health.ata and health.ata.failing_now)
    return health.smart_passed is False or failing_now


def last_verdict(tests: list[SelfTest]) -> SelfTest | None:
    """The most recent self-test that passed or failed (aborted and running ones say nothing)."""
    decisive = (SelfTestOutcome.PASSED, SelfTestOutcome.FAILED)
    return next((t for t in tests if t.outcome in decisive), None)


def wear_facts(health: DiskHealth, limits: Limits | None) -> list[Fact]:
    """Counters of media wear above their limits (above 0 without limits), as facts."""

    def limit(name: str) -> float:
        return limits.number(name, health.id) if limits is not None else 0.0

    found: list[Fact] = []

    def over(name: str, value: int | None, threshold: str, unit: str) -> None:
        if value is not None and value > limit(threshold):
            found.append(Fact(name=name, value=value, unit=unit))

    if health.scsi is not None:
        over("grown defects", health.scsi.grown_defects, "max_grown_defects", "blocks")
        for kind, count in (
            ("read", health.scsi.uncorrected_read_errors),
            ("write", health.scsi.uncorrected_write_errors),
            ("verify", health.scsi.uncorrected_verify_errors),
        ):
            over(f"uncorrected {kind} errors", count, "max_media_errors", "errors")
    if health.ata is not None:
        over("reallocated sectors", health.ata.reallocated_sectors, "max_reallocated", "sectors")
        over("pending sectors", health.ata.pending_sectors, "max_pending", "sectors")
        over("offline uncorrectable", health.ata.offline_uncorrectable, "max_pending", "sectors")
        found += [
            Fact(name=f"attribute {a.attribute_id} {a.name} failed in the past", value=a.value)
            for a in health.ata.failed_in_past
        ]
    if health.nvme is not None:
        over("media errors", health.nvme.media_errors, "max_media_errors", "errors")
        found += [
            Fact(name="critical warning", value=w.value.replace("_", " "))
            for w in health.nvme.critical_warnings
        ]
    return found
