"""Queue rules: device queues too deep for disks that seek, too shallow for flash (case 4)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from pinchpoint.model.breakdown import GroupFigures, GroupLevel
from pinchpoint.model.findings import EntityKind, EntityRef, Evidence, Fact, Severity
from pinchpoint.model.histogram import merged
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.sas import Disk, Enclosure
from pinchpoint.rules.base import Hit, Input, Limits, Role, Rule, RuleContext, Threshold
from pinchpoint.rules.entities import enclosure_ref

# The ZFS parameters that cap the I/Os in flight per leaf device (any one class may fill it).
ZFS_CLASS_LIMITS = (
    "zfs_vdev_sync_read_max_active",
    "zfs_vdev_sync_write_max_active",
    "zfs_vdev_async_read_max_active",
    "zfs_vdev_async_write_max_active",
)


def zfs_allowance(inventory: Inventory) -> int | None:
    """I/Os ZFS lets one leaf device hold at once: the largest class limit, capped by
    `zfs_vdev_max_active`; old ZFS: `zfs_vdev_max_pending`. None without ZFS parameters."""
    parameters = inventory.zfs.vdev_queue_parameters
    if "zfs_vdev_max_pending" in parameters:
        return parameters["zfs_vdev_max_pending"]
    classes = [parameters[name] for name in ZFS_CLASS_LIMITS if name in parameters]
    if not classes:
        return None
    allowed = max(classes)
    if "zfs_vdev_max_active" in parameters:
        allowed = min(allowed, parameters["zfs_vdev_max_active"])
    return allowed


@dataclass(frozen=True)
class QueueSettings:
    """The settings that cap the I/Os a disk holds, looked up once per host."""

    zfs_cap: int | None  # what ZFS lets one leaf device hold; None without a pool
    zfs_parameters: dict[str, int]  # the `zfs_vdev_*` parameters behind it
    nr_requests: dict[str, int]  # the block layer's queue, by kernel device name


def queue_settings(inventory: Inventory) -> QueueSettings:
    """The host's ZFS allowance and every block device's `nr_requests`."""
    cap = zfs_allowance(inventory) if inventory.zfs.pools else None
    parameters = {}
    if cap is not None:
        parameters = {
            name: value
            for name, value in inventory.zfs.vdev_queue_parameters.items()
            if name in ZFS_CLASS_LIMITS or name in ("zfs_vdev_max_active", "zfs_vdev_max_pending")
        }
    nr_requests = {d.name: d.nr_requests for d in inventory.block.devices if d.nr_requests}
    return QueueSettings(cap, parameters, nr_requests)


def allowed_in_flight(disk: Disk, host: QueueSettings) -> tuple[int | None, dict[str, int]]:
    """What the disk may hold at once (the smallest of its SCSI queue depth and ZFS's
    allowance), and the settings it comes from."""
    settings: dict[str, int] = {}
    depths = [p.queue_depth for p in disk.paths if p.queue_depth]
    if depths:
        settings["queue_depth"] = min(depths)
    for path in disk.paths:
        requests = host.nr_requests.get(path.block_device or "")
        if requests:
            settings["nr_requests"] = requests
            break
    settings.update(host.zfs_parameters)
    limits = [settings["queue_depth"]] if depths else []
    if host.zfs_cap is not None:
        limits.append(host.zfs_cap)
    return (min(limits) if limits else None), settings


def _place_ref(place: str, disks: list[Disk], enclosures: dict[str, Enclosure]) -> EntityRef:
    """The enclosure the disks sit in; a disk outside any enclosure by its WWID."""
    enclosure = enclosures.get(place)
    if enclosure is not None:
        return enclosure_ref(enclosure)
    return EntityRef(kind=EntityKind.DISK, id=place, name=disks[0].wwid or place)


def disks_by_place(
    inventory: Inventory, figures: Mapping[str, GroupFigures], rotational: bool
) -> dict[str, list[Disk]]:
    """The measured SAS disks that spin (or not), by enclosure (a disk outside any by itself).
    A disk whose `rotational` is unknown counts as spinning: the HDD rule is the safer guess."""
    found: dict[str, list[Disk]] = {}
    for disk in inventory.sas.disks:
        spins = disk.rotational is not False
        if spins is rotational and disk.id in figures:
            found.setdefault(disk.enclosure_id or disk.id, []).append(disk)
    return found


def hdd_queue_too_deep(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Enclosures of HDDs allowed more than a few I/Os each while their latency has a tail."""
    inventory = context.inventory
    figures = {g.id: g for g in context.groups(GroupLevel.DISK)}
    host = queue_settings(inventory)
    enclosures = {e.id: e for e in inventory.sas.enclosures}
    enclosure_figures = {g.id: g for g in context.groups(GroupLevel.ENCLOSURE)}
    for place, disks in disks_by_place(inventory, figures, rotational=True).items():
        ref = _place_ref(place, disks, enclosures)
        maximum = limits.number("max_hdd_queue", ref.id)
        fill_share = limits.number("fill_share", ref.id)
        deep = []
        settings: dict[str, int] = {}
        for disk in disks:
            allowed, found = allowed_in_flight(disk, host)
            queue = figures[disk.id].queue_per_member or 0.0
            filled = allowed is not None and queue >= fill_share * allowed
            if allowed is not None and allowed > maximum and queue > maximum and filled:
                deep.append((disk, allowed))
                settings.update(found)
        if not deep:
            continue
        standing_out = enclosure_figures.get(place)
        if standing_out is not None and (standing_out.queue_vs_peers or 0.0) >= limits.number(
            "peer_queue_ratio", ref.id
        ):
            continue  # its peers with the same setting queue less: the topology is the cause
        groups = [figures[d.id] for d, _ in deep]
        histogram = merged(g.histogram for g in groups if g.histogram is not None)
        p90 = histogram.percentile_s(90.0) if not histogram.empty else None
        p99 = histogram.percentile_s(99.0) if not histogram.empty else None
        waits = [g.await_ms for g in groups if g.await_ms is not None]
        mean_wait = sum(waits) / len(waits) if waits else None
        tail_ms = limits.number("tail_p90_ms", ref.id)
        tail = p90 * 1000.0 if p90 is not None else mean_wait
        if tail is None or tail < tail_ms:
            continue
        queue = sum(g.queue_per_member or 0.0 for g in groups) / len(groups)
        allowed = max(a for _, a in deep)
        recommended = int(limits.number("recommended_queue", ref.id))
        facts = [Fact(name=name, value=value, unit="I/Os") for name, value in settings.items()]
        facts += [
            Fact(name="I/Os allowed per disk", value=allowed, unit="I/Os"),
            Fact(name="mean queue per disk", value=round(queue, 1), unit="I/Os"),
            Fact(
                name="mean wait",
                value=None if mean_wait is None else round(mean_wait, 1),
                unit="ms",
            ),
            Fact(
                name="p90 latency", value=None if p90 is None else round(p90 * 1000, 1), unit="ms"
            ),
            Fact(
                name="p99 latency", value=None if p99 is None else round(p99 * 1000, 1), unit="ms"
            ),
            Fact(name="HDDs affected", value=len(deep)),
            Fact(name="recommended", value=recommended, unit="I/Os"),
        ]
        shown = "p90" if p90 is not None else "mean wait"
        knobs = ", ".join(f"{name} = {value}" for name, value in settings.items())
        yield Hit(
            entity=ref,
            title=(
                f"{len(deep)} HDDs in {ref.name} hold {queue:.0f} I/Os each; {shown} {tail:.0f} ms"
            ),
            evidence=[
                Evidence(
                    rule="queue.hdd.too_deep",
                    summary=(
                        f"{ref.name}: {len(deep)} rotational disks may hold {allowed} I/Os at "
                        f"once ({knobs}) and held {queue:.1f} on average; each I/O waits behind "
                        f"the others inside the disk: {shown} {tail:.0f} ms where one or two at "
                        f"a time take one seek (about 10 ms)"
                    ),
                    facts=facts,
                )
            ],
            remediation=(
                f"Let each HDD hold {recommended} I/Os: with ZFS set the "
                f"`zfs_vdev_*_max_active` parameters (old ZFS: `zfs_vdev_max_pending`) to "
                f"{recommended} (`echo {recommended} > /sys/module/zfs/parameters/…`, and in "
                f"/etc/modprobe.d/zfs.conf to keep it); otherwise `echo {recommended} > "
                "/sys/block/sdX/device/queue_depth` (a udev rule keeps it). Measure p90 again: "
                "field case 4 went from 148 ms to 5–10 ms."
            ),
        )


