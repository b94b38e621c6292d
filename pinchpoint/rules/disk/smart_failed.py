"""`disk.smart.failed`: a disk whose SMART verdict is FAILED or whose attributes fail now."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.model.health import SelfTestOutcome, SmartctlExitFlag
from pinchpoint.naming import health_disk_ref, sas_disks_by_id
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext
from pinchpoint.rules.disk.smart import failed_now, last_verdict, wear_facts


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Disks whose SMART verdict is FAILED or whose attributes fail now."""
    inventory = context.inventory
    disks = sas_disks_by_id(inventory)
    for health in inventory.health.disks:
        if not failed_now(health):
            continue
        ref = health_disk_ref(health, inventory, disks)
        verdict = {False: "FAILED", True: "PASSED", None: "not reported"}[health.smart_passed]
        facts = [Fact(name="SMART overall health", value=verdict)]
        reasons = []
        if health.smart_passed is False:
            reasons.append("smartctl's overall health assessment is FAILED")
        if SmartctlExitFlag.DISK_FAILING in health.exit_flags:
            facts.append(Fact(name="smartctl exit status", value=health.exit_status))
        for attribute in health.ata.failing_now if health.ata else []:
            reasons.append(
                f"attribute {attribute.attribute_id} {attribute.name} is at {attribute.value}, "
                f"at or below its threshold {attribute.threshold}"
            )
            facts.append(Fact(name=f"{attribute.name} value", value=attribute.value))
            facts.append(Fact(name=f"{attribute.name} threshold", value=attribute.threshold))
        facts += wear_facts(health, None)
        if health.endurance_used_pct is not None:
            facts.append(Fact(name="endurance used", value=health.endurance_used_pct, unit="%"))
        last = last_verdict(health.self_tests or [])
        if last is not None and last.outcome is SelfTestOutcome.FAILED:
            reasons.append(f"its last self-test ({last.description}) failed: {last.status}")
            facts.append(Fact(name="last self-test", value=last.status))
            if last.failing_lba is not None:
                facts.append(Fact(name="first failing LBA", value=last.failing_lba))
        yield Hit(
            entity=ref,
            title=f"{ref.name}: SMART says the disk is failing",
            evidence=[
                Evidence(
                    summary=f"{ref.name}: {'; '.join(reasons)}",
                    facts=facts,
                )
            ],
        )


RULE = Rule(
    id="disk.smart.failed",
    title="SMART overall health failed, or attributes failing now",
    severity=Severity.CRITICAL,
    needs=(Input.HEALTH,),
    remediation=(
        "Replace the disk now: take it out of its pool or array (or let a spare take over), "
        "swap it and resilver; light its bay's locate LED to pull the right one."
    ),
    judge=judge,
    doc=(
        "smartctl's overall assessment (`smart_status.passed` false, exit status bit 3) or an "
        "ATA attribute whose normalised value is at or below the vendor's threshold now "
        '(`when_failed` "now") means the drive itself predicts its failure. NVMe drives fail '
        "the assessment when a critical warning bit is set. A failed self-test or the endurance "
        "used of such a disk is part of this finding (not also `disk.selftest.failed` or "
        "`disk.ssd.worn`)."
    ),
)
