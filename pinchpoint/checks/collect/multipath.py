"""dm-multipath maps from sysfs joined with `multipath -ll`, each path tied to its adapter.

    /sys/block/dm-N/dm/uuid        `mpath-<WWID>` marks a multipath map (LVM and others differ)
    /sys/block/dm-N/{dm/name,size,slaves/}     its name, size and member devices
    /sys/block/sdX -> …/H:C:T:L/block/sdX      a member's place (H:C:T:L) and `device/state`
    commands/multipath/ll.txt      `multipath -ll`: path groups and each path's states
    /sys/class/{fc_host,sas_host,iscsi_host}/hostN, /sys/class/scsi_host/hostN -> …/<pci>/hostN
                                   what transport and PCI function each path's SCSI host is

sysfs says which maps exist even when `multipath` is missing, fails or hangs; `multipath -ll`
adds what only the daemon's view holds (priorities, checker states). Either may be absent, and
the map stands on the other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pinchpoint.checks.collect.block import device_mapper_dir
from pinchpoint.checks.collect.collector import Collector, Progress
from pinchpoint.checks.parse.multipath_ll import (
    MultipathListing,
    MultipathParseError,
    parse_multipath_ll,
)
from pinchpoint.checks.parse.sysfs_values import pci_address_above
from pinchpoint.checks.source import Source, SourceError
from pinchpoint.checks.source.commands import Command, CommandResult, CommandStatus
from pinchpoint.checks.source.sysfs import ProblemLog, SysfsReader
from pinchpoint.model.fc import FcInventory, fc_hosts_for_scsi, fc_port_id, normalise_wwn
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.multipath import (
    MultipathInventory,
    MultipathMap,
    MultipathPath,
    multipath_map_id,
    multipath_path_id,
)
from pinchpoint.model.problems import ProblemKind

__all__ = ["MULTIPATH_TIMEOUT_S", "collect_multipath", "multipath_ll_command"]

PART = "multipath"
MULTIPATH_TIMEOUT_S = 30.0  # multipath -ll can hang on a dead path; it must not hang a sweep
MPATH_UUID_PREFIX = "mpath-"
SECTOR_BYTES = 512
SYSFS_ONLY = "maps read from sysfs only (no path groups, priorities or path checker states)"

# `…/0000:04:00.0/host3/rport-3:0-1/target3:0:1/3:0:1:4/block/sdk`: the H:C:T:L above a block device
_HCTL = re.compile(r"^\d+:\d+:\d+:\d+$")
# `3789.033715 | ` or `Oct 28 14:02:44 | `: the time stamp multipath puts before a message
_STAMP = re.compile(r"^(?:[A-Z][a-z]{2}\s+\d+\s+\d\d:\d\d:\d\d|\d+\.\d+)\s+\|\s*")
# stderr lines that say why multipath failed, best first
_TELLING = (
    "device-mapper",
    "dm version",
    "kernel driver not loaded",
    "multipath.conf",
    "permission",
    "not permitted",
)


def multipath_ll_command() -> Command:
    """`multipath -ll`, kept as `commands/multipath/ll.txt`."""
    return Command(argv=("multipath", "-ll"), key="multipath/ll.txt", timeout_s=MULTIPATH_TIMEOUT_S)


def failure_reason(result: CommandResult) -> str:
    """Why `multipath -ll` gave nothing, naming the line of its stderr that says so."""
    if result.status is not CommandStatus.FAILED:
        return result.reason()
    lines = [_STAMP.sub("", line).strip() for line in result.stderr.splitlines()]
    lines = [line for line in lines if line]
    telling = next(
        (line for key in _TELLING for line in lines if key in line.lower()),
        lines[-1] if lines else result.detail,
    )
    reason = f"`{result.command.line}` exited with status {result.returncode}"
    reason += f": {telling}" if telling else ""
    text = " ".join(lines).lower()
    if "device-mapper" in text or "dm version" in text:
        reason += " (the kernel's device-mapper is not available: dm_mod not loaded?)"
    return reason


# -- what each SCSI host is -----------------------------------------------------------------


@dataclass(frozen=True)
class _HostFacts:
    transport: str | None
    pci_address: str | None
    fc_port_id: str | None
    fc_port_name: str | None


class _Hosts:
    """Transport, PCI function and FC port of SCSI hosts, read once per host when first asked."""

    def __init__(self, source: Source, read: SysfsReader, fc: FcInventory | None) -> None:
        self.source = source
        self.read = read
        self.fc_ports = fc_hosts_for_scsi(fc) if fc is not None else None
        self._classes: dict[str, set[str]] | None = None
        self._facts: dict[str, _HostFacts] = {}

    def _transport(self, host: str) -> str | None:
        if self._classes is None:
            self._classes = {
                kind: set(self.read.entries(f"/sys/class/{kind}_host"))
                for kind in ("fc", "sas", "iscsi")
            }
        return next((kind for kind, names in self._classes.items() if host in names), None)

    def facts(self, host: str) -> _HostFacts:
        known = self._facts.get(host)
        if known is not None:
            return known
        transport = self._transport(host)
        try:
            device = self.source.resolve(f"/sys/class/scsi_host/{host}")
            pci_address = pci_address_above(device, host) if self.source.is_dir(device) else None
        except SourceError:
            pci_address = None
        port_id = port_name = None
        if transport == "fc":
            port_id, port_name = self._fc_port(host)
        found = _HostFacts(transport, pci_address, port_id, port_name)
        self._facts[host] = found
        return found

    def _fc_port(self, host: str) -> tuple[str | None, str | None]:
        if self.fc_ports is not None:
            port = self.fc_ports.get(int(host.removeprefix("host")))
            return (port.id, port.port_name) if port else (None, None)
        wwpn = self.read.value(f"/sys/class/fc_host/{host}/port_name")
        return (fc_port_id(wwpn), normalise_wwn(wwpn)) if wwpn else (None, None)

    def tie(self, path: MultipathPath) -> None:
        """Fill in what the path runs through."""
        if path.scsi_host is None:
            return
        facts = self.facts(path.scsi_host)
        path.transport, path.pci_address = facts.transport, facts.pci_address
        path.fc_port_id, path.fc_port_name = facts.fc_port_id, facts.fc_port_name


# -- maps in sysfs --------------------------------------------------------------------------


class _SysfsMaps:
    """Multipath maps as sysfs shows them: `dm-N` with a `mpath-` uuid and its slaves."""

    def __init__(self, source: Source, read: SysfsReader, log: ProblemLog) -> None:
        self.source = source
        self.read = read
        self.log = log
        self.listed = False  # /sys/block could be listed

    def maps(self) -> list[MultipathMap]:
        found = []
        try:
            entries = self.source.list_dir("/sys/block")
        except SourceError as err:
            if err.kind is not ProblemKind.MISSING:
                self.log.add(
                    PART, "/sys/block", err.kind, f"maps not read from sysfs: {err.reason}"
                )
            return []
        self.listed = True
        for dm in entries:
            if not dm.startswith("dm-"):
                continue
            here = device_mapper_dir(self.source, dm)
            uuid = self.read.value(f"{here}/dm/uuid")
            if uuid is None or not uuid.startswith(MPATH_UUID_PREFIX):
                continue  # LVM, crypt and other device-mapper targets
            found.append(self.one(dm, uuid[len(MPATH_UUID_PREFIX) :], here))
        return found

    def one(self, dm: str, wwid: str, here: str) -> MultipathMap:
        sectors = self.read.integer(f"{here}/size")
        found = MultipathMap(
            id=multipath_map_id(wwid),
            wwid=wwid.strip(),
            name=self.read.value(f"{here}/dm/name"),
            dm_device=dm,
            size_bytes=sectors * SECTOR_BYTES if sectors is not None else None,
            from_sysfs=True,
        )
        found.sysfs_slaves = self.read.entries(f"/sys/block/{dm}/slaves")
        for slave in found.sysfs_slaves:
            found.sysfs_paths.append(self.member(found, slave))
        return found

    def _member_dir(self, dm: str, slave: str) -> str | None:
        """The block device directory of a member, or None when it is gone."""
        for link in (f"/sys/block/{dm}/slaves/{slave}", f"/sys/block/{slave}"):
            try:
                resolved = self.source.resolve(link)
            except SourceError:
                continue
            if self.source.is_dir(resolved):
                return resolved
        return None

    def member(self, found: MultipathMap, slave: str) -> MultipathPath:
        """A path from a `slaves/` entry: its H:C:T:L from the device path, its SCSI state."""
        block_dir = self._member_dir(found.dm_device or "", slave)
        if block_dir is None:
            self.log.add(
                PART,
                f"/sys/block/{found.dm_device}/slaves/{slave}",
                ProblemKind.UNREADABLE,
                f"map {found.name} ({found.dm_device}): member {slave} is listed in slaves/ but "
                "its device is gone (removed while the map still holds it?): its place and "
                "state are unknown",
            )
            return MultipathPath(
                id=multipath_path_id(found.id, None, slave),
                device=slave,
                in_slaves=True,
                device_present=False,
            )
        parts = block_dir.split("/")
        hctl = parts[-3] if len(parts) >= 3 and _HCTL.match(parts[-3]) else None
        return MultipathPath(
            id=multipath_path_id(found.id, hctl, slave),
            hctl=hctl,
            device=slave,
            online_state=self.read.value(f"{block_dir}/device/state"),
            scsi_host=f"host{hctl.split(':', 1)[0]}" if hctl else None,
            in_slaves=True,
            device_present=True,
        )


# -- the join -------------------------------------------------------------------------------


def _run_multipath_ll(
    source: Source, log: ProblemLog, sysfs_maps: list[MultipathMap], sysfs_listed: bool
) -> tuple[MultipathListing | None, str | None]:
    """The parsed listing, or None with the reason; the reason is a problem where it matters.

    A host with no map in sysfs and no (working) `multipath` simply does not use multipath:
    saying so on every such host would be noise.
    """
    command = multipath_ll_command()
    result = source.run(command)
    matters = bool(sysfs_maps) or not sysfs_listed
    if not result.ok:
        reason = failure_reason(result)
        if matters:
            log.add(
                PART, command.line, result.problem_kind, f"not collected: {reason}; {SYSFS_ONLY}"
            )
        return None, reason
    try:
        listing = parse_multipath_ll(result.stdout)
    except MultipathParseError as err:
        reason = f"unreadable output: {err}"
        log.add(PART, command.line, ProblemKind.GARBLED, f"not collected: {reason}; {SYSFS_ONLY}")
        return None, reason
    for warning in listing.warnings:
        log.add(PART, command.line, ProblemKind.GARBLED, f"{warning} (read from sysfs if present)")
    if not listing.maps and not listing.warnings and sysfs_maps:
        names = ", ".join(sorted(m.dm_device or m.wwid for m in sysfs_maps)[:5])
        log.add(
            PART,
            command.line,
            ProblemKind.MISSING,
            f"`multipath -ll` lists no map although sysfs shows {len(sysfs_maps)} ({names}): "
            f"not run as root, or multipathd lost track of them; {SYSFS_ONLY}",
        )
    return listing, None


def _merge(
    listed: list[MultipathMap], sysfs_maps: list[MultipathMap], log: ProblemLog
) -> list[MultipathMap]:
    """One map per WWID: `multipath -ll`'s view, completed by sysfs (exact size, members)."""
    by_wwid: dict[str, MultipathMap] = {}
    for found in listed:
        first = by_wwid.get(found.wwid)
        if first is not None:
            log.add(
                PART,
                "multipath -ll",
                ProblemKind.GARBLED,
                f"WWID {found.wwid!r} is listed twice (as {first.name} and {found.name}): "
                f"the first is kept",
            )
            continue
        by_wwid[found.wwid] = found
    for seen in sysfs_maps:
        if seen.wwid not in by_wwid:
            by_wwid[seen.wwid] = seen
            continue
        found = by_wwid[seen.wwid]
        found.from_sysfs = True
        found.size_bytes = seen.size_bytes if seen.size_bytes is not None else found.size_bytes
        found.dm_device = found.dm_device or seen.dm_device
        found.sysfs_slaves = seen.sysfs_slaves
        members = {p.device: p for p in seen.sysfs_paths}
        for path in found.paths:
            member = members.get(path.device)
            path.in_slaves = member is not None
            path.device_present = member.device_present if member else None
            if member is not None and path.online_state is None:  # old versions omit it
                path.online_state = member.online_state
    return list(by_wwid.values())


