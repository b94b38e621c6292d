"""`disk.selftest.failed`: the drive's last self-test failed, or (when configured) no extended
self-test ran for too long."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.model.health import (
    DiskHealth,
    DiskProtocol,
    SelfTest,
    SelfTestKind,
    SelfTestOutcome,
)
from pinchpoint.naming import health_disk_ref, sas_disks_by_id
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext, Threshold
from pinchpoint.rules.disk.smart import failed_now, last_verdict

HOURS_PER_DAY = 24
LOG_HOURS_WRAP = 1 << 16  # ATA and SCSI self-test logs count power-on hours in 16 bits


def _ago(health: DiskHealth, test: SelfTest) -> int | None:
    """Power-on hours since the test ran. ATA and SCSI logs keep the hour in 16 bits: past
    65,535 hours it wraps, so the distance is taken modulo 65,536 (the log holds the last
    tests only; NVMe keeps 64 bits)."""
    now, then = health.power_on_hours, test.power_on_hours
    if now is None or then is None:
        return None
    if health.protocol is not DiskProtocol.NVME and now > LOG_HOURS_WRAP - 1:
        return (now - then) % LOG_HOURS_WRAP
    return max(0, now - then)


def _failed(health: DiskHealth, test: SelfTest, tests: list[SelfTest]) -> tuple[str, list[Fact]]:
    ago = _ago(health, test)
    facts = [
        Fact(name="last self-test", value=test.description),
        Fact(name="result", value=test.status),
    ]
    if test.power_on_hours is not None:
        facts.append(Fact(name="ran at power-on hour", value=test.power_on_hours, unit="h"))
    if ago is not None:
        facts.append(Fact(name="power-on hours since", value=ago, unit="h"))
    if test.failing_lba is not None:
        facts.append(Fact(name="first failing LBA", value=test.failing_lba))
    failures = sum(1 for t in tests if t.outcome is SelfTestOutcome.FAILED)
    facts.append(Fact(name="failed tests in the log", value=failures, unit="tests"))
    when = f" {ago} power-on hours ago" if ago is not None else ""
    at = f" at LBA {test.failing_lba}" if test.failing_lba is not None else ""
    return f"the last self-test ({test.description}{when}) failed: {test.status}{at}", facts


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Drives whose most recent decisive self-test failed (critical); with `max_days_since_
    extended` set, drives with no passed extended test in that many days of power-on time
    (info)."""
    inventory = context.inventory
    disks = sas_disks_by_id(inventory)
    for health in inventory.health.disks:
        tests = health.self_tests
        if not health.collected or tests is None or failed_now(health):
            continue  # a disk SMART fails is `disk.smart.failed`, its self-tests with it
        ref = health_disk_ref(health, inventory, disks)
        last = last_verdict(tests)
        if last is not None and last.outcome is SelfTestOutcome.FAILED:
            summary, facts = _failed(health, last, tests)
            yield Hit(
                entity=ref,
                title=f"{ref.name}: last self-test failed ({last.status})",
                evidence=[Evidence(summary=f"{ref.name}: {summary}", facts=facts)],
            )
            continue
        days = limits.number("max_days_since_extended", health.id)
        if days <= 0 or health.power_on_hours is None:
            continue
        extended = next(
            (
                t
                for t in tests
                if t.kind is SelfTestKind.EXTENDED and t.outcome is SelfTestOutcome.PASSED
            ),
            None,
        )
        ago = _ago(health, extended) if extended is not None else None
        if extended is not None and ago is not None and ago <= days * HOURS_PER_DAY:
            continue
        facts = [
            Fact(name="limit", value=days, unit="days"),
            Fact(name="power-on hours", value=health.power_on_hours, unit="h"),
            Fact(name="self-tests in the log", value=len(tests), unit="tests"),
        ]
        if ago is not None:
            facts.insert(0, Fact(name="days since the last extended test", value=ago // 24))
            said = f"its last extended self-test passed {ago // 24} days of power-on time ago"
        else:
            said = "its self-test log holds no passed extended self-test"
        yield Hit(
            entity=ref,
            title=f"{ref.name}: no extended self-test in {days:g} days",
            severity=Severity.INFO,
            remediation=(
                f"Run an extended self-test (`smartctl -t long /dev/{health.device}`) in a quiet "
                "hour, and schedule one regularly (smartd: `-s L/../../7/03`)."
            ),
            evidence=[
                Evidence(
                    summary=f"{ref.name}: {said} (limit {days:g} days)",
                    facts=facts,
                )
            ],
        )


RULE = Rule(
    id="disk.selftest.failed",
    title="The drive's last SMART self-test failed (or no recent extended self-test)",
    severity=Severity.CRITICAL,
    needs=(Input.HEALTH,),
    remediation=(
        "Treat the drive as failing: its own test of the whole medium (extended) or of a "
        "sample (short) found damage — unreadable sectors, a servo or electrical fault. "
        "Start a scrub or resilver of its pool or array so the bad blocks are rewritten from "
        "redundancy, then replace the drive; light its bay's locate LED to pull the right one."
    ),
    judge=judge,
    doc=(
        "Drives keep a log of their own self-tests: smartctl `-x` prints it for ATA and SCSI "
        "drives, and for NVMe drives where it prints `nvme_self_test_log` (7.3's `-x` does "
        "not). When the most recent test that ran to the end failed — a read, "
        "servo or electrical failure, a failed segment — the drive found damage its "
        "attributes may not show yet; aborted and running tests are passed over. A drive "
        "whose later test passed again is not reported, nor one SMART already fails "
        "(`disk.smart.failed` carries its self-test). With `max_days_since_extended` set, "
        "a drive whose log holds no passed extended test within that many days of power-on "
        "time is reported as information: nobody is testing it."
    ),
    thresholds={
        "max_days_since_extended": Threshold(
            0,
            "Days of power-on time without a passed extended self-test that are reported "
            "(0: not judged).",
            "days",
        ),
    },
)
