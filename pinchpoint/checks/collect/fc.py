"""Fibre Channel from sysfs: local ports (`fc_host`), remote ports, their LUNs, queue depths.

    /sys/class/fc_host/hostN          -> …/<pci address>/hostN/fc_host/hostN   port attributes
    /sys/class/fc_host/hostN/statistics/*                                      error counters
    /sys/class/scsi_host/hostN        driver (proc_name), can_queue, lpfc per-host queue depths
    /sys/class/fc_remote_ports/rport-H:C-N/{port_name,node_name,port_state,roles,scsi_target_id}
    /sys/class/scsi_device/H:C:T:L    (else /sys/bus/scsi/devices) the LUNs of host H
    /sys/module/{lpfc,qla2xxx}/parameters/*                                    queue depth settings

A LUN H:C:T:L hangs off the fc_host numbered H and the remote port of that host whose channel is
C and whose `scsi_target_id` is T. Nothing here judges; rules compare the facts.
"""

from __future__ import annotations

import re

from pinchpoint.checks.collect.collector import Collector, Progress
from pinchpoint.checks.parse.sysfs_values import parse_linkrate, pci_address_above
from pinchpoint.checks.source import Source, SourceError
from pinchpoint.checks.source.sysfs import ProblemLog, SysfsReader
from pinchpoint.model.fc import (
    FcAdapter,
    FcDriverSettings,
    FcInventory,
    FcLun,
    FcPort,
    FcPortStatistics,
    FcRemotePort,
    SymbolicName,
    fc_adapter_id,
    fc_lun_id,
    fc_port_fallback_id,
    fc_port_id,
    fc_remote_port_id,
    normalise_wwn,
    pci_card_id,
)
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.pcie import pci_card_address
from pinchpoint.model.problems import ProblemKind

__all__ = [
    "FcParseError",
    "collect_fc",
    "parse_fc_counter",
    "parse_fc_speed",
    "parse_supported_speeds",
    "parse_symbolic_name",
]

PART = "fc"
NPIV_PORT_TYPE = "NPIV VPORT"
# A counter the driver does not keep reads as -1, printed by the kernel as an all-ones u64.
UNSUPPORTED_COUNTER = (1 << 64) - 1
# Statistics files that are not counters: `reset_statistics` is write-only.
_NOT_COUNTERS = frozenset({"reset_statistics"})
# The speeds the FC transport prints when no rate is known (`fc_port_speed_names`).
_NO_SPEED = frozenset({"unknown", "not negotiated"})

# `0000:04:00.1`: a PCI function address in a sysfs device path
# `3:0:1:4`: a SCSI device name (host:channel:target:lun)
_HCTL = re.compile(r"^(\d+):(\d+):(\d+):(\d+)$")
# `rport-3:0-1`: a remote port name (host:channel-number)
_RPORT = re.compile(r"^rport-(\d+):(\d+)-(\d+)$")
# `host3`: a SCSI host name
_HOST = re.compile(r"^host(\d+)$")
# `16 Gbit`, `4.25 Gbit`: one FC rate
_FC_RATE = re.compile(r"^\d+(?:\.\d+)?\s*Gbit$", re.IGNORECASE)

# Tokens of a symbolic name:
# `FV12.4.270.3` (Emulex firmware), `FW:v8.03.00` (QLogic firmware)
_FIRMWARE = re.compile(r"^(?:FW:v?|FV)(?P<v>\S+?)\.?$")
# `DV12.4.0.0.` (Emulex driver), `DVR:v8.07.00.26-k` (QLogic driver)
_DRIVER_VERSION = re.compile(r"^(?:DVR:v?|DV)(?P<v>\S+?)\.?$")
# `v2.9.6` (the FCoE drivers' version)
_BARE_VERSION = re.compile(r"^v(?P<v>\d\S*?)\.?$")
# `HN:gotest.` (Emulex: host name), `OS:Linux`
_HOST_NAME = re.compile(r"^HN:(?P<v>\S*?)\.?$")
_OS = re.compile(r"^OS:\S*$")
# `bnx2fc (QLogic BCM57810) v2.9.6 over eth8.0-fcoe`: driver, then the adapter in parentheses
_FCOE = re.compile(r"^(?P<driver>[a-z][a-z0-9_]*)\s+\((?P<adapter>[^)]*)\)\s*(?P<rest>.*)$")
_VENDORS = ("Emulex", "QLogic", "Broadcom", "Marvell", "Cisco", "HPE", "HP", "Dell", "IBM")


