"""A simulated workload whose queues and latencies follow the topology (docs/simulator-workload.md).

Every loaded device (a disk, or an FC LU) is one FIFO server. Its I/Os arrive in bursts of
`burst` at random (Poisson) times; each takes the device's own time (HDD seek and rotation,
shortened by reordering when several are queued; media transfer; an array's time for a LUN)
plus the time to carry its data over the links it crosses. A link is the HBA wide port (or FC
port) its path starts at: during the bursts that build the queues every device behind a port
is busy, so the port's usable bandwidth is split evenly among them, and a device with two
paths adds both shares. So a JBOD with one path gets half the bandwidth of its dual-pathed
peers, and a chain of four shares a port among twice as many disks as a chain of two.

How many of a device's I/Os the block layer holds is capped: a ZFS pool issues at most the
class's `zfs_vdev_*_max_active` (and the device's `queue_depth`); the rest wait in ZFS's queue
and show only in `zpool iostat -w` (syncq/asyncq wait). The waiting is simulated exactly
(Lindley's recursion) for one device per class of identical devices; each device reads the
class's timeline from its own seeded offset, so counters differ per disk but stay consistent.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_left
from dataclasses import dataclass, field
from itertools import accumulate

from pinchpoint.simulator.discovery import KernelView, ScsiDeviceView
from pinchpoint.simulator.fabric import Disk
from pinchpoint.simulator.fc import FcView, LunPathView
from pinchpoint.simulator.local_disks import local_disks
from pinchpoint.simulator.spec.host import HostSpec
from pinchpoint.simulator.spec.workload import LoadSpec, WorkloadSpec
from pinchpoint.simulator.zfs import DEFAULT_PARAMETERS, plan_pools

SECTOR = 512
NS_PER_MS = 1_000_000
NS_PER_S = 1_000_000_000
GAMMA_SHAPE = 4  # service-time spread: a gamma of shape 4 has p90 ≈ 1.67 × its mean
ZFS_BUCKETS = 37  # zpool iostat -w: bucket j holds [2^j, 2^(j+1)) ns
IDLE_IOPS_SINCE_BOOT = 2.0  # the base counters: light use before the workload began
IDLE_MS_PER_IO = 5


def lane_mbps(rate_gbps: float) -> float:
    """Raw data rate of one SAS lane in MB/s: 8b/10b up to 12 Gbit, 128b/150b at 22.5."""
    if rate_gbps <= 12.0:
        return rate_gbps * 100.0
    return rate_gbps * 1000.0 * 128 / 150 / 8


@dataclass
class PortLink:
    """An HBA wide port or FC port: its usable bandwidth and the devices that use it."""

    key: str
    usable_mbps: float
    users: set[str] = field(default_factory=set)

    def share_mbps(self) -> float:
        """What one device gets while every user of the port is busy."""
        return self.usable_mbps / max(1, len(self.users))


@dataclass
class Target:
    """One simulated queue: a disk or an FC LU, the block devices its I/O shows on, the links."""

    name: str
    load: LoadSpec
    paths: list[str]  # sdX in round-robin order (only the first one for path_policy "first")
    ports: list[PortLink]
    top_device: str | None = None  # dm-N of a multipath map: sees every I/O of the LU
    path_cap: int | None = None  # per-path limit below a dm map (the LUN queue depth)
    disk: Disk | None = None
    rotational: bool = False
    ssd: bool = False
    cap: int | None = None  # I/Os the block layer holds at most (ZFS max_active, queue depth)
    pool: str | None = None
    rate_iops: float = 0.0
    local: bool = False  # a disk off the SAS fabric (AHCI, NVMe, virtio): no link is modelled
    device_queue: int | None = None  # what the device itself takes at once (NCQ), if not `cap`
    factor: float = 1.0  # the device's own time per I/O × this (a slow or failing disk)

    def transfer_ms(self) -> float:
        """Time to carry one I/O's data over the summed shares of the ports it uses."""
        share = sum(p.share_mbps() for p in self.ports)
        if share <= 0:
            return 0.0
        return self.load.io_kib * 1024 / (share * 1_000_000) * 1000

    def device_ms(self, w: WorkloadSpec) -> float:
        """The device's own mean time per I/O, links excluded."""
        size_mb = self.load.io_kib * 1024 / 1_000_000
        if self.disk is None and not self.local:
            return w.lun_ms
        if self.ssd:
            return (w.ssd_ms + size_mb / w.ssd_mbps * 1000) * self.factor
        media = size_mb / w.hdd_mbps * 1000
        if self.load.pattern == "sequential":
            return (w.hdd_sequential_ms + media) * self.factor
        queued = self.device_queue or self.cap or 1
        seek = w.hdd_random_ms / (1 + w.ncq_gain * math.log2(max(1, queued)))
        return (seek + media) * self.factor

    def mean_service_ms(self, w: WorkloadSpec) -> float:
        return self.device_ms(w) + self.transfer_ms()

    def class_key(self, w: WorkloadSpec) -> tuple[object, ...]:
        """Targets with equal keys behave identically and share one simulated timeline."""
        return (
            id(self.load),
            round(self.mean_service_ms(w), 9),
            round(self.transfer_ms(), 9),
            self.cap,
            self.device_queue,
            self.factor,
            self.path_cap,
            len(self.paths),
            self.rate_iops,
        )


