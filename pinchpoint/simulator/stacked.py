"""Stacked block devices: md arrays (`[[md]]`) and device-mapper devices (`[[dm]]`: LVM volumes
and thin pools, dm-crypt) over the spec's disks or over each other.

Laid out as the kernel lays them out (the md and dm entries of procfs's fixture sysfs,
tests/fixtures/SOURCES.md), below `/sys/devices/virtual/block`:

    md0/{dev,size,queue/,slaves/sdX,holders/,md/{level,raid_disks,array_state,sync_action,
        sync_completed,degraded,uuid,metadata_version,chunk_size,dev-sdX/state,rdN -> dev-sdX}}
    dm-N/{dev,size,queue/,slaves/…,holders/,dm/{name,uuid,suspended,use_blk_mq}}

with `/sys/block/<name>` and `/sys/class/block/<name>` leading there, and each member's
`holders/<name>` pointing back. md arrays keep their spec names (major 9); dm devices are
`dm-N` after the multipath maps, in spec order (major 253). A member is named by its kernel
name (`sdm`, `nvme0n1`, `vda`, `md0`) or, for a dm device, by its dm name (`vg0-pool`); md
arrays are made before dm devices, each only over devices made before it.

Their diskstats (`stacked_series`) are their members' summed — each I/O of the device is one
I/O of one member, as a linear, striped or RAID 0 device places it — plus the device's own
`layer_ms` per I/O (a resync, the write-intent bitmap, encryption, a thin pool's allocation).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

from pinchpoint.simulator.addresses import name_hash
from pinchpoint.simulator.fc import DM_MAJOR, FcView
from pinchpoint.simulator.spec.host import HostSpec
from pinchpoint.simulator.spec.rest_of_host import DmSpec, MdSpec
from pinchpoint.simulator.tree_writer import TreeWriter
from pinchpoint.simulator.workload import Counters, DeviceSeries

SYS = "sys"
MD_MAJOR = 9
LUKS2_HEADER_SECTORS = 32768  # 16 MiB: what cryptsetup's LUKS2 header keeps off the volume
BIO_NR_REQUESTS = 128  # what a bio-based queue (md, LVM, crypt) shows in `queue/nr_requests`


@dataclass(frozen=True)
class StackedPlan:
    """One stacked device: its kernel name, numbers, spec and members' kernel names."""

    name: str  # "md0", "dm-3"
    major: int
    minor: int
    spec: MdSpec | DmSpec
    members: list[str]

    @property
    def layer_ms(self) -> float:
        return self.spec.layer_ms


def plan_stacked(spec: HostSpec, fc: FcView) -> list[StackedPlan]:
    """Every `[[md]]` then `[[dm]]`, named and numbered, members resolved to kernel names."""
    found: list[StackedPlan] = []
    dm_names: dict[str, str] = {}
    for md in spec.md:
        minor = int(md.name.removeprefix("md"))
        found.append(StackedPlan(md.name, MD_MAJOR, minor, md, list(md.members)))
    for ordinal, dm in enumerate(spec.dm):
        number = len(fc.maps) + ordinal
        members = [dm_names.get(m, m) for m in dm.members]
        found.append(StackedPlan(f"dm-{number}", DM_MAJOR, number, dm, members))
        dm_names[dm.name] = f"dm-{number}"
    return found


def _where(plan: StackedPlan, spec: HostSpec) -> str:
    if isinstance(plan.spec, MdSpec):
        return f"md[{spec.md.index(plan.spec)}]"
    return f"dm[{spec.dm.index(plan.spec)}]"


def _device_dir(w: TreeWriter, name: str) -> str | None:
    """The written directory `/sys/block/<name>` leads to, below the snapshot root."""
    link = f"{w.root}/{SYS}/block/{name}"
    if not os.path.islink(link):
        return None
    return os.path.relpath(os.path.realpath(link), os.path.realpath(w.root))


def _read_sectors(w: TreeWriter, directory: str) -> int:
    with open(f"{w.root}/{directory}/size", encoding="ascii") as f:
        return int(f.read().strip())


def _read_rotational(w: TreeWriter, directory: str) -> bool:
    with open(f"{w.root}/{directory}/queue/rotational", encoding="ascii") as f:
        return f.read().strip() == "1"