HDD_TOO_DEEP = Rule(
    id="queue.hdd.too_deep",
    title="HDD allowed more than a few concurrent I/Os while its latency has a long tail",
    category="queue",
    severity=Severity.WARNING,
    needs=(Input.SAS, Input.DISK_STATS),
    uses=(Input.ZFS, Input.BLOCK, Input.HISTOGRAMS),
    remediation=(
        "Lower the I/Os each HDD may hold to 2: the `zfs_vdev_*_max_active` parameters with "
        "ZFS, else `/sys/block/sdX/device/queue_depth`."
    ),
    check=hdd_queue_too_deep,
    doc=(
        "Field case 4: HDDs given 35 (later 10) concurrent I/Os had a read p90 of 148 ms and "
        "outliers beyond 300 ms, against 12.5 ms with one I/O at a time; a queue of 2 brought "
        "them to 5–10 ms. A disk that seeks serves one I/O at a time: a deeper queue buys a "
        "little reordering and makes every I/O wait behind the others. Rules of thumb: 1–4 "
        "for HDDs (2 is good), about 16 for flash SSDs, 30+ for RAID arrays. The rule fires "
        "for an enclosure's rotational disks whose allowance (the SCSI `queue_depth`, capped "
        "by ZFS's `zfs_vdev_*_max_active`) is above the maximum and half filled on average "
        "(a queue built by a missing path is not this rule's) "
        "while their p90 latency (or mean wait, without histograms) is above the tail limit."
    ),
    thresholds={
        "max_hdd_queue": Threshold(4, "Most I/Os an HDD should hold at once.", "I/Os"),
        "tail_p90_ms": Threshold(50.0, "p90 latency (or mean wait) that makes a long tail.", "ms"),
        "fill_share": Threshold(
            0.5, "Share of the allowance the measured queue must fill (else another cause)."
        ),
        "peer_queue_ratio": Threshold(
            1.5,
            "An enclosure queuing this many times its peers' median is left to "
            "latency.group.outlier: the setting is the same for all, the topology differs.",
        ),
        "recommended_queue": Threshold(2, "The queue to recommend for HDDs.", "I/Os"),
    },
    role=Role.CAUSE,
)


