"""`disk.ssd.worn`: an SSD that has used most of its rated endurance, or whose spare blocks
fell below the drive's own threshold."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.model.health import DiskHealth
from pinchpoint.naming import health_disk_ref, sas_disks_by_id
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext, Threshold
from pinchpoint.rules.disk.smart import failed_now


def spare(health: DiskHealth) -> tuple[int, int] | None:
    """(spare left %, the drive's threshold %): NVMe available spare, ATA attribute 232."""
    if health.nvme is not None:
        left, floor = health.nvme.available_spare_pct, health.nvme.available_spare_threshold_pct
    elif health.ata is not None:
        left, floor = health.ata.reserved_space_pct, health.ata.reserved_space_threshold_pct
    else:
        return None
    return (left, floor) if left is not None and floor is not None else None


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """SSDs with endurance used at or over `critical_pct` or spare below the drive's
    threshold (critical), or endurance used at or over `warning_pct` (warning)."""
    inventory = context.inventory
    disks = sas_disks_by_id(inventory)
    for health in inventory.health.disks:
        if not health.collected or failed_now(health):
            continue  # a disk SMART fails is `disk.smart.failed`, its wear with it
        used = health.endurance_used_pct
        warning = limits.number("warning_pct", health.id)
        critical = limits.number("critical_pct", health.id)
        reasons: list[str] = []
        facts: list[Fact] = []
        severity = Severity.WARNING
        if used is not None:
            facts += [
                Fact(name="endurance used", value=used, unit="%"),
                Fact(name="read from", value=health.endurance_source),
            ]
            if used >= critical:
                severity = Severity.CRITICAL
                reasons.append(f"{used} % of its rated endurance used (critical at {critical:g} %)")
            elif used >= warning:
                reasons.append(f"{used} % of its rated endurance used (warning at {warning:g} %)")
            facts += [
                Fact(name="warning at", value=warning, unit="%"),
                Fact(name="critical at", value=critical, unit="%"),
            ]
        left = spare(health)
        if left is not None:
            facts += [
                Fact(name="spare left", value=left[0], unit="%"),
                Fact(name="drive's spare threshold", value=left[1], unit="%"),
            ]
            if left[0] < left[1]:
                severity = Severity.CRITICAL
                reasons.append(f"spare {left[0]} % below the drive's threshold {left[1]} %")
        if not reasons:
            continue
        headline = [f"{used} % of its endurance used"] if used is not None else []
        headline += [f"spare {left[0]} % of {left[1]} %"] if left and left[0] < left[1] else []
        if health.power_on_hours is not None:
            facts.append(Fact(name="power-on hours", value=health.power_on_hours, unit="h"))
        ref = health_disk_ref(health, inventory, disks)
        remediation = None
        if severity is Severity.CRITICAL:
            remediation = (
                "Replace the SSD now: past its rated endurance or out of spare blocks it may "
                "turn read-only or lose data. Add the replacement to its pool or array before "
                "pulling this one; light its bay's locate LED to pull the right one."
            )
        yield Hit(
            entity=ref,
            title=f"{ref.name}: SSD worn ({', '.join(headline)})",
            severity=severity,
            remediation=remediation,
            evidence=[Evidence(summary=f"{ref.name}: {'; '.join(reasons)}", facts=facts)],
        )


RULE = Rule(
    id="disk.ssd.worn",
    title="An SSD near or past its rated endurance, or out of spare blocks",
    severity=Severity.WARNING,
    needs=(Input.HEALTH,),
    remediation=(
        "Order a replacement and plan the swap in the next maintenance window; check the "
        "write load on this drive (a log or cache device wears fastest) and whether a drive of "
        "higher endurance (more drive writes per day) suits it."
    ),
    judge=judge,
    doc=(
        "SSDs report how much of their rated write endurance they have used: NVMe "
        "`percentage_used`, the ATA device statistics' Percentage Used Endurance Indicator or "
        "a vendor wear attribute whose normalised value is the life left (233 "
        "Media_Wearout_Indicator, 177 Wear_Leveling_Count, 231 SSD_Life_Left, 202 "
        "Percent_Lifetime_Remain — by id and name, as the same ids mean other things on "
        "other drives), SAS drives' Percentage Used Endurance Indicator. At 80 % used "
        "(`warning_pct`) plan the replacement; at 95 % (`critical_pct`) or with the spare "
        "blocks (NVMe available spare, ATA attribute 232) below the drive's own threshold, "
        "replace it. A drive SMART already fails is reported by `disk.smart.failed`, its "
        "wear in that finding."
    ),
    thresholds={
        "warning_pct": Threshold(80, "Endurance used that is a warning.", "%"),
        "critical_pct": Threshold(95, "Endurance used that is critical.", "%"),
    },
)
