"""`latency.disk.outlier`: a disk clearly slower than its peers in the same enclosure (a disk
outside the SAS fabric: on the same controller)."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.breakdown import GroupFigures, GroupLevel
from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.naming import disk_peers, group_ref
from pinchpoint.rules.base import Hit, Input, Limits, Role, Rule, RuleContext, Threshold
from pinchpoint.rules.derived.block_disks import controller_disks
from pinchpoint.rules.derived.breakdown import breakdown, group_figures
from pinchpoint.rules.latency.standouts import (
    OUTLIER_THRESHOLDS,
    Measure,
    comparable,
    peer_figures,
    standout_facts,
    standout_sentence,
    standouts,
)

DISK_MEASURES = (
    Measure("mean wait", "ms", lambda g: g.await_ms, "min_wait_difference_ms"),
    Measure("p99 latency", "ms", lambda g: g.p99_ms, "min_p99_difference_ms"),
)


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Disks clearly slower than the other disks of their enclosure."""
    inventory = context.inventory
    enclosure_of = {d.id: d.enclosure_id for d in inventory.sas.disks}
    names = {e.id: e.name for e in inventory.sas.enclosures}
    for device in context.derived(controller_disks):
        # disks on another controller: among its disks (or the host's NVMe or virtio
        # disks), spinning and flash apart
        key, name = disk_peers(device, inventory)
        spins = None if device.rotational is None else "HDD" if device.rotational else "SSD"
        place = f"{key}/{spins}" if spins else key
        enclosure_of[device.id] = place
        names[place] = f"{name} ({spins}s)" if spins else name
    by_enclosure: dict[str, list[GroupFigures]] = {}
    for group in comparable(group_figures(context, GroupLevel.DISK), limits):
        enclosure = enclosure_of.get(group.id)
        if enclosure is not None:
            by_enclosure.setdefault(enclosure, []).append(group)
    for enclosure, disks in by_enclosure.items():
        if len(disks) < limits.number("min_peers"):
            continue
        among = peer_figures(disks, DISK_MEASURES)
        for disk in disks:
            found = standouts(disk, disks, DISK_MEASURES, limits, among)
            if not found:
                continue
            ref = group_ref(disk)
            yield Hit(
                entity=ref,
                title=f"{ref.name} is slower than the other disks of {names.get(enclosure)}",
                evidence=[
                    Evidence(
                        summary=(
                            f"{ref.name}: {standout_sentence(found)} over the {len(disks)} "
                            f"measured disks of {names.get(enclosure, enclosure)}"
                        ),
                        facts=[
                            *standout_facts(found),
                            Fact(name="IOPS", value=round(disk.iops, 1)),
                        ],
                        peers=[group_ref(g) for g in disks if g.id != disk.id][:24],
                    )
                ],
            )


RULE = Rule(
    id="latency.disk.outlier",
    title="Disk clearly slower than its peers in the same enclosure or on the same controller",
    severity=Severity.WARNING,
    needs=(Input.DISK_STATS,),
    uses=(Input.SAS, Input.BLOCK, Input.HISTOGRAMS, Input.HEALTH),
    derived=(breakdown, controller_disks),
    remediation=(
        "Check the disk's SMART data (`smartctl -x`: grown defects, pending sectors, error "
        "log) and its paths; a disk that keeps slowing its vdev should be replaced before it "
        "fails (`zpool replace`)."
    ),
    judge=judge,
    doc=(
        "A disk that takes much longer per I/O than the disks beside it, with the same work, "
        "is usually failing (retries, remapped sectors) or on a bad path; in a mirror or "
        "raidz vdev it slows every I/O that needs it. Robust statistics among the disks of "
        "one enclosure (2× the median, 3.5 scaled MADs, a minimum difference) keep healthy "
        "noise out. A disk outside the SAS fabric is compared with the disks of its "
        "controller (an AHCI controller's SATA disks), an NVMe namespace or virtio disk with "
        "the host's others of its kind (one disk per controller); spinning disks and flash "
        "apart."
    ),
    thresholds={
        **OUTLIER_THRESHOLDS,
        "min_ratio": Threshold(2.0, "A disk's figure must be at least this × the median."),
        "min_wait_difference_ms": Threshold(10.0, "Smallest mean-wait difference.", "ms"),
        "min_p99_difference_ms": Threshold(50.0, "Smallest p99 difference.", "ms"),
        "min_peers": Threshold(4, "Fewest measured disks in the enclosure to compare."),
    },
    role=Role.SYMPTOM,
)
