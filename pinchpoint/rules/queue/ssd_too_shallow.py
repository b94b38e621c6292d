"""`queue.ssd.too_shallow`: SSDs held to a few I/Os each while they hold all they are allowed
(field case 4's rules of thumb, the other way round)."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.breakdown import GroupFigures, GroupLevel
from pinchpoint.model.findings import EntityRef, Evidence, Fact, Severity
from pinchpoint.plurals import agree, plural
from pinchpoint.rules.base import Hit, Input, Limits, Role, Rule, RuleContext, Threshold
from pinchpoint.rules.derived.block_disks import controller_disks, pool_disks
from pinchpoint.rules.derived.breakdown import breakdown, group_figures
from pinchpoint.rules.queue.settings import (
    QueueSettings,
    allowed_in_flight,
    device_allowed_in_flight,
    device_knob,
    device_place_ref,
    devices_by_place,
    disks_by_place,
    place_ref,
    queue_settings,
)


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Enclosures of SSDs (controllers of SSDs off the SAS fabric, NVMe namespaces) held to a
    few I/Os each while they hold all they are allowed."""
    inventory = context.inventory
    figures = {g.id: g for g in group_figures(context, GroupLevel.DISK)}
    host = queue_settings(inventory)
    places: list[tuple[EntityRef, list[tuple[str, int | None, dict[str, int]]], str | None]] = []
    for place, disks in disks_by_place(inventory, figures, rotational=False).items():
        ref = place_ref(place, disks, inventory)
        places.append((ref, [(d.id, *allowed_in_flight(d, host)) for d in disks], None))
    in_pools = context.derived(pool_disks)
    others = context.derived(controller_disks)
    for place, devices in devices_by_place(others, figures, rotational=False).items():
        ref = device_place_ref(place, devices)
        allowed = [(d.id, *device_allowed_in_flight(d, host, in_pools)) for d in devices]
        places.append((ref, allowed, device_knob(devices[0], allowed[0][2])))
    for ref, candidates, own_knob in places:
        hit = _shallow(ref, candidates, own_knob, figures, host, limits)
        if hit is not None:
            yield hit


def _shallow(
    ref: EntityRef,
    candidates: list[tuple[str, int | None, dict[str, int]]],
    own_knob: str | None,
    figures: dict[str, GroupFigures],
    host: QueueSettings,
    limits: Limits,
) -> Hit | None:
    """One place's SSDs held to fewer I/Os than `min_ssd_queue` that fill their allowance."""
    minimum = limits.number("min_ssd_queue", ref.id)
    fill_share = limits.number("fill_share", ref.id)
    shallow = []
    settings: dict[str, int] = {}
    for disk_id, most, found in candidates:
        queue = figures[disk_id].queue_per_member or 0.0
        if most is not None and most < minimum and queue >= fill_share * most:
            shallow.append((figures[disk_id], most))
            settings.update(found)
    if not shallow:
        return None
    groups = [g for g, _ in shallow]
    queue = sum(g.queue_per_member or 0.0 for g in groups) / len(groups)
    allowed = min(a for _, a in shallow)
    iops = sum(g.iops for g in groups) / len(groups)
    waits = [g.await_ms for g in groups if g.await_ms is not None]
    mean_wait = sum(waits) / len(waits) if waits else None
    recommended = int(limits.number("recommended_queue", ref.id))
    knobs = ", ".join(f"{name} = {value}" for name, value in settings.items())
    capped_by_zfs = host.zfs_cap is not None and host.zfs_cap == allowed
    facts = [Fact(name=name, value=value, unit="I/Os") for name, value in settings.items()]
    facts += [
        Fact(name="I/Os allowed per disk", value=allowed, unit="I/Os"),
        Fact(name="mean queue per disk", value=round(queue, 2), unit="I/Os"),
        Fact(name="IOPS per disk", value=round(iops, 1)),
        Fact(
            name="mean wait",
            value=None if mean_wait is None else round(mean_wait, 2),
            unit="ms",
        ),
        Fact(name="SSDs affected", value=len(shallow)),
        Fact(name="recommended", value=recommended, unit="I/Os"),
    ]
    knob = (
        f"the `zfs_vdev_*_max_active` parameters (now {allowed}; they apply to every "
        "disk of the host: keep HDD pools in mind)"
        if capped_by_zfs
        else f"`{own_knob or '/sys/block/sdX/device/queue_depth'}` (now {allowed}) on the "
        'SSDs only: a udev rule matching `ATTR{queue/rotational}=="0"` keeps it'
    )
    return Hit(
        entity=ref,
        title=(
            f"{plural(len(shallow), 'SSD')} in {ref.name} {agree(len(shallow), 'is', 'are')} "
            f"held to {allowed} I/Os each "
            f"and hold {queue:.1f}"
        ),
        evidence=[
            Evidence(
                summary=(
                    f"{ref.name}: {plural(len(shallow), 'SSD')} may hold {allowed} I/Os at once "
                    f"({knobs}) and held {queue:.1f} on average at {iops:.0f} IOPS each: "
                    f"the queue is full, so further I/Os wait outside the device while "
                    f"flash serves about {recommended} at once in parallel"
                ),
                facts=facts,
            )
        ],
        remediation=(
            f"Let each SSD hold about {recommended} I/Os: raise {knob}. Check the "
            "drive's datasheet for the queue depth it is rated at, then measure the "
            "mean wait and IOPS again."
        ),
    )