@dataclass
class Timeline:
    """The simulated I/Os of one class of targets, in arrival (= completion) order.

    Times in ns from the start of the simulation. `issue` is when an I/O entered the block
    layer (after waiting in ZFS's queue, if capped), `start` when the device began it.
    """

    arrival: list[int]
    issue: list[int]
    start: list[int]
    done: list[int]
    is_read: list[bool]
    path_issue: list[int]  # entry into the path's queue below a dm map (= issue without one)
    length_ns: int


def simulate_class(target: Target, w: WorkloadSpec, length_ns: int, rng: random.Random) -> Timeline:
    """Run one device of a class for `length_ns`: batch Poisson arrivals, FIFO service."""
    load = target.load
    rate = target.rate_iops
    arrival: list[int] = []
    if rate > 0:
        batch_rate = rate / load.burst
        t = 0.0
        while True:
            t += rng.expovariate(batch_rate)
            if t * NS_PER_S >= length_ns:
                break
            arrival.extend([int(t * NS_PER_S)] * load.burst)
    device = target.device_ms(w)
    transfer = target.transfer_ms()
    scale = device / GAMMA_SHAPE
    is_read = [rng.random() < load.read_share for _ in arrival]
    start: list[int] = []
    done: list[int] = []
    issue: list[int] = []
    path_issue: list[int] = []
    cap = target.cap
    paths = max(1, len(target.paths))
    previous = 0
    for n, a in enumerate(arrival):
        service_ms = rng.gammavariate(GAMMA_SHAPE, scale) + transfer
        begin = max(a, previous)
        end = begin + int(service_ms * NS_PER_MS)
        start.append(begin)
        done.append(end)
        previous = end
        entered = a if cap is None or n < cap else max(a, done[n - cap])
        issue.append(entered)
        if target.path_cap is not None:
            back = target.path_cap * paths
            path_issue.append(entered if n < back else max(entered, done[n - back]))
        else:
            path_issue.append(entered)
    return Timeline(arrival, issue, start, done, is_read, path_issue, length_ns)


@dataclass
class Counters:
    """One block device's diskstats counters at one moment (times in ms, sizes in sectors)."""

    reads: int = 0
    sectors_read: int = 0
    read_ms: int = 0
    writes: int = 0
    sectors_written: int = 0
    write_ms: int = 0
    in_flight: int = 0
    io_ms: int = 0

    @property
    def weighted_ms(self) -> int:
        """time_in_queue: since Linux 5.0 the sum of every completed I/O's time."""
        return self.read_ms + self.write_ms


@dataclass
class DeviceSeries:
    """A block device's counters at every sample time."""

    device: str
    samples: list[Counters]


@dataclass
class LeafHistograms:
    """`zpool iostat -w` columns of one leaf disk: counts per power-of-two ns bucket."""

    columns: dict[str, list[int]]


HISTOGRAM_COLUMNS = (
    "total_wait/read",
    "total_wait/write",
    "disk_wait/read",
    "disk_wait/write",
    "syncq_wait/read",
    "syncq_wait/write",
    "asyncq_wait/read",
    "asyncq_wait/write",
    "scrub_wait",
    "trim_wait",
    "rebuild_wait",
)