def _md_sectors(level: str, sizes: list[int]) -> int:
    """What an array of members of `sizes` holds (the smallest sets the size but linear's)."""
    n, smallest = len(sizes), min(sizes)
    data = {"raid0": n, "raid1": 1, "raid5": n - 1, "raid6": n - 2, "raid10": max(1, n // 2)}
    if level == "linear":
        return sum(sizes)
    return max(1, data[level]) * smallest


def _dm_uuid(dm: DmSpec) -> str:
    """`dm/uuid` as LVM (`LVM-<VG uuid><LV uuid>`, a pool `…-tpool`) or cryptsetup
    (`CRYPT-LUKS2-<uuid>-<name>`) write it; empty for a map made without one."""
    digits = "".join(f"{name_hash('dm-uuid', dm.name, str(i)):016x}" for i in range(4))
    if dm.kind == "lvm":
        return f"LVM-{digits}"
    if dm.kind == "thin_pool":
        return f"LVM-{digits}-tpool"
    if dm.kind == "crypt":
        return f"CRYPT-LUKS2-{digits[:32]}-{dm.name}"
    return ""


def _md_uuid(md: MdSpec) -> str:
    h = f"{name_hash('md-uuid', md.name):016x}{name_hash('md-uuid2', md.name):016x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def write_stacked(w: TreeWriter, spec: HostSpec, fc: FcView) -> None:
    """Every `[[md]]` and `[[dm]]` device, after every disk is written (members are found
    through `/sys/block`); a member the host does not have is an error naming the entry."""
    for plan in plan_stacked(spec, fc):
        where = _where(plan, spec)
        members: list[tuple[str, str]] = []
        for member in plan.members:
            directory = _device_dir(w, member)
            if directory is None:
                raise ValueError(
                    f"{where}.members: no block device {member!r} on this host (a member is a "
                    "disk's kernel name, an md array or a dm device defined before it)"
                )
            members.append((member, directory))
        path = f"{SYS}/devices/virtual/block/{plan.name}"
        sizes = [_read_sectors(w, d) for _, d in members]
        rotational = any(_read_rotational(w, d) for _, d in members)
        if isinstance(plan.spec, MdSpec):
            sectors = _md_sectors(plan.spec.level, sizes)
        elif plan.spec.kind == "crypt":
            sectors = max(1, sizes[0] - LUKS2_HEADER_SECTORS)
        else:
            sectors = sum(sizes)
        w.attrs(path, {"dev": f"{plan.major}:{plan.minor}", "size": str(sectors), "ro": "0"})
        w.attrs(
            f"{path}/queue",
            {
                "rotational": "1" if rotational else "0",
                "nr_requests": str(BIO_NR_REQUESTS),
                "scheduler": "none",
                "logical_block_size": "512",
                "physical_block_size": "4096" if rotational else "512",
            },
        )
        w.mkdir(f"{path}/holders")
        for member, directory in members:
            w.link(f"{path}/slaves/{member}", directory)
            w.link(f"{directory}/holders/{plan.name}", path)
        if isinstance(plan.spec, MdSpec):
            _write_md(w, path, plan.spec, [m for m, _ in members])
        else:
            _write_dm(w, path, plan.spec)
        w.link(f"{SYS}/block/{plan.name}", path)
        w.link(f"{SYS}/class/block/{plan.name}", path)


def _write_md(w: TreeWriter, path: str, md: MdSpec, members: list[str]) -> None:
    """`md/`: the array's level, state, resync and each member's slot and state."""
    busy = md.sync_action != "idle"
    striped = md.level in ("raid0", "raid5", "raid6", "raid10")
    w.attrs(
        f"{path}/md",
        {
            "level": md.level,
            "raid_disks": str(len(members)),
            "array_state": "active" if busy else "clean",
            "degraded": "0",
            "uuid": _md_uuid(md),
            "metadata_version": "1.2",
            "chunk_size": "524288" if striped else "0",
        },
    )
    if md.level not in ("raid0", "linear"):  # no redundancy: no resync, no sync_action
        w.attrs(
            f"{path}/md",
            {
                "sync_action": md.sync_action,
                "sync_completed": "1024 / 7813771264" if busy else "none",
            },
        )
    for slot, member in enumerate(members):
        w.attrs(f"{path}/md/dev-{member}", {"state": "in_sync", "slot": str(slot)})
        w.link(f"{path}/md/rd{slot}", f"{path}/md/dev-{member}")


def _write_dm(w: TreeWriter, path: str, dm: DmSpec) -> None:
    """`dm/`: the map's name and uuid (which says what made it), bio-based and running."""
    w.attrs(
        f"{path}/dm",
        {"name": dm.name, "uuid": _dm_uuid(dm), "suspended": "0", "use_blk_mq": "0"},
    )


def stacked_series(
    spec: HostSpec, fc: FcView, series: dict[str, DeviceSeries], uptimes_s: list[float]
) -> dict[str, DeviceSeries]:
    """Each stacked device's counters at every sample (taken at `uptimes_s`): its members'
    summed, plus `layer_ms` per I/O; none for a device none of whose members is loaded."""
    found: dict[str, DeviceSeries] = {}
    for plan in plan_stacked(spec, fc):
        below = [series.get(m) or found.get(m) for m in plan.members]
        loaded = [b for b in below if b is not None]
        if not loaded:
            continue
        samples = [
            _stacked_counters([b.samples[k] for b in loaded], plan.layer_ms)
            for k in range(len(uptimes_s))
        ]
        found[plan.name] = DeviceSeries(plan.name, _busy_within(samples, uptimes_s))
    return found


def _stacked_counters(members: list[Counters], layer_ms: float) -> Counters:
    """One sample of a stacked device from its members' at the same moment; busy while a
    member is and while the layer holds an I/O (`_busy_within` keeps that within the clock)."""
    reads = sum(c.reads for c in members)
    writes = sum(c.writes for c in members)
    return Counters(
        reads=reads,
        sectors_read=sum(c.sectors_read for c in members),
        read_ms=sum(c.read_ms for c in members) + round(layer_ms * reads),
        writes=writes,
        sectors_written=sum(c.sectors_written for c in members),
        write_ms=sum(c.write_ms for c in members) + round(layer_ms * writes),
        in_flight=sum(c.in_flight for c in members),
        io_ms=max(c.io_ms for c in members) + round(layer_ms * (reads + writes)),
    )


def _busy_within(samples: list[Counters], uptimes_s: list[float]) -> list[Counters]:
    """The samples with `io_ms` growing no faster than the clock: a device is busy at most
    all of the time, however many I/Os the layer holds at once."""
    found: list[Counters] = []
    previous: tuple[int, int, float] | None = None  # raw busy, kept busy, uptime
    for sample, uptime in zip(samples, uptimes_s, strict=True):
        raw = sample.io_ms
        if previous is None:
            kept = min(raw, round(uptime * 1000))
        else:
            before_raw, before_kept, before_uptime = previous
            kept = before_kept + min(raw - before_raw, round((uptime - before_uptime) * 1000))
        previous = (raw, kept, uptime)
        found.append(replace(sample, io_ms=kept))
    return found
