"""`/proc/diskstats` and `/proc/uptime` of a simulated workload, one pair per sample.

Lines follow `diskstats_show` of Linux 5.5+ (block/genhd.c): `"%4d %7d %s "` then 17
counters — reads, reads merged, sectors read, read ms, the same four for writes, I/Os in
flight, io ms, weighted ms (the sum of read, write, discard and flush ms), four discard
counters, flushes and flush ms. Every block device of the host is listed in the order the
kernel registered it: sd disks in sdX order, each followed by its partitions; NVMe namespaces;
dm maps. Devices no load reaches keep the light use since boot of `base_counters`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from pinchpoint.simulator.discovery import KernelView
from pinchpoint.simulator.fabric import Disk
from pinchpoint.simulator.fc import DM_MAJOR, FcView
from pinchpoint.simulator.local_disks import local_disks
from pinchpoint.simulator.naming import sd_devt
from pinchpoint.simulator.nvme import BLOCK_MAJOR
from pinchpoint.simulator.spec.host import HostSpec
from pinchpoint.simulator.stacked import plan_stacked, stacked_series
from pinchpoint.simulator.tree_writer import TreeWriter
from pinchpoint.simulator.workload import Counters, WorkloadResult, base_counters
from pinchpoint.simulator.zfs import partitions, plan_pools

IDLE_SHARE = 0.9  # /proc/uptime's idle field: the CPUs' summed idle time, ~90% of each core


@dataclass(frozen=True)
class BlockDevice:
    """A line of /proc/diskstats: device numbers, name, and the device whose I/O it shows."""

    major: int
    minor: int
    name: str
    source: str | None  # the loaded device whose counters it shows (a partition: its disk)
    partition: bool = False  # a partition no load reaches stays at zero


def block_devices(spec: HostSpec, view: KernelView, fc: FcView) -> list[BlockDevice]:
    """Every block device of the simulated host, in registration order."""
    pool_disks: set[Disk] = set()
    if spec.zfs is not None:
        pool_disks = {d for plan in plan_pools(spec.zfs, view) for d in plan.disks()}
    entries: list[tuple[int, BlockDevice]] = []
    for dev in view.disk_paths():
        if dev.sd is None or dev.sd_index is None or dev.disk_port is None:
            continue
        major, minor = sd_devt(dev.sd_index)
        entries.append((dev.sd_index * 16, BlockDevice(major, minor, dev.sd, dev.sd)))
        disk = dev.disk_port.disk
        for part in disk.partitions:
            name = f"{dev.sd}{part.number}"
            device = BlockDevice(major, minor + part.number, name, None, partition=True)
            entries.append((dev.sd_index * 16 + part.number, device))
        if disk in pool_disks:
            for number, _start, _size in partitions(disk.spec.size_bytes):
                name = f"{dev.sd}{number}"
                source = dev.sd if number == 1 else None  # ZFS uses partition 1
                entries.append(
                    (
                        dev.sd_index * 16 + number,
                        BlockDevice(major, minor + number, name, source, partition=True),
                    )
                )
    for port in fc.ports:
        for path in port.luns:
            major, minor = sd_devt(path.sd_index)
            entries.append((path.sd_index * 16, BlockDevice(major, minor, path.sd, path.sd)))
    devices = [device for _order, device in sorted(entries, key=lambda item: item[0])]
    for ordinal, _ssd in enumerate(spec.nvme):
        name = f"nvme{ordinal}n1"
        devices.append(BlockDevice(BLOCK_MAJOR, ordinal, name, name))
    for found in fc.maps:
        devices.append(BlockDevice(DM_MAJOR, found.number, found.dm, found.dm))
    for local in local_disks(spec, view, fc):
        devices.append(BlockDevice(local.major, local.minor, local.name, local.name))
    for plan in plan_stacked(spec, fc):
        devices.append(BlockDevice(plan.major, plan.minor, plan.name, plan.name))
    return devices


def diskstats_line(device: BlockDevice, c: Counters) -> str:
    """One line as Linux 5.5+ prints it (no discards or flushes in this model)."""
    return (
        f"{device.major:4d} {device.minor:7d} {device.name} "
        f"{c.reads} 0 {c.sectors_read} {c.read_ms} "
        f"{c.writes} 0 {c.sectors_written} {c.write_ms} "
        f"{c.in_flight} {c.io_ms} {c.weighted_ms} "
        "0 0 0 0 0 0\n"
    )


def diskstats_text(devices: list[BlockDevice], result: WorkloadResult, sample: int) -> str:
    """/proc/diskstats at sample `sample`."""
    idle = base_counters(result.sample_times_s[0])
    lines = []
    for device in devices:
        series = result.series.get(device.source) if device.source else None
        if series is not None:
            counters = series.samples[sample]
        else:
            counters = Counters() if device.partition else idle
        lines.append(diskstats_line(device, counters))
    return "".join(lines)


def uptime_text(uptime_s: float, cpus: int = 2) -> str:
    """/proc/uptime: seconds since boot and the summed idle seconds of all CPUs."""
    return f"{uptime_s:.2f} {uptime_s * cpus * IDLE_SHARE:.2f}\n"


def write_samples(
    w: TreeWriter, spec: HostSpec, view: KernelView, fc: FcView, result: WorkloadResult
) -> None:
    """samples/<n>/proc/{diskstats,uptime} for every sample, and proc/ = the last one."""
    devices = block_devices(spec, view, fc)
    stacked = stacked_series(spec, fc, result.series, result.sample_times_s)
    result = replace(result, series=result.series | stacked)
    last = len(result.sample_times_s) - 1
    for n, uptime in enumerate(result.sample_times_s):
        stats = diskstats_text(devices, result, n).encode()
        clock = uptime_text(uptime).encode()
        w.mkdir(f"samples/{n}/proc")
        w.write(f"samples/{n}/proc/diskstats", stats)
        w.write(f"samples/{n}/proc/uptime", clock)
        if n == last:
            w.mkdir("proc")
            w.write("proc/diskstats", stats)
            w.write("proc/uptime", clock)