@dataclass
class RecordedIos:
    """One block device's I/Os completed in the sampled window, as the kernel recorder would
    time them (`record_latency`): per I/O, whether it read, its time queued in the block layer
    before issue, its time on the device and its whole time, in ns; and its size in bytes."""

    io_bytes: int
    ios: list[tuple[bool, int, int, int]] = field(default_factory=list)


@dataclass
class WorkloadResult:
    """What the workload writes: each loaded block device's series and ZFS leaf histograms
    (and, with `record_latency`, the I/Os of the window)."""

    sample_times_s: list[float]
    series: dict[str, DeviceSeries]
    leaf_histograms: dict[Disk, LeafHistograms]
    targets: list[Target]
    recorded: dict[str, RecordedIos] = field(default_factory=dict)
    window_ns: int = 0  # the sampled window's length


def _zfs_cap(spec: HostSpec, load: LoadSpec, queue_depth: int) -> int:
    """What ZFS lets into the block layer for a pool disk under this load."""
    params = DEFAULT_PARAMETERS | (spec.zfs.parameters if spec.zfs else {})
    caps = []
    if load.read_share > 0:
        kind = "sync_read" if load.sync_reads else "async_read"
        caps.append(params[f"zfs_vdev_{kind}_max_active"])
    if load.read_share < 1:
        caps.append(params["zfs_vdev_async_write_max_active"])
    return max(1, min(min(caps), params["zfs_vdev_max_active"], queue_depth))


def _sas_port_key(dev: ScsiDeviceView) -> tuple[str, float]:
    """The HBA port a SAS path starts at, and that port's raw bandwidth in MB/s."""
    host = dev.host
    for port in host.ports:
        if dev.path.startswith(port.path + "/"):
            raw = sum(lane_mbps(p.rate) for p in port.phys if p.rate)
            return f"{host.name}/{port.name}", raw
    raw = sum(lane_mbps(r) for r in host.hba.rates if r)
    return host.name, raw


def build_targets(spec: HostSpec, view: KernelView, fc: FcView) -> list[Target]:
    """Every loaded disk or LU of the spec's loads, with the ports each one's paths use."""
    w = spec.workload
    if w is None:
        return []
    paths_of: dict[Disk, list[ScsiDeviceView]] = {}
    for dev in view.disk_paths():
        if dev.disk_port is not None and dev.sd is not None:
            paths_of.setdefault(dev.disk_port.disk, []).append(dev)
    pool_disks: dict[str, list[Disk]] = {}
    if spec.zfs is not None:
        for plan in plan_pools(spec.zfs, view):
            pool_disks[plan.spec.name] = [d for group in plan.data for d in group]
    ports: dict[str, PortLink] = {}
    targets: list[Target] = []
    taken: set[object] = set()
    for load in w.load:
        if load.luns:
            targets.extend(_lun_targets(spec, w, fc, load, ports, taken))
            continue
        if load.devices is not None:
            targets.extend(_local_targets(spec, view, fc, load, taken))
            continue
        if load.pool is not None:
            disks = pool_disks.get(load.pool, [])
        else:
            names = set(load.enclosures or [])
            disks = [d for e in view.fabric.enclosures if e.name in names for d in e.disks.values()]
        for disk in disks:
            found = sorted(paths_of.get(disk, []), key=lambda d: d.sd_index or 0)
            if not found or disk in taken:
                continue
            taken.add(disk)
            if w.path_policy == "first":
                found = found[:1]
            links = []
            for dev in found:
                key, raw = _sas_port_key(dev)
                link = ports.setdefault(key, PortLink(key, raw * w.sas_link_efficiency))
                link.users.add(disk.serial)
                if link not in links:
                    links.append(link)
            depth = disk.spec.scsi_queue_depth
            cap = _zfs_cap(spec, load, depth) if load.pool is not None else None
            targets.append(
                Target(
                    name=f"{disk.enclosure.name} bay {disk.bay}",
                    load=load,
                    paths=[d.sd for d in found if d.sd is not None],
                    ports=links,
                    disk=disk,
                    rotational=disk.spec.rotational,
                    ssd=not disk.spec.rotational,
                    cap=cap,
                    pool=load.pool,
                )
            )
    _set_rates(w, targets)
    return targets