class FcParseError(ValueError):
    """An FC attribute is not in any format the kernel prints; the message says which."""


# -- attribute parsers ----------------------------------------------------------------------


def parse_fc_speed(text: str) -> float | None:
    """`16 Gbit` -> 16.0; `unknown` / `Not Negotiated` -> None; anything else is garbled."""
    cleaned = text.strip()
    if cleaned.lower() in _NO_SPEED or not cleaned:
        return None
    if not _FC_RATE.match(cleaned):
        raise FcParseError(f"expected a speed like '16 Gbit' or 'unknown', found {cleaned[:40]!r}")
    return parse_linkrate(cleaned)


def parse_supported_speeds(text: str) -> list[float]:
    """`4 Gbit, 8 Gbit, 16 Gbit` -> [4.0, 8.0, 16.0]; `unknown` entries are left out."""
    speeds = []
    for part in text.split(","):
        speed = parse_fc_speed(part)
        if speed is not None:
            speeds.append(speed)
    return sorted(set(speeds))


def parse_fc_counter(text: str) -> int | None:
    """`0x13` -> 19; `-1` / `0xffffffffffffffff` (not kept by the driver) -> None."""
    cleaned = text.strip()
    try:
        value = int(cleaned, 0)
    except ValueError:
        try:
            value = int(cleaned)
        except ValueError:
            raise FcParseError(f"expected a counter like '0x1f', found {cleaned[:40]!r}") from None
    if value < 0 or value == UNSUPPORTED_COUNTER:
        return None
    return value


def _split_vendor(words: list[str]) -> tuple[str | None, str | None]:
    """`["Emulex", "SN1100E2P"]` -> ("Emulex", "SN1100E2P")."""
    if words and words[0] in _VENDORS:
        return words[0], " ".join(words[1:]) or None
    return None, " ".join(words) or None


def parse_symbolic_name(text: str) -> SymbolicName:
    """What can be read from an fc_host `symbolic_name`; the raw text is always kept."""
    raw = text.strip()
    found = SymbolicName(raw=raw)
    fcoe = _FCOE.match(raw)
    if fcoe is not None:
        found.driver = fcoe.group("driver")
        found.vendor, found.model = _split_vendor(fcoe.group("adapter").split())
        tokens = fcoe.group("rest").split()
    else:
        tokens = raw.split()
    model_words: list[str] = []
    seen_field = False
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token == "over" and index + 1 < len(tokens):
            found.interface = tokens[index + 1]
            index += 2
            seen_field = True
            continue
        if match := _FIRMWARE.match(token):
            found.firmware_version = match.group("v")
        elif match := _DRIVER_VERSION.match(token):
            found.driver_version = match.group("v")
        elif match := _BARE_VERSION.match(token):
            found.driver_version = found.driver_version or match.group("v")
        elif match := _HOST_NAME.match(token):
            found.host_name = match.group("v") or None
        elif _OS.match(token):
            pass
        elif not seen_field:
            model_words.append(token)
            index += 1
            continue
        seen_field = True
        index += 1
    if fcoe is None:
        if len(model_words) == 1 and found.interface and found.driver_version:
            found.driver = model_words[0]  # software FCoE: `fcoe v0.1 over eth2`
        else:
            found.vendor, found.model = _split_vendor(model_words)
    return found


def _host_number(name: str) -> int:
    match = _HOST.match(name)
    return int(match.group(1)) if match else -1


# -- the collector --------------------------------------------------------------------------