def _collect(source: Source, log: ProblemLog, fc: FcInventory | None) -> MultipathInventory:
    read = SysfsReader(source, PART, log)
    sysfs = _SysfsMaps(source, read, log)
    sysfs_maps = sysfs.maps()
    listing, reason = _run_multipath_ll(source, log, sysfs_maps, sysfs.listed)
    maps = _merge(listing.maps if listing else [], sysfs_maps, log)
    hosts = _Hosts(source, read, fc)
    for found in maps:
        for path in found.paths:
            hosts.tie(path)
    return MultipathInventory(
        maps=sorted(maps, key=lambda m: m.name or m.wwid),
        multipath_ll_read=listing is not None,
        multipath_ll_reason=reason,
    )


def collect_multipath(
    source: Source, log: ProblemLog, *, fc: FcInventory | None = None
) -> MultipathInventory:
    """Every dm-multipath map with its paths; empty, silently, on a host without multipath.

    `fc` (from `collect_fc`) lets paths name their FC port with the same ids without reading
    the FC classes again. Never raises: failures are problems in `log`, the rest stands.
    """
    try:
        return _collect(source, log, fc)
    except Exception as err:  # the safety net: a collector bug must not lose the report
        log.add(PART, "multipath", ProblemKind.FAILED, f"not collected: {err!r}")
        return MultipathInventory(multipath_ll_reason=f"collector failed: {err!r}")


def read_multipath(
    source: Source, problems: ProblemLog, inventory: Inventory, say: Progress
) -> None:
    """The dm-multipath part of the inventory; paths name the FC ports already read."""
    inventory.multipath = collect_multipath(source, problems, fc=inventory.fc)


COLLECTOR = Collector(part=PART, says="reading dm-multipath maps", read=read_multipath)
