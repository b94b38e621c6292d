"""iSCSI sessions with their portal, interface and the LUNs (WWIDs) each presents, from sysfs.

    /sys/class/iscsi_session/sessionN -> …/hostH/sessionN/iscsi_session/sessionN
        {targetname,state,tpgt,ifacename,initiatorname}
    …/hostH/sessionN/connectionN:C/iscsi_connection/connectionN:C
        {persistent_address,persistent_port,state}              (also /sys/class/iscsi_connection)
    /sys/class/iscsi_host/hostH/{netdev,ipaddress}               the session's SCSI host
    …/hostH/sessionN/targetH:C:T/H:C:T:L/{vpd_pg83,wwid,state,vendor,model,block/}   its LUNs

A LUN's WWID is read from its Device Identification VPD page (`vpd_pg83`, binary, parsed by
`parse.vpd_pg83` as the kernel's `scsi_vpd_lun_id` chooses), else from `wwid` (the kernel's
own reading of that page, absent on older kernels), so iSCSI LUNs join dm-multipath maps and
disks by WWID as FC LUNs do.

`iscsiadm -m session -P 3` prints the same from the same files; reading sysfs needs no daemon
and works on a snapshot. Nothing here runs a tool: `capture` records what these reads touch.
"""

from __future__ import annotations

import posixpath
import re

from pinchpoint.checks.collect.collector import Collector, Progress
from pinchpoint.checks.parse.vpd_pg83 import parse_vpd_pg83
from pinchpoint.checks.source import Source, SourceError
from pinchpoint.checks.source.sysfs import ProblemLog, SysfsReader
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.iscsi import IscsiDevice, IscsiInventory, IscsiSession
from pinchpoint.model.problems import ProblemKind
from pinchpoint.plurals import plural

__all__ = ["collect_iscsi"]

PART = "iscsi"
SESSIONS = "/sys/class/iscsi_session"
HOSTS = "/sys/class/iscsi_host"
MAX_TEXT = 256
MAX_VPD = 4096  # a page 0x83 is at most 4 + 65535 bytes; real ones are under 200
UNSET = frozenset({"", "(null)", "<null>", "<empty>", "unknown"})

_SESSION = re.compile(r"^session(\d+)$")
_CONNECTION = re.compile(r"^connection(\d+):(\d+)$")
_TARGET = re.compile(r"^target\d+:\d+:\d+$")
_HCTL = re.compile(r"^(\d+):(\d+):(\d+):(\d+)$")
_HOST = re.compile(r"^host\d+$")
_BLOCK = re.compile(r"^[a-z]{2,8}$")