RULE = Rule(
    id="queue.ssd.too_shallow",
    title="SSD held to a queue far below what it serves well while its queue is full",
    severity=Severity.WARNING,
    needs=(Input.DISK_STATS,),
    uses=(Input.SAS, Input.BLOCK, Input.ZFS),
    derived=(breakdown, controller_disks, pool_disks),
    remediation=(
        "Let each SSD hold about 16 I/Os: its `/sys/block/sdX/device/queue_depth` (a udev "
        "rule for non-rotational disks keeps it), or the `zfs_vdev_*_max_active` parameters "
        "when ZFS is the cap."
    ),
    judge=judge,
    doc=(
        "Field case 4's rules of thumb: 1–4 concurrent I/Os for HDDs, about 16 for many "
        "flash SSDs, 30+ for RAID arrays. Flash has many dies working in parallel and no "
        "seek: a queue it is allowed to fill only a few I/Os deep leaves most of them idle, "
        "and the rest of the load waits in the block layer or ZFS's queue. It happens when "
        "the HDD setting (a `queue_depth` of 2, a low `zfs_vdev_*_max_active`) is applied "
        "to every disk of a host. The rule fires for an enclosure's non-rotational disks "
        "whose allowance (the SCSI `queue_depth`, capped by ZFS's `zfs_vdev_*_max_active`) "
        "is below `min_ssd_queue` while their measured queue (aqu-sz) fills at least "
        "`fill_share` of it on average: an SSD with a low setting but little load is not "
        "held back.\n\n"
        "Disks on any other controller are judged the same way, by controller (an AHCI "
        "controller's SATA SSDs, which NCQ switched off holds to one I/O each; an NVMe "
        "namespace by itself): their allowance is the SCSI `queue_depth`, or `nr_requests` "
        "where the device takes no queue depth (NVMe, virtio: the driver sizes the device's "
        "queues, 1023 by default, so only a lowered `nr_requests` holds them back), capped "
        "by ZFS's `zfs_vdev_*_max_active` when the disk belongs to a pool. An md array or a "
        "dm device is judged through its members' settings, never its own `nr_requests`."
    ),
    thresholds={
        "min_ssd_queue": Threshold(
            8, "An SSD allowed fewer I/Os than this at once is held far below ~16.", "I/Os"
        ),
        "fill_share": Threshold(
            0.8, "Share of the allowance the measured queue must fill to count as full."
        ),
        "recommended_queue": Threshold(16, "The queue to recommend for SSDs.", "I/Os"),
    },
    role=Role.CAUSE,
)
