"""`disk.smart.degrading`: a disk that passes SMART but shows media wear."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.findings import Evidence, Severity
from pinchpoint.naming import health_disk_ref, sas_disks_by_id
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext, Threshold
from pinchpoint.rules.disk.smart import failed_now, wear_facts


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Disks that pass SMART but show media wear: grown defects, reallocated or pending
    sectors, media errors, NVMe critical warnings (a failed disk is `disk.smart.failed`)."""
    inventory = context.inventory
    disks = sas_disks_by_id(inventory)
    for health in inventory.health.disks:
        if not health.collected or failed_now(health):
            continue
        facts = wear_facts(health, limits)
        if not facts:
            continue
        ref = health_disk_ref(health, inventory, disks)
        signs = ", ".join(f"{f.name} {f.value}" for f in facts)
        yield Hit(
            entity=ref,
            title=f"{ref.name}: media wearing ({facts[0].name} {facts[0].value})",
            evidence=[
                Evidence(
                    summary=f"{ref.name} passes SMART but shows {signs}",
                    facts=facts,
                )
            ],
        )


RULE = Rule(
    id="disk.smart.degrading",
    title="A disk showing media wear: defects, reallocated or pending sectors, media errors",
    severity=Severity.WARNING,
    needs=(Input.HEALTH,),
    remediation=(
        "Plan to replace the disk; run a long self-test (`smartctl -t long`) and a scrub, and "
        "watch whether the counters keep rising between sweeps."
    ),
    judge=judge,
    doc=(
        "A disk may pass SMART while its media wears: a grown defect list (SAS), reallocated, "
        "pending or offline-uncorrectable sectors (ATA attributes 5, 197, 198), uncorrected "
        "errors, NVMe media errors or critical warnings (endurance used is "
        "`disk.ssd.worn`). Such disks "
        "retry and remap, and their slow I/Os hurt a whole pool. Disks already failing are "
        "reported by `disk.smart.failed` alone."
    ),
    thresholds={
        "max_grown_defects": Threshold(0, "Grown defects accepted (SAS).", "blocks"),
        "max_reallocated": Threshold(0, "Reallocated sectors accepted (ATA 5).", "sectors"),
        "max_pending": Threshold(
            0, "Pending and offline-uncorrectable sectors accepted (ATA 197, 198).", "sectors"
        ),
        "max_media_errors": Threshold(0, "Uncorrected or NVMe media errors accepted.", "errors"),
    },
)