def _local_targets(
    spec: HostSpec, view: KernelView, fc: FcView, load: LoadSpec, taken: set[object]
) -> list[Target]:
    """Disks off the SAS fabric named by kernel name: AHCI and virtio disks, NVMe namespaces.
    Each holds at most its `nr_requests`; an AHCI disk serves its NCQ depth at once."""
    known: dict[str, tuple[bool, int | None, int, float]] = {
        d.name: (d.rotational, d.queue_depth, d.nr_requests, d.service_factor)
        for d in local_disks(spec, view, fc)
    }
    for ordinal, ssd in enumerate(spec.nvme):
        known[f"nvme{ordinal}n1"] = (False, None, ssd.nr_requests, ssd.service_factor)
    targets = []
    for name in load.devices or []:
        if name not in known:
            raise ValueError(
                f"workload.load.devices: no disk {name!r} off the SAS fabric; this host has "
                f"{', '.join(known) or 'none'}"
            )
        if name in taken:
            continue
        taken.add(name)
        rotational, depth, requests, factor = known[name]
        targets.append(
            Target(
                name=name,
                load=load,
                paths=[name],
                ports=[],
                rotational=rotational,
                ssd=not rotational,
                cap=requests,
                local=True,
                device_queue=depth,
                factor=factor,
            )
        )
    return targets


def _lun_targets(
    spec: HostSpec,
    w: WorkloadSpec,
    fc: FcView,
    load: LoadSpec,
    ports: dict[str, PortLink],
    taken: set[object],
) -> list[Target]:
    """Each FC LU: through its multipath map when it has one, else through its single path."""
    targets = []
    mapped = {m.identity.wwid for m in fc.maps}
    groups: list[tuple[str, str | None, list[LunPathView]]] = []
    for found in fc.maps:
        # a path down carries nothing; a map with no path left does no I/O at all
        groups.append((found.name, found.dm, [p for p in found.paths if p.working]))
    for port in fc.ports:
        for path in port.luns:
            if path.identity.wwid not in mapped:
                groups.append((path.sd, None, [path]))
    for name, dm, paths in groups:
        if name in taken or not paths:
            continue
        taken.add(name)
        links = []
        sds = []
        depth = None
        for path in paths:
            view_port = path.port
            key = view_port.host
            usable = view_port.spec.speed_gbps * 100.0 * w.fc_link_efficiency
            link = ports.setdefault(key, PortLink(key, usable))
            link.users.add(name)
            if link not in links:
                links.append(link)
            sds.append(path.sd)
            depth = path.queue_depth
        if w.path_policy == "first" and dm is None:
            sds = sds[:1]
        targets.append(
            Target(
                name=name,
                load=load,
                paths=sds,
                ports=links,
                top_device=dm,
                path_cap=depth if dm is not None else None,
                cap=None if dm is not None else depth,
            )
        )
    return targets


def _set_rates(w: WorkloadSpec, targets: list[Target]) -> None:
    """The rate each target runs at: offered, cut to what it can sustain, evened per load."""
    for target in targets:
        sustainable = w.max_utilisation / (target.mean_service_ms(w) / 1000)
        target.rate_iops = min(target.load.offered_iops, sustainable)
    for load in {id(t.load): t.load for t in targets}.values():
        members = [t for t in targets if t.load is load]
        if load.even and members:
            slowest = min(t.rate_iops for t in members)
            for target in members:
                target.rate_iops = slowest


def _cumulative(values: list[int]) -> list[int]:
    return [0, *accumulate(values)]


@dataclass
class _Prefix:
    """Running sums over a class timeline, so any window's counters are two look-ups."""

    reads: list[int]
    read_sectors: list[int]
    read_ns: list[int]
    writes: list[int]
    write_sectors: list[int]
    write_ns: list[int]
    busy_ns: list[int]


