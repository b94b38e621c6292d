"""Disk health: `smartctl -x -j /dev/<dev>` for every disk, a bounded number at a time.

Which disks: `health_devices` lists the candidates in `/sys/block` (SCSI disks `sdX`, one path
per LU; NVMe controllers `nvmeX`). `collect_health` runs smartctl on each, with a timeout each,
and never raises: a missing tool, a hung drive, garbage output, a disk behind a RAID
controller each become one problem ("not collected: why") and the other disks stand.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed

from pinchpoint.checks.collect.collector import Collector, Progress, guarded
from pinchpoint.checks.parse.smart_json import (
    SmartctlParseError,
    health_from_report,
    load_smartctl_json,
    smartctl_version,
    why_no_health,
)
from pinchpoint.checks.source import Source
from pinchpoint.checks.source.commands import Command, CommandResult, CommandStatus
from pinchpoint.checks.source.sysfs import ProblemLog, SysfsReader
from pinchpoint.model.health import DiskHealth, DiskHealthInventory
from pinchpoint.model.ids import disk_id
from pinchpoint.model.inventory import Inventory, SourceKind
from pinchpoint.model.problems import ProblemKind

__all__ = ["COLLECTOR", "collect_health", "health_devices", "read_health", "smartctl_command"]

PART = "health"
SMARTCTL_TIMEOUT_S = 60.0
# A `smartctl -x -j` report is 4-300 kB (an NVMe drive's full logs are the largest): 16 MiB is
# fifty times that, and 8 runs at a time keep at most 128 MiB. The check's tool budget bounds
# them all together (`pinchpoint.checks.source.budget`).
SMARTCTL_MAX_OUTPUT_BYTES = 16 * 1024 * 1024
DEFAULT_MAX_WORKERS = 8

DiskProgress = Callable[[int, int], None]  # (done, total), called as each disk finishes

# `sda`, `sdab`: a SCSI disk (SAS, SATA behind libata or a SAS HBA, USB, iSCSI, FC LUN).
_SCSI_DISK = re.compile(r"^sd[a-z]+$")
# `nvme0n1` (namespace 1 of controller 0) and `nvme1c1n1` (a path of a multipath namespace):
# smartctl asks the controller.
_NVME_NAMESPACE = re.compile(r"^nvme(\d+)(?:c(\d+))?n\d+$")
# `nvme0`: an NVMe controller in /sys/class/nvme.
_NVME_CONTROLLER = re.compile(r"^nvme\d+$")
# `sda`, `sdab`, `nvme10`: a name split into letters and a number, for natural order.
_NAME_ORDER = re.compile(r"^([a-z]+?)(\d*)$")
# First line of pre-7.0 smartctl facing `-j`: `=======> UNRECOGNIZED OPTION: j`.
_OLD_SMARTCTL = re.compile(r"UNRECOGNIZED OPTION", re.IGNORECASE)


def smartctl_command(device: str, timeout_s: float = SMARTCTL_TIMEOUT_S) -> Command:
    """`smartctl -x -j /dev/<device>`, kept as `commands/smartctl/<device>.json`."""
    return Command(
        argv=("smartctl", "-x", "-j", f"/dev/{device}"),
        key=f"smartctl/{device}.json",
        timeout_s=timeout_s,
        max_output_bytes=SMARTCTL_MAX_OUTPUT_BYTES,
    )


def _natural(name: str) -> tuple[int, str, int]:
    """`sdb` before `sdaa`, `nvme2` before `nvme10`."""
    match = _NAME_ORDER.match(name)
    if not match:
        return (len(name), name, 0)
    letters, digits = match.groups()
    return (len(letters), letters, int(digits) if digits else -1)


def health_devices(
    source: Source, log: ProblemLog | None = None, wwids: Mapping[str, str | None] | None = None
) -> list[str]:
    """Device names smartctl should be asked about: `sdX` (one per LU) and `nvmeX` controllers.

    Partitions, device-mapper, md, loop, zram, optical (`sr`) and other virtual devices are
    left out. A disk seen through two paths (two `sdX`, one `wwid`) is asked once, through
    its first path; `wwids` (name -> wwid, from the block inventory) spares reading them again.
    NVMe controllers come from /sys/class/nvme when present (a multipath
    namespace `nvme0n1` may sit on controller `nvme1`), else from the namespace names.
    """
    read = SysfsReader(source, PART, log or ProblemLog())
    names = read.entries("/sys/block")
    scsi: list[str] = []
    seen_wwids: set[str] = set()
    for name in sorted((n for n in names if _SCSI_DISK.match(n)), key=_natural):
        wwid = wwids.get(name) if wwids else read.value(f"/sys/block/{name}/device/wwid")
        if wwid is not None:
            if wwid in seen_wwids:
                continue
            seen_wwids.add(wwid)
        scsi.append(name)
    controllers = {n for n in read.entries("/sys/class/nvme") if _NVME_CONTROLLER.match(n)}
    if not controllers:
        for name in names:
            match = _NVME_NAMESPACE.match(name)
            if match:
                controllers.add(f"nvme{match.group(2) or match.group(1)}")
    return scsi + sorted(controllers, key=_natural)


def _run_all(
    source: Source,
    commands: Sequence[Command],
    max_workers: int,
    progress: DiskProgress | None,
) -> list[CommandResult]:
    """Results in the order given, at most `max_workers` at once, reporting each as it ends."""
    if progress is None:
        return source.run_all(commands, max_workers=max_workers)
    total = len(commands)
    results: list[CommandResult | None] = [None] * total
    progress(0, total)
    with ThreadPoolExecutor(max_workers=max(1, max_workers)) as pool:
        pending = {pool.submit(source.run, c): i for i, c in enumerate(commands)}
        for done, future in enumerate(as_completed(pending), start=1):
            results[pending[future]] = future.result()
            progress(done, total)  # called in the caller's thread: safe for a progress bar
    return [r for r in results if r is not None]


def _not_collected(device: str, reason: str) -> DiskHealth:
    return DiskHealth(
        id=disk_id(f"device:{device}"),
        device=device,
        collected=False,
        not_collected_reason=reason,
    )


class _Reader:
    """Turns each smartctl result into `DiskHealth`, recording what could not be had."""

    def __init__(self, log: ProblemLog) -> None:
        self.log = log
        self.version: str | None = None

    def note(self, command: Command, kind: ProblemKind, reason: str) -> None:
        self.log.add(PART, command.line, kind, reason)

    def failed_run(self, device: str, result: CommandResult) -> DiskHealth:
        """No output to read: the tool is missing, timed out, or failed silently."""
        reason = f"SMART not collected: {result.reason()}"
        self.note(result.command, result.problem_kind, reason)
        return _not_collected(device, reason)

    def unparsable(self, device: str, result: CommandResult, err: SmartctlParseError) -> DiskHealth:
        if result.status is CommandStatus.FAILED and _OLD_SMARTCTL.search(result.stdout):
            kind = ProblemKind.FAILED
            reason = (
                "SMART not collected: this smartctl does not know `-j` (JSON output needs "
                "smartmontools 7.0 or later)"
            )
        else:
            kind, reason = ProblemKind.GARBLED, f"SMART not collected: {err.problem}"
        self.note(result.command, kind, reason)
        return _not_collected(device, reason)

    def disk(self, device: str, result: CommandResult) -> DiskHealth:
        """A non-zero exit with a JSON report is not a failure: the report is read. A run that
        was stopped, cut short or not started leaves nothing to read."""
        ran = result.status in (CommandStatus.OK, CommandStatus.FAILED)
        if not ran or (not result.stdout.strip() and not result.ok):
            return self.failed_run(device, result)
        try:
            report = load_smartctl_json(result.stdout, device)
        except SmartctlParseError as err:
            return self.unparsable(device, result, err)
        self.version = self.version or smartctl_version(report)
        health = health_from_report(report, device)
        if not health.collected or health.smart_passed is None:
            kind, reason = why_no_health(health)
            if health.collected:
                self.note(result.command, kind, f"no SMART verdict: {reason}")
            else:
                health.not_collected_reason = f"SMART not collected: {reason}"
                self.note(result.command, kind, health.not_collected_reason)
        return health


def collect_health(
    source: Source,
    devices: list[str],
    log: ProblemLog,
    progress: DiskProgress | None = None,
    max_workers: int = DEFAULT_MAX_WORKERS,
    timeout_s: float = SMARTCTL_TIMEOUT_S,
) -> DiskHealthInventory:
    """Health of each device in `devices` ("sda", "nvme0"), in that order; never raises."""
    commands = [smartctl_command(d, timeout_s) for d in devices]
    reader = _Reader(log)
    disks = []
    for device, result in zip(
        devices, _run_all(source, commands, max_workers, progress), strict=True
    ):
        try:
            disks.append(reader.disk(device, result))
        except Exception as err:  # a decoder bug must not lose the other disks
            reason = f"SMART not collected: decoding failed ({type(err).__name__}: {err})"
            reader.note(result.command, ProblemKind.GARBLED, reason)
            disks.append(_not_collected(device, reason))
    return DiskHealthInventory(disks=disks, smartctl_version=reader.version)


def read_health(source: Source, problems: ProblemLog, inventory: Inventory, say: Progress) -> None:
    """The disk health part of the inventory: SMART of the disks among the block devices
    already read (smartctl is asked once per disk, through the first path of its WWID)."""
    devices: list[str] = []
    if source.kind is SourceKind.SNAPSHOT and not source.exists("/commands/smartctl"):
        # One line, not one per disk, when smartctl was not run at all at capture time.
        problems.add(
            PART,
            "commands/smartctl",
            ProblemKind.NOT_COLLECTED,
            "the snapshot holds no smartctl output at all: disk health was not captured",
        )
    else:
        wwids = {d.name: d.wwid for d in inventory.block.devices}
        devices = guarded(PART, problems, [], lambda: health_devices(source, problems, wwids))
    inventory.health = collect_health(
        source, devices, problems, progress=lambda done, total: say(f"smartctl {done}/{total}")
    )


COLLECTOR = Collector(part=PART, says="reading disk health (smartctl)", read=read_health)
