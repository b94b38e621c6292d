"""`disk.sata_link.downgraded`: a SATA link running below the drive's maximum and below what
the host end can do."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.model.health import DiskHealth
from pinchpoint.model.inventory import Inventory
from pinchpoint.naming import health_disk_ref, sas_disks_by_id
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext
from pinchpoint.units import gbps_text


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """SATA links running below the drive's maximum and below what the host end can do (the
    host end is known behind a SAS expander; elsewhere the drive's maximum is taken)."""
    inventory = context.inventory
    disks = sas_disks_by_id(inventory)
    for health in inventory.health.disks:
        ata = health.ata
        if ata is None or ata.sata_link_current_gbps is None or ata.sata_link_max_gbps is None:
            continue
        current = ata.sata_link_current_gbps
        if current >= ata.sata_link_max_gbps:
            continue
        host_max = _host_side_max(health, inventory)
        both = min(ata.sata_link_max_gbps, host_max or ata.sata_link_max_gbps)
        if current >= both:
            continue
        ref = health_disk_ref(health, inventory, disks)
        facts = [
            Fact(name="link speed", value=current, unit="Gb/s"),
            Fact(name="drive's maximum", value=ata.sata_link_max_gbps, unit="Gb/s"),
        ]
        if host_max is None:
            host = "the host end's maximum is not known"
        else:
            host = f"the expander phy it hangs off does {gbps_text(host_max)}"
            facts.append(Fact(name="host end's maximum", value=host_max, unit="Gb/s"))
        yield Hit(
            entity=ref,
            title=f"{ref.name}: SATA link at {gbps_text(current)} of {gbps_text(both)}",
            evidence=[
                Evidence(
                    summary=(
                        f"{ref.name} runs its SATA link at "
                        f"{gbps_text(current)}; the drive does "
                        f"{gbps_text(ata.sata_link_max_gbps)} and {host}"
                    ),
                    facts=facts,
                )
            ],
        )


def _host_side_max(health: DiskHealth, inventory: Inventory) -> float | None:
    """The fastest the expander phy cabled to this disk can do, when the SAS fabric shows it."""
    disk = next((d for d in inventory.sas.disks if d.id == health.id), None)
    if disk is None:
        return None
    paths = {p.id for p in disk.paths}
    rates = [
        phy.maximum_hw_gbps or phy.maximum_gbps
        for expander in inventory.sas.expanders
        for phy in expander.phys
        if phy.attached_id in paths
    ]
    known = [r for r in rates if r is not None]
    return max(known) if known else None


RULE = Rule(
    id="disk.sata_link.downgraded",
    title="A SATA link below the speed both ends support",
    severity=Severity.WARNING,
    needs=(Input.HEALTH,),
    remediation=(
        "Reseat the disk (or its cable); if the link stays slow, try another bay or cable, "
        "then replace the disk's carrier or interposer."
    ),
    judge=judge,
    doc=(
        'smartctl reports a SATA drive\'s link as "6.0 Gb/s (current: 3.0 Gb/s)" '
        "(`interface_speed.max` and `.current`). Below the drive's maximum and below what the "
        "host end can do (an expander phy's maximum, when the SAS fabric shows the disk), the "
        "link fell back after errors: a poor connection. Where the host end is not known, the "
        "evidence says so."
    ),
)