class _FcCollector:
    """One pass over the FC classes of a source, recording every problem met."""

    def __init__(self, source: Source, log: ProblemLog) -> None:
        self.source = source
        self.log = log
        self.read = SysfsReader(source, PART, log)
        self._lu_identity: dict[str, tuple[str | None, str | None, str | None]] = {}

    def inventory(self) -> FcInventory:
        names = sorted(
            (n for n in self.read.entries("/sys/class/fc_host") if _HOST.match(n)),
            key=_host_number,
        )
        ports = [port for name in names if (port := self.port(name)) is not None]
        if ports:
            self.attach_remote_ports(ports)
            self.attach_luns(ports)
        return FcInventory(
            ports=ports, adapters=_adapters(ports), driver_settings=self.driver_settings()
        )

    # -- local ports ---------------------------------------------------------------------

    def _attributes_dir(self, name: str) -> str | None:
        """`/sys/class/fc_host/hostN` followed to its device directory."""
        return self.read.directory(
            f"/sys/class/fc_host/{name}",
            "the class entry leads nowhere (dangling symlink: the port was removed while it "
            "was being read?)",
        )

    def port(self, name: str) -> FcPort | None:
        attrs = self._attributes_dir(name)
        if attrs is None:
            return None
        read = self.read
        pci_address = pci_address_above(attrs, name)
        wwpn = read.value(f"{attrs}/port_name")
        port = FcPort(
            id=fc_port_id(wwpn) if wwpn else fc_port_fallback_id(name, pci_address),
            scsi_host=name,
            host_number=_host_number(name),
            port_name=normalise_wwn(wwpn) if wwpn else None,
            node_name=_wwn(read.value(f"{attrs}/node_name")),
            port_id=read.value(f"{attrs}/port_id"),
            port_state=read.value(f"{attrs}/port_state"),
            port_type=read.value(f"{attrs}/port_type"),
            fabric_name=_wwn(read.value(f"{attrs}/fabric_name")),
            supported_classes=read.value(f"{attrs}/supported_classes"),
            dev_loss_tmo_s=read.integer(f"{attrs}/dev_loss_tmo"),
            pci_address=pci_address,
            adapter_id=fc_adapter_id(pci_address) if pci_address else None,
            card_id=pci_card_id(pci_address) if pci_address else None,
        )
        self._speeds(port, attrs)
        symbolic = read.value(f"{attrs}/symbolic_name")
        port.symbolic_name = parse_symbolic_name(symbolic) if symbolic else None
        self._scsi_host(port, attrs)
        port.statistics = self.statistics(f"{attrs}/statistics", name)
        if not wwpn:
            self.log.add(
                PART,
                attrs,
                ProblemKind.MISSING,
                f"{name} reports no port_name (WWPN): the port is keyed by its kernel name, "
                "which can change at the next boot",
            )
        if pci_address is None:
            self.log.add(
                PART,
                attrs,
                ProblemKind.MISSING,
                f"{name} is not below a PCI device in sysfs (a copied tree, or FCoE over a "
                "virtual interface): its adapter is unknown and it is not counted as one",
            )
        return port

    def _speeds(self, port: FcPort, attrs: str) -> None:
        port.speed_text = self.read.value(f"{attrs}/speed")
        port.supported_speeds_text = self.read.value(f"{attrs}/supported_speeds")
        try:
            port.speed_gbps = parse_fc_speed(port.speed_text) if port.speed_text else None
        except FcParseError as err:
            self.log.add(PART, f"{attrs}/speed", ProblemKind.GARBLED, f"not collected: {err}")
            port.speed_text = None
        try:
            text = port.supported_speeds_text
            port.supported_speeds_gbps = parse_supported_speeds(text) if text else []
        except FcParseError as err:
            self.log.add(
                PART, f"{attrs}/supported_speeds", ProblemKind.GARBLED, f"not collected: {err}"
            )
            port.supported_speeds_text = None

    def _scsi_host(self, port: FcPort, attrs: str) -> None:
        """Driver and queue limits from the port's scsi_host entry."""
        name = port.scsi_host
        host_dir = attrs.removesuffix(f"/fc_host/{name}")
        scsi_host = f"{host_dir}/scsi_host/{name}"
        if host_dir == attrs or not self.source.is_dir(scsi_host):
            scsi_host = f"/sys/class/scsi_host/{name}"
        port.driver = self.read.value(f"{scsi_host}/proc_name")
        port.can_queue = self.read.integer(f"{scsi_host}/can_queue")
        port.cmd_per_lun = self.read.integer(f"{scsi_host}/cmd_per_lun")
        if port.driver == "lpfc":
            port.lun_queue_depth = self.read.integer(f"{scsi_host}/lpfc_lun_queue_depth")
            port.hba_queue_depth = self.read.integer(f"{scsi_host}/lpfc_hba_queue_depth")

    def statistics(self, stats_dir: str, name: str) -> FcPortStatistics:
        """Every counter file; failures are summed up in one problem per port, not one per file."""
        try:
            files = self.source.list_dir(stats_dir)
        except SourceError as err:
            kind = ProblemKind.UNSUPPORTED if err.kind is ProblemKind.MISSING else err.kind
            reason = (
                "the driver exposes no statistics"
                if err.kind is ProblemKind.MISSING
                else err.reason
            )
            self.log.add(PART, stats_dir, kind, f"{name} error counters not collected: {reason}")
            return FcPortStatistics()
        values: dict[str, int | None] = {}
        unsupported: list[str] = []
        failed: list[str] = []
        kinds: list[ProblemKind] = []
        for counter in files:
            if counter in _NOT_COUNTERS:
                continue
            try:
                text = self.source.read_text(f"{stats_dir}/{counter}")
                values[counter] = parse_fc_counter(text)
            except SourceError as err:
                failed.append(f"{counter} ({err.reason})")
                kinds.append(err.kind)
                values[counter] = None
                continue
            except FcParseError as err:
                failed.append(f"{counter} ({err})")
                kinds.append(ProblemKind.GARBLED)
                values[counter] = None
                continue
            if values[counter] is None:
                unsupported.append(counter)
        if failed:
            worst = kinds[0] if len(set(kinds)) == 1 else ProblemKind.UNREADABLE
            self.log.add(
                PART,
                stats_dir,
                worst,
                f"{name}: {len(failed)} of {len(values)} error counters not collected: "
                + ", ".join(failed[:4])
                + (" …" if len(failed) > 4 else ""),
            )
        known = set(FcPortStatistics.model_fields) - {"other", "unsupported"}
        return FcPortStatistics(
            **{k: v for k, v in values.items() if k in known},
            other={k: v for k, v in values.items() if k not in known},
            unsupported=unsupported,
        )

    # -- remote ports and LUNs -----------------------------------------------------------

    def attach_remote_ports(self, ports: list[FcPort]) -> None:
        by_host = {p.host_number: p for p in ports}
        for name in self.read.entries("/sys/class/fc_remote_ports"):
            match = _RPORT.match(name)
            if match is None or int(match.group(1)) not in by_host:
                continue
            local = by_host[int(match.group(1))]
            rport = self.remote_port(name, local.id, int(match.group(2)))
            if rport is not None:
                local.remote_ports.append(rport)
        for port in ports:
            port.remote_ports.sort(key=lambda r: _rport_order(r.name))

    def remote_port(self, name: str, local_id: str, channel: int) -> FcRemotePort | None:
        attrs = self.read.directory(
            f"/sys/class/fc_remote_ports/{name}",
            "the class entry leads nowhere (the remote port went away?)",
        )
        if attrs is None:
            return None
        read = self.read
        wwpn = read.value(f"{attrs}/port_name")
        roles = read.value(f"{attrs}/roles")
        target = read.integer(f"{attrs}/scsi_target_id")
        return FcRemotePort(
            id=fc_remote_port_id(local_id, wwpn, name),
            name=name,
            local_port_id=local_id,
            port_name=_wwn(wwpn),
            node_name=_wwn(read.value(f"{attrs}/node_name")),
            port_id=read.value(f"{attrs}/port_id"),
            port_state=read.value(f"{attrs}/port_state"),
            roles=[r.strip() for r in roles.split(",") if r.strip()] if roles else [],
            channel=channel,
            scsi_target_id=target if target is not None and target >= 0 else None,
        )

    def _scsi_device_dirs(self, hosts: set[int]) -> list[tuple[str, str]]:
        """(H:C:T:L, device directory) of every SCSI device of the given hosts."""
        found = []
        class_dir = "/sys/class/scsi_device"
        names = self.read.entries(class_dir)
        if not names:
            class_dir = "/sys/bus/scsi/devices"
            names = self.read.entries(class_dir)
        for hctl in names:
            match = _HCTL.match(hctl)
            if match is None or int(match.group(1)) not in hosts:
                continue
            try:
                resolved = self.source.resolve(f"{class_dir}/{hctl}")
            except SourceError as err:
                self.log.add(PART, f"{class_dir}/{hctl}", err.kind, f"not collected: {err.reason}")
                continue
            # the class entry sits in `…/H:C:T:L/scsi_device/H:C:T:L`; the bus entry is the device
            device_dir = resolved.removesuffix(f"/scsi_device/{hctl}")
            if not device_dir.endswith("/" + hctl):
                device_dir = f"{class_dir}/{hctl}/device"
            found.append((hctl, device_dir))
        return found

    def attach_luns(self, ports: list[FcPort]) -> None:
        by_host = {p.host_number: p for p in ports}
        for hctl, device_dir in self._scsi_device_dirs(set(by_host)):
            h, c, t, lun = (int(x) for x in hctl.split(":"))
            local = by_host[h]
            rport = next(
                (r for r in local.remote_ports if r.channel == c and r.scsi_target_id == t), None
            )
            local.luns.append(self.lun(hctl, device_dir, local, rport, lun))
        for port in ports:
            port.luns.sort(key=lambda u: tuple(int(x) for x in u.hctl.split(":")))

    def lun(
        self, hctl: str, device_dir: str, local: FcPort, rport: FcRemotePort | None, lun: int
    ) -> FcLun:
        """One LUN path; vendor, model and revision are read once per LU (by its wwid)."""
        read = self.read
        if not self.source.is_dir(device_dir):
            self.log.add(
                PART,
                device_dir,
                ProblemKind.UNREADABLE,
                f"SCSI device {hctl} went away while it was being read: only its name is kept",
            )
        target = rport.port_name if rport and rport.port_name else ":".join(hctl.split(":")[1:3])
        wwid = read.value(f"{device_dir}/wwid")
        blocks = read.entries(f"{device_dir}/block")
        found = FcLun(
            id=fc_lun_id(local.id, target, lun),
            hctl=hctl,
            local_port_id=local.id,
            remote_port_id=rport.id if rport else None,
            target_port_name=rport.port_name if rport else None,
            lun=lun,
            block_device=blocks[0] if blocks else None,
            wwid=wwid,
            scsi_type=read.integer(f"{device_dir}/type"),
            queue_depth=read.integer(f"{device_dir}/queue_depth"),
            state=read.value(f"{device_dir}/state"),
        )
        known = self._lu_identity.get(wwid) if wwid else None
        if known is None:
            known = (
                read.value(f"{device_dir}/vendor"),
                read.value(f"{device_dir}/model"),
                read.value(f"{device_dir}/rev"),
            )
            if wwid:
                self._lu_identity[wwid] = known
        found.vendor, found.model, found.revision = known
        return found

    # -- module parameters ---------------------------------------------------------------

    def driver_settings(self) -> FcDriverSettings:
        lpfc = "/sys/module/lpfc/parameters"
        qla = "/sys/module/qla2xxx/parameters"
        return FcDriverSettings(
            lpfc_lun_queue_depth=self.read.integer(f"{lpfc}/lpfc_lun_queue_depth"),
            lpfc_hba_queue_depth=self.read.integer(f"{lpfc}/lpfc_hba_queue_depth"),
            ql2xmaxqdepth=self.read.integer(f"{qla}/ql2xmaxqdepth"),
        )