def _prefix(line: Timeline, sectors: int, issue: list[int], which: list[bool]) -> _Prefix:
    """Sums over the I/Os selected by `which` (a path's share), latency from `issue`."""
    reads = [int(r and s) for r, s in zip(line.is_read, which, strict=True)]
    writes = [int((not r) and s) for r, s in zip(line.is_read, which, strict=True)]
    latency = [d - i for d, i in zip(line.done, issue, strict=True)]
    read_ns = [lat * r for lat, r in zip(latency, reads, strict=True)]
    write_ns = [lat * x for lat, x in zip(latency, writes, strict=True)]
    busy = [d - s for d, s in zip(line.done, line.start, strict=True)]
    return _Prefix(
        _cumulative(reads),
        _cumulative([r * sectors for r in reads]),
        _cumulative(read_ns),
        _cumulative(writes),
        _cumulative([x * sectors for x in writes]),
        _cumulative(write_ns),
        _cumulative(busy),
    )


def _counters_at(
    line: Timeline, prefix: _Prefix, issue: list[int], which: list[bool], t: int, origin: int
) -> Counters:
    """Counters accumulated from `origin` to `t` (ns on the class timeline)."""
    first = bisect_left(line.done, origin)
    last = bisect_left(line.done, t)
    entered = bisect_left(issue, t)
    in_flight = sum(1 for n in range(last, entered) if which[n])
    busy = prefix.busy_ns[last] - prefix.busy_ns[first]
    if last < len(line.start) and line.start[last] < t:
        busy += t - max(line.start[last], origin)
    busy = min(busy, t - origin)
    return Counters(
        reads=prefix.reads[last] - prefix.reads[first],
        sectors_read=prefix.read_sectors[last] - prefix.read_sectors[first],
        read_ms=(prefix.read_ns[last] - prefix.read_ns[first]) // NS_PER_MS,
        writes=prefix.writes[last] - prefix.writes[first],
        sectors_written=prefix.write_sectors[last] - prefix.write_sectors[first],
        write_ms=(prefix.write_ns[last] - prefix.write_ns[first]) // NS_PER_MS,
        in_flight=in_flight,
        io_ms=busy // NS_PER_MS,
    )


def base_counters(uptime_s: float, io_kib: int = 4) -> Counters:
    """The counters of light use since boot, before the workload: every device starts here."""
    ios = int(uptime_s * IDLE_IOPS_SINCE_BOOT)
    reads = ios // 2
    writes = ios - reads
    sectors = io_kib * 1024 // SECTOR
    return Counters(
        reads=reads,
        sectors_read=reads * sectors,
        read_ms=reads * IDLE_MS_PER_IO,
        writes=writes,
        sectors_written=writes * sectors,
        write_ms=writes * IDLE_MS_PER_IO,
        in_flight=0,
        io_ms=ios * IDLE_MS_PER_IO,
    )


def _add(base: Counters, extra: Counters) -> Counters:
    return Counters(
        reads=base.reads + extra.reads,
        sectors_read=base.sectors_read + extra.sectors_read,
        read_ms=base.read_ms + extra.read_ms,
        writes=base.writes + extra.writes,
        sectors_written=base.sectors_written + extra.sectors_written,
        write_ms=base.write_ms + extra.write_ms,
        in_flight=extra.in_flight,
        io_ms=base.io_ms + extra.io_ms,
    )


def _zfs_bucket(value_ns: int) -> int:
    """The `zpool iostat -w` bucket of a latency: highbit(value) - 1, clamped to 0..36."""
    if value_ns <= 0:
        return 0
    return min(ZFS_BUCKETS - 1, value_ns.bit_length() - 1)


def _histogram_positions(line: Timeline, sync_reads: bool) -> dict[str, dict[int, list[int]]]:
    """Per column and bucket, the positions (in completion order) of the I/Os that fall in it,
    so a window's count is two bisections."""
    columns: dict[str, dict[int, list[int]]] = {}
    for n in range(len(line.done)):
        op = "read" if line.is_read[n] else "write"
        queue = "syncq" if (line.is_read[n] and sync_reads) else "asyncq"
        values = {
            f"total_wait/{op}": line.done[n] - line.arrival[n],
            f"disk_wait/{op}": line.done[n] - line.issue[n],
            f"{queue}_wait/{op}": line.issue[n] - line.arrival[n],
        }
        for column, value in values.items():
            columns.setdefault(column, {}).setdefault(_zfs_bucket(value), []).append(n)
    return columns


