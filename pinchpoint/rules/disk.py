"""Disk rules: SMART health, degrading media, SATA links, misaligned partitions."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.block import SECTOR_BYTES, BlockKind
from pinchpoint.model.findings import EntityKind, EntityRef, Evidence, Fact, Severity
from pinchpoint.model.health import DiskHealth, SmartctlExitFlag
from pinchpoint.model.inventory import Inventory
from pinchpoint.naming import disk_ref
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext, Threshold


def _health_ref(health: DiskHealth, inventory: Inventory) -> EntityRef:
    """The disk by its bay where the SAS inventory knows it, else device, model and serial."""
    for disk in inventory.sas.disks:
        if disk.id == health.id:
            return disk_ref(disk, inventory)
    label = " ".join(p for p in (health.model, health.serial) if p)
    name = f"{health.device} ({label})" if label else health.device
    return EntityRef(kind=EntityKind.DISK, id=health.id, name=name)


def _failed(health: DiskHealth) -> bool:
    """smartctl's verdict is FAILED, or an attribute is at or below its threshold now."""
    if not health.collected:
        return False
    failing_now = bool(health.ata and health.ata.failing_now)
    return health.smart_passed is False or failing_now


def _wear(health: DiskHealth, limits: Limits | None) -> list[Fact]:
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
        used = health.nvme.percentage_used
        if used is not None and used >= 100:
            found.append(Fact(name="life used", value=used, unit="%"))
    return found