def _number(name: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", name))


def _printable(text: str | None) -> str | None:
    """Host text kept only as printable characters, cut short; unset markers are None."""
    if text is None:
        return None
    kept = "".join(c for c in text if c.isprintable()).strip()[:MAX_TEXT]
    return None if kept.lower() in UNSET else kept


class _Reader:
    def __init__(self, source: Source, log: ProblemLog) -> None:
        self.source = source
        self.log = log
        self.read = SysfsReader(source, PART, log)

    def text(self, path: str) -> str | None:
        return _printable(self.read.value(path))

    def session(self, name: str) -> IscsiSession | None:
        attrs = self.read.directory(f"{SESSIONS}/{name}", "{path} is not there")
        if attrs is None:
            return None
        found = IscsiSession(
            name=name,
            target=self.text(f"{attrs}/targetname"),
            state=self.text(f"{attrs}/state"),
            tpgt=self.read.integer(f"{attrs}/tpgt"),
            iface=self.text(f"{attrs}/ifacename"),
            initiator=self.text(f"{attrs}/initiatorname"),
        )
        # …/hostH/sessionN/iscsi_session/sessionN: the session's device is two levels up
        device = posixpath.dirname(posixpath.dirname(attrs))
        if posixpath.basename(device) != name:
            self.log.add(
                PART, attrs, ProblemKind.GARBLED, f"{name} is not below its session device"
            )
            return found
        host = posixpath.basename(posixpath.dirname(device))
        if _HOST.match(host):
            found.scsi_host = host
            found.netdev = self.text(f"{HOSTS}/{host}/netdev")
            found.local_address = self.text(f"{HOSTS}/{host}/ipaddress")
        entries = self.read.entries(device)
        connections = sorted((e for e in entries if _CONNECTION.match(e)), key=_number)
        if connections:
            conn = f"{device}/{connections[0]}/iscsi_connection/{connections[0]}"
            found.portal_address = self.text(f"{conn}/persistent_address") or self.text(
                f"{conn}/address"
            )
            found.portal_port = self.read.integer(f"{conn}/persistent_port") or self.read.integer(
                f"{conn}/port"
            )
            found.connection_state = self.text(f"{conn}/state")
        for target in sorted((e for e in entries if _TARGET.match(e)), key=_number):
            for hctl in sorted(self.read.entries(f"{device}/{target}"), key=_number):
                match = _HCTL.match(hctl)
                if match:
                    found.devices.append(self.device(f"{device}/{target}/{hctl}", hctl, match))
        return found

    def identity(self, path: str) -> tuple[str | None, str | None]:
        """The LUN's WWID and where it came from: `vpd_pg83`, else `wwid`; a page that is
        there but unusable is a problem, and `wwid` stands in."""
        page_path = f"{path}/vpd_pg83"
        try:
            page = self.source.read_bytes(page_path, MAX_VPD)
        except SourceError:
            page = None  # older kernels and some transports keep no page: `wwid` is enough
        if page:
            parsed = parse_vpd_pg83(page[:MAX_VPD])
            if parsed.lun_id:
                return parsed.lun_id, "vpd_pg83"
            why = "; ".join(parsed.problems) or "no designator of the logical unit"
            self.log.add(PART, page_path, ProblemKind.GARBLED, f"no LUN identity read: {why}")
        wwid = self.text(f"{path}/wwid")
        return wwid, "wwid" if wwid else None

    def device(self, path: str, hctl: str, match: re.Match[str]) -> IscsiDevice:
        blocks = [b for b in self.read.entries(f"{path}/block") if _BLOCK.match(b)]
        wwid, wwid_from = self.identity(path)
        return IscsiDevice(
            hctl=hctl,
            lun=int(match.group(4)),
            wwid=wwid,
            wwid_from=wwid_from,
            state=self.text(f"{path}/state"),
            vendor=self.text(f"{path}/vendor"),
            model=self.text(f"{path}/model"),
            block_device=blocks[0] if blocks else None,
        )


def _collect(source: Source, log: ProblemLog) -> IscsiInventory:
    reader = _Reader(source, log)
    names = sorted((n for n in reader.read.entries(SESSIONS) if _SESSION.match(n)), key=_number)
    if not names and not source.exists(SESSIONS):
        hosts = [n for n in reader.read.entries(HOSTS) if _HOST.match(n)]
        if hosts:
            log.add(
                PART,
                SESSIONS,
                ProblemKind.MISSING,
                f"not collected: {SESSIONS} is absent although {plural(len(hosts), 'iSCSI host')} "
                f"{'is' if len(hosts) == 1 else 'are'} listed (a snapshot captured before "
                "pinchpoint read iSCSI sessions)",
            )
        return IscsiInventory()
    sessions = [s for n in names if (s := reader.session(n)) is not None]
    return IscsiInventory(sessions=sessions)


def collect_iscsi(source: Source, log: ProblemLog) -> IscsiInventory:
    """Every iSCSI session with its portal, interface and LUNs; empty, silently, on a host
    without iSCSI. Never raises: failures are problems in `log`, the rest stands."""
    try:
        return _collect(source, log)
    except Exception as err:  # the safety net: a collector bug must not lose the report
        log.add(PART, "iscsi", ProblemKind.FAILED, f"not collected: {err!r}")
        return IscsiInventory()


def read_iscsi(source: Source, problems: ProblemLog, inventory: Inventory, say: Progress) -> None:
    inventory.iscsi = collect_iscsi(source, problems)


COLLECTOR = Collector(part=PART, says="reading iSCSI sessions", read=read_iscsi)