def _window_histograms(
    positions: dict[str, dict[int, list[int]]], first: int, last: int
) -> LeafHistograms:
    """Every column's bucket counts for the I/Os first..last-1 of a class timeline."""
    columns = {}
    for column in HISTOGRAM_COLUMNS:
        counts = [0] * ZFS_BUCKETS
        for bucket, where in positions.get(column, {}).items():
            counts[bucket] = bisect_left(where, last) - bisect_left(where, first)
        columns[column] = counts
    return LeafHistograms(columns)


def _recorded_ios(
    line: Timeline, which: list[bool], entered: list[int], issued: list[int], window: range
) -> list[tuple[bool, int, int, int]]:
    """The I/Os of `window` (positions in completion order) that `which` sends to a device,
    entering its queue at `entered` and issued to it at `issued`."""
    return [
        (
            line.is_read[n],
            issued[n] - entered[n],
            line.done[n] - issued[n],
            line.done[n] - entered[n],
        )
        for n in window
        if which[n]
    ]


def run_workload(spec: HostSpec, view: KernelView, fc: FcView) -> WorkloadResult | None:
    """Simulate the spec's workload: every loaded device's counters at each sample time and
    the ZFS leaves' latency histograms over the sampled window. None without `[workload]`."""
    w = spec.workload
    if w is None:
        return None
    targets = build_targets(spec, view, fc)
    duration_ns = round((w.samples - 1) * w.interval_s * NS_PER_S)
    warmup_ns = max(duration_ns // 4, 10 * NS_PER_S)
    length_ns = warmup_ns + 2 * duration_ns + NS_PER_S
    times = [w.start_uptime_s + k * w.interval_s for k in range(w.samples)]
    timelines: dict[tuple[object, ...], tuple[Timeline, dict[str, dict[int, list[int]]]]] = {}
    rng = random.Random(w.seed)
    series: dict[str, DeviceSeries] = {}
    histograms: dict[Disk, LeafHistograms] = {}
    cached: dict[tuple[object, ...], tuple[list[bool], _Prefix]] = {}
    recorded: dict[str, RecordedIos] = {}
    for target in targets:
        key = target.class_key(w)
        if key not in timelines:
            line = simulate_class(target, w, length_ns, random.Random(f"{w.seed}/{len(timelines)}"))
            prefixes = _histogram_positions(line, target.load.sync_reads) if target.pool else {}
            timelines[key] = (line, prefixes)
        line, prefixes = timelines[key]
        offset = warmup_ns + int(rng.random() * duration_ns)
        sample_ns = [offset + round(k * w.interval_s * NS_PER_S) for k in range(w.samples)]
        sectors = target.load.io_kib * 1024 // SECTOR
        base = base_counters(w.start_uptime_s)
        count = len(line.done)
        paths = len(target.paths)
        devices: list[tuple[str, int | None, list[int]]] = []  # device, path index, entry
        if target.top_device is not None:
            devices.append((target.top_device, None, line.issue))
            devices.extend((sd, p, line.path_issue) for p, sd in enumerate(target.paths))
        else:
            devices.extend((sd, p, line.issue) for p, sd in enumerate(target.paths))
        window = range(bisect_left(line.done, sample_ns[0]), bisect_left(line.done, sample_ns[-1]))
        for device, path_index, issue in devices:
            prefix_key = (*key, path_index, issue is line.path_issue)
            if prefix_key not in cached:
                if path_index is None:
                    which = [True] * count
                else:
                    which = [n % paths == path_index for n in range(count)]
                cached[prefix_key] = (which, _prefix(line, sectors, issue, which))
            which, prefix = cached[prefix_key]
            samples = [
                _add(base, _counters_at(line, prefix, issue, which, t, sample_ns[0]))
                for t in sample_ns
            ]
            series[device] = DeviceSeries(device, samples)
            if w.record_latency:
                # a map's paths receive its I/Os when it issues them; else they arrive
                entered = line.issue if issue is line.path_issue else line.arrival
                ios = _recorded_ios(line, which, entered, issue, window)
                recorded[device] = RecordedIos(target.load.io_kib * 1024, ios)
        if target.disk is not None and prefixes:
            first = bisect_left(line.done, sample_ns[0])
            last = bisect_left(line.done, sample_ns[-1])
            histograms[target.disk] = _window_histograms(prefixes, first, last)
    return WorkloadResult(times, series, histograms, targets, recorded, duration_ns)