def _wwn(value: str | None) -> str | None:
    return normalise_wwn(value) if value else None


def _rport_order(name: str) -> tuple[int, ...]:
    match = _RPORT.match(name)
    return tuple(int(x) for x in match.groups()) if match else (1 << 30,)


def _adapters(ports: list[FcPort]) -> list[FcAdapter]:
    """One adapter per PCI function; its physical port first, then NPIV ports."""
    adapters: dict[str, FcAdapter] = {}
    ordered = sorted(ports, key=lambda p: (p.port_type == NPIV_PORT_TYPE, p.host_number))
    for port in ordered:
        if port.pci_address is None:
            continue
        adapter = adapters.get(port.pci_address)
        if adapter is None:
            symbolic = port.symbolic_name
            adapter = FcAdapter(
                id=fc_adapter_id(port.pci_address),
                pci_address=port.pci_address,
                card_address=pci_card_address(port.pci_address),
                card_id=pci_card_id(port.pci_address),
                driver=port.driver,
                model=symbolic.model if symbolic else None,
                firmware_version=symbolic.firmware_version if symbolic else None,
            )
            adapters[port.pci_address] = adapter
        adapter.port_ids.append(port.id)
    return sorted(adapters.values(), key=lambda a: a.pci_address)


def collect_fc(source: Source, log: ProblemLog) -> FcInventory:
    """Every FC port of the host with its remote ports and LUNs; empty, silently, without FC.

    Never raises: what cannot be read is a problem in `log` and the rest stands.
    """
    try:
        return _FcCollector(source, log).inventory()
    except Exception as err:  # the safety net: a collector bug must not lose the report
        log.add(PART, "/sys/class/fc_host", ProblemKind.FAILED, f"not collected: {err!r}")
        return FcInventory()


def read_fc(source: Source, problems: ProblemLog, inventory: Inventory, say: Progress) -> None:
    """The Fibre Channel part of the inventory: HBA ports, remote ports and their LUNs."""
    inventory.fc = collect_fc(source, problems)


COLLECTOR = Collector(part=PART, says="reading Fibre Channel ports", read=read_fc)
