"""`disk.partition.misaligned`: a partition of a whole disk whose start is not a multiple of the
alignment."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.block import SECTOR_BYTES, BlockKind
from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.naming import partition_ref
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext, Threshold


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
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
            ref = partition_ref(partition, device)
            offset = start % alignment
            yield Hit(
                entity=ref,
                title=(
                    f"{partition.name} starts {offset} bytes past a {alignment_kib:g} KiB boundary"
                ),
                evidence=[
                    Evidence(
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


RULE = Rule(
    id="disk.partition.misaligned",
    title="A partition not aligned to 1 MiB (or 64 KiB)",
    severity=Severity.WARNING,
    needs=(Input.BLOCK,),
    remediation=(
        "Recreate the partition at a 1 MiB boundary (start sector 2048, as parted and fdisk "
        "do by default) after moving its data off; the data cannot be realigned in place."
    ),
    judge=judge,
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