def ssd_queue_too_shallow(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Enclosures of SSDs held to a few I/Os each while they hold all they are allowed."""
    inventory = context.inventory
    figures = {g.id: g for g in context.groups(GroupLevel.DISK)}
    host = queue_settings(inventory)
    enclosures = {e.id: e for e in inventory.sas.enclosures}
    for place, disks in disks_by_place(inventory, figures, rotational=False).items():
        ref = _place_ref(place, disks, enclosures)
        minimum = limits.number("min_ssd_queue", ref.id)
        fill_share = limits.number("fill_share", ref.id)
        shallow = []
        settings: dict[str, int] = {}
        for disk in disks:
            allowed, found = allowed_in_flight(disk, host)
            queue = figures[disk.id].queue_per_member or 0.0
            if allowed is not None and allowed < minimum and queue >= fill_share * allowed:
                shallow.append((figures[disk.id], allowed))
                settings.update(found)
        if not shallow:
            continue
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
            else f"`/sys/block/sdX/device/queue_depth` (now {allowed}) on the SSDs only: a udev "
            'rule matching `ATTR{queue/rotational}=="0"` keeps it'
        )
        yield Hit(
            entity=ref,
            title=(
                f"{len(shallow)} SSDs in {ref.name} are held to {allowed} I/Os each "
                f"and hold {queue:.1f}"
            ),
            evidence=[
                Evidence(
                    rule="queue.ssd.too_shallow",
                    summary=(
                        f"{ref.name}: {len(shallow)} SSDs may hold {allowed} I/Os at once "
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


SSD_TOO_SHALLOW = Rule(
    id="queue.ssd.too_shallow",
    title="SSD held to a queue far below what it serves well while its queue is full",
    category="queue",
    severity=Severity.WARNING,
    needs=(Input.SAS, Input.DISK_STATS),
    uses=(Input.ZFS, Input.BLOCK),
    remediation=(
        "Let each SSD hold about 16 I/Os: its `/sys/block/sdX/device/queue_depth` (a udev "
        "rule for non-rotational disks keeps it), or the `zfs_vdev_*_max_active` parameters "
        "when ZFS is the cap."
    ),
    check=ssd_queue_too_shallow,
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
        "held back. NVMe namespaces (whose queues the driver sizes, 1023 by default) are "
        "not judged."
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

RULES: tuple[Rule, ...] = (HDD_TOO_DEEP, SSD_TOO_SHALLOW)