def failed_disks(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Disks whose SMART verdict is FAILED or whose attributes fail now."""
    inventory = context.inventory
    for health in inventory.health.disks:
        if not _failed(health):
            continue
        ref = _health_ref(health, inventory)
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
        facts += _wear(health, None)
        yield Hit(
            entity=ref,
            title=f"{ref.name}: SMART says the disk is failing",
            evidence=[
                Evidence(
                    rule="disk.smart.failed",
                    summary=f"{ref.name}: {'; '.join(reasons)}",
                    facts=facts,
                )
            ],
        )


def degrading_disks(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Disks that pass SMART but show media wear: grown defects, reallocated or pending
    sectors, media errors, NVMe critical warnings (a failed disk is `disk.smart.failed`)."""
    inventory = context.inventory
    for health in inventory.health.disks:
        if not health.collected or _failed(health):
            continue
        facts = _wear(health, limits)
        if not facts:
            continue
        ref = _health_ref(health, inventory)
        signs = ", ".join(f"{f.name} {f.value}" for f in facts)
        yield Hit(
            entity=ref,
            title=f"{ref.name}: media wearing ({facts[0].name} {facts[0].value})",
            evidence=[
                Evidence(
                    rule="disk.smart.degrading",
                    summary=f"{ref.name} passes SMART but shows {signs}",
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


def downgraded_sata_links(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """SATA links running below the drive's maximum and below what the host end can do (the
    host end is known behind a SAS expander; elsewhere the drive's maximum is taken)."""
    inventory = context.inventory
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
        ref = _health_ref(health, inventory)
        facts = [
            Fact(name="link speed", value=current, unit="Gb/s"),
            Fact(name="drive's maximum", value=ata.sata_link_max_gbps, unit="Gb/s"),
        ]
        if host_max is None:
            host = "the host end's maximum is not known"
        else:
            host = f"the expander phy it hangs off does {host_max:g}"
            facts.append(Fact(name="host end's maximum", value=host_max, unit="Gb/s"))
        yield Hit(
            entity=ref,
            title=f"{ref.name}: SATA link at {current:g} of {both:g} Gb/s",
            evidence=[
                Evidence(
                    rule="disk.sata_link.downgraded",
                    summary=(
                        f"{ref.name} runs its SATA link at "
                        f"{current:g} Gb/s; the drive does {ata.sata_link_max_gbps:g} and {host}"
                    ),
                    facts=facts,
                )
            ],
        )


def misaligned_partitions(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Partitions of whole disks whose start is not a multiple of the alignment; a disk seen
    through several paths is judged once."""
    alignment_kib = limits.number("alignment_kib")
    alignment = int(alignment_kib * 1024)
    if alignment <= 0:
        raise ValueError(f"alignment_kib must be positive, not {alignment_kib:g}")
    seen: set[tuple[str, int | str]] = set()
    whole = (BlockKind.SCSI_DISK, BlockKind.NVME, BlockKind.OTHER)
    for device in context.inventory.block.devices:
        if device.kind not in whole:
            continue
        for partition in device.partitions:
            start = partition.start_bytes
            if start is None:
                continue
            key = (device.wwid or device.id, partition.number or partition.name)
            if key in seen:
                continue
            seen.add(key)
            if start % alignment == 0:
                continue
            disk = f"{device.name} ({device.wwid})" if device.wwid else device.name
            ref = EntityRef(
                kind=EntityKind.PARTITION, id=partition.id, name=f"{partition.name} on {disk}"
            )
            offset = start % alignment
            yield Hit(
                entity=ref,
                title=(
                    f"{partition.name} starts {offset} bytes past a {alignment_kib:g} KiB boundary"
                ),
                evidence=[
                    Evidence(
                        rule="disk.partition.misaligned",
                        summary=(
                            f"{partition.name} starts at sector {partition.start_sectors} "
                            f"({start} bytes), not a multiple of {alignment_kib:g} KiB: I/Os "
                            f"that look aligned to the file system straddle the disk's "
                            f"physical blocks or the array's stripe units"
                        ),
                        facts=[
                            Fact(name="start", value=partition.start_sectors, unit="sectors"),
                            Fact(name="sector size", value=SECTOR_BYTES, unit="bytes"),
                            Fact(name="alignment", value=alignment_kib, unit="KiB"),
                            Fact(name="offset past the boundary", value=offset, unit="bytes"),
                        ],
                    )
                ],
            )


SMART_FAILED = Rule(
    id="disk.smart.failed",
    title="SMART overall health failed, or attributes failing now",
    category="disk",
    severity=Severity.CRITICAL,
    needs=(Input.HEALTH,),
    remediation=(
        "Replace the disk now: take it out of its pool or array (or let a spare take over), "
        "swap it and resilver; light its bay's locate LED to pull the right one."
    ),
    check=failed_disks,
    doc=(
        "smartctl's overall assessment (`smart_status.passed` false, exit status bit 3) or an "
        "ATA attribute whose normalised value is at or below the vendor's threshold now "
        '(`when_failed` "now") means the drive itself predicts its failure. NVMe drives fail '
        "the assessment when a critical warning bit is set."
    ),
)

SMART_DEGRADING = Rule(
    id="disk.smart.degrading",
    title="A disk showing media wear: defects, reallocated or pending sectors, media errors",
    category="disk",
    severity=Severity.WARNING,
    needs=(Input.HEALTH,),
    remediation=(
        "Plan to replace the disk; run a long self-test (`smartctl -t long`) and a scrub, and "
        "watch whether the counters keep rising between sweeps."
    ),
    check=degrading_disks,
    doc=(
        "A disk may pass SMART while its media wears: a grown defect list (SAS), reallocated, "
        "pending or offline-uncorrectable sectors (ATA attributes 5, 197, 198), uncorrected "
        "errors, NVMe media errors or critical warnings, or life used past 100 %. Such disks "
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

SATA_LINK_DOWNGRADED = Rule(
    id="disk.sata_link.downgraded",
    title="A SATA link below the speed both ends support",
    category="disk",
    severity=Severity.WARNING,
    needs=(Input.HEALTH,),
    remediation=(
        "Reseat the disk (or its cable); if the link stays slow, try another bay or cable, "
        "then replace the disk's carrier or interposer."
    ),
    check=downgraded_sata_links,
    doc=(
        'smartctl reports a SATA drive\'s link as "6.0 Gb/s (current: 3.0 Gb/s)" '
        "(`interface_speed.max` and `.current`). Below the drive's maximum and below what the "
        "host end can do (an expander phy's maximum, when the SAS fabric shows the disk), the "
        "link fell back after errors: a poor connection. Where the host end is not known, the "
        "evidence says so."
    ),
)

PARTITION_MISALIGNED = Rule(
    id="disk.partition.misaligned",
    title="A partition not aligned to 1 MiB (or 64 KiB)",
    category="disk",
    severity=Severity.WARNING,
    needs=(Input.BLOCK,),
    remediation=(
        "Recreate the partition at a 1 MiB boundary (start sector 2048, as parted and fdisk "
        "do by default) after moving its data off; the data cannot be realigned in place."
    ),
    check=misaligned_partitions,
    doc=(
        "A partition starting off a 1 MiB boundary (the old DOS start at sector 63 is the "
        "classic) makes every file-system block straddle two physical sectors of a 4K disk or "
        "two stripe units of an array, doubling the I/Os behind it. Field case 2's published "
        "expectations include aligned partitions; set `alignment_kib = 64` to accept the "
        "64 KiB alignment of older array guidance."
    ),
    thresholds={
        "alignment_kib": Threshold(1024, "Boundary a partition must start on.", "KiB"),
    },
)

RULES: tuple[Rule, ...] = (
    SMART_FAILED,
    SMART_DEGRADING,
    SATA_LINK_DOWNGRADED,
    PARTITION_MISALIGNED,
)
