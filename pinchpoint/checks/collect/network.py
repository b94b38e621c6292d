"""NICs and bonds: sysfs, `/proc/net/bonding` and ethtool joined into `pinchpoint.model.network`.

What is read, per entry of `/sys/class/net` but `lo` (and the `bonding_masters` file):

* `/sys/class/net/IF/{address,operstate,carrier,mtu,speed,duplex}`; the kernel refuses
  `speed`, `duplex` and `carrier` (EINVAL) while the interface is down: those become None
  with the reason, not a problem each;
* the `device` link: a physical NIC's leads to its PCI function (`…/0000:03:00.0`, or a
  virtio device below one); virtual interfaces (`/sys/devices/virtual/net/…`) have none;
* `bonding/` marks a bond master;
* `ethtool IF` (`commands/ethtool/IF.txt`), `ethtool -i IF` (`commands/ethtool-i/IF.txt`) and
  `ethtool -S IF` (`commands/ethtool-S/IF.txt`) for every interface that is not a bond, run
  with bounded concurrency;
* the error counters of every interface that is not a bond: `statistics/*` and
  `carrier_changes`, `carrier_up_count`, `carrier_down_count` (with `ethtool -S`: `Nic.counters`;
  None in a snapshot from before pinchpoint read them: `net.link.errors` says so when skipped);
* `/proc/net/bonding/NAME` for every bond; where it is missing, the bond's sysfs
  `bonding/{mode,slaves,active_slave,primary,miimon,updelay,downdelay,arp_interval,
  xmit_hash_policy,lacp_rate,min_links,ad_aggregator,ad_num_ports,ad_partner_key,
  ad_partner_mac}` and each member's `bonding_slave/{state,mii_status,link_failure_count,
  perm_hwaddr,ad_aggregator_id}`.

Nothing raises: a failure becomes a logged problem and a `not_collected` reason on the NIC or
bond, and the rest stands. Failures on virtual interfaces (an `ifb` has no ethtool settings at
all) are kept on the interface only, unless the tool is missing or hung, which concerns all.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from pinchpoint.checks.collect.collector import Collector, Progress
from pinchpoint.checks.parse.bonding import BondingParseError, parse_bonding
from pinchpoint.checks.parse.ethtool import (
    EthtoolNoDataError,
    EthtoolParseError,
    parse_ethtool_driver,
    parse_ethtool_settings,
    parse_ethtool_statistics,
)
from pinchpoint.checks.source import Source, SourceError
from pinchpoint.checks.source.commands import Command, CommandResult, CommandStatus
from pinchpoint.checks.source.sysfs import ProblemLog, SysfsReader
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.network import (
    Bond,
    BondMember,
    BondMode,
    Duplex,
    LinkState,
    Network,
    Nic,
    NicCounters,
    NicKind,
    bond_id,
    nic_id_from_mac,
    nic_id_from_pci,
    virtual_nic_id,
)
from pinchpoint.model.problems import ProblemKind

__all__ = ["COLLECTOR", "ETHTOOL_TIMEOUT_S", "SYS_NET", "collect_network", "read_network"]

PART = "network"
ETHTOOL_TIMEOUT_S = 10.0
SYS_NET = "/sys/class/net"
PROC_BONDING = "/proc/net/bonding"

_PCI_ADDRESS = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")  # "0000:03:00.0"
_ETHERNET_MAC = re.compile(r"^[0-9a-f]{2}(:[0-9a-f]{2}){5}$")  # "08:00:27:99:a3:6b"
_NO_MAC = "00:00:00:00:00:00"
# What drivers put in `speed` when there is none: SPEED_UNKNOWN as u16 and u32, and 0.
_UNKNOWN_SPEEDS = frozenset({0, 0xFFFF, 0xFFFFFFFF})
_DOWN_STATES = frozenset({"down", "lowerlayerdown", "notpresent"})
# Failures that concern every interface, logged even for virtual ones.
_HOST_WIDE = frozenset(
    {
        CommandStatus.TOOL_MISSING,
        CommandStatus.TIMEOUT,
        CommandStatus.PERMISSION,
        CommandStatus.NOT_RUN,
    }
)


def ethtool_settings_command(iface: str) -> Command:
    """`ethtool IF`, kept as `commands/ethtool/IF.txt`."""
    return Command(argv=("ethtool", iface), key=f"ethtool/{iface}.txt", timeout_s=ETHTOOL_TIMEOUT_S)


def ethtool_driver_command(iface: str) -> Command:
    """`ethtool -i IF`, kept as `commands/ethtool-i/IF.txt`."""
    return Command(
        argv=("ethtool", "-i", iface), key=f"ethtool-i/{iface}.txt", timeout_s=ETHTOOL_TIMEOUT_S
    )


def ethtool_statistics_command(iface: str) -> Command:
    """`ethtool -S IF`, kept as `commands/ethtool-S/IF.txt`."""
    return Command(
        argv=("ethtool", "-S", iface), key=f"ethtool-S/{iface}.txt", timeout_s=ETHTOOL_TIMEOUT_S
    )


@dataclass(slots=True)
class _Interface:
    """One /sys/class/net entry as read, before it becomes a Nic or a Bond."""

    link: LinkState
    kind: NicKind
    is_bond: bool
    pci_address: str | None = None
    device_path: str | None = None
    raw_speed: str | None = None  # the sysfs text, for the reason when it means "none"
    notes: dict[str, str] = field(default_factory=dict)


# --- sysfs ----------------------------------------------------------------------------------


def _interface_names(source: Source, log: ProblemLog) -> list[str]:
    """Interface names but `lo`; files such as `bonding_masters` are not interfaces."""
    try:
        entries = source.list_dir(SYS_NET)
    except SourceError as err:
        log.add(
            PART,
            SYS_NET,
            err.kind,
            f"{err.reason}: no network interface was collected",
        )
        return []
    return [n for n in entries if n != "lo" and source.is_dir(f"{SYS_NET}/{n}")]


def _state_dependent(source: Source, log: ProblemLog, path: str) -> tuple[str | None, str | None]:
    """An attribute the kernel withholds while the link is down: (text, why it is missing)."""
    try:
        return source.read_text(path).strip(), None
    except SourceError as err:
        if err.kind is ProblemKind.MISSING:
            return None, f"{path} was not read (absent)"
        if err.kind is ProblemKind.PERMISSION:
            log.add(PART, path, err.kind, err.reason)
            return None, err.reason
        return None, f"the kernel withholds it while the interface is down ({err.reason})"


def _pci_in(path: str) -> str | None:
    """The last PCI function in a sysfs device path (a virtio device sits below one)."""
    for part in reversed(path.split("/")):
        if _PCI_ADDRESS.match(part):
            return part
    return None


def _hardware(source: Source, log: ProblemLog, found: _Interface) -> None:
    """Physical (with its PCI function) or virtual, from the `device` link or the class link."""
    base = f"{SYS_NET}/{found.link.name}"
    device = f"{base}/device"
    if source.is_link(device):
        try:
            found.device_path = source.resolve(device)
        except SourceError as err:
            log.add(PART, device, err.kind, f"{err.reason}: the NIC's PCI address is unknown")
            found.notes["pci_address"] = f"{device}: {err.reason}"
            return
        found.pci_address = _pci_in(found.device_path)
        if found.pci_address is None:
            found.notes["pci_address"] = (
                f"the device link leads to {found.device_path}, not to a PCI function "
                "(a USB or platform NIC)"
            )
        return
    if source.exists(device):
        reason = f"{device} is not a symlink (a copy that flattened links?)"
        log.add(PART, device, ProblemKind.UNREADABLE, f"{reason}: the NIC's PCI address is unknown")
        found.notes["pci_address"] = reason
        return
    try:
        where = source.resolve(base)
    except SourceError:
        where = base
    found.pci_address = None if where.startswith("/sys/devices/virtual/") else _pci_in(where)
    if found.pci_address is None:
        found.kind = NicKind.VIRTUAL
    else:  # under a PCI function but without a `device` link (partial captures)
        found.device_path = where[: where.index(found.pci_address) + len(found.pci_address)]


def _sysfs_speed(read: SysfsReader, path: str, text: str | None) -> int | None:
    if text is None:
        return None
    try:
        value = int(text)
    except ValueError:
        read.log.add(PART, path, ProblemKind.GARBLED, f"expected a number, found {text!r}")
        return None
    return None if value < 0 or value in _UNKNOWN_SPEEDS else value


def _duplex(text: str | None) -> Duplex | None:
    return Duplex(text) if text in ("full", "half") else None


def _read_interface(source: Source, read: SysfsReader, log: ProblemLog, name: str) -> _Interface:
    base = f"{SYS_NET}/{name}"
    mac = read.value(f"{base}/address")
    link = LinkState(
        name=name,
        mac_address=mac.lower() if mac else None,
        operstate=read.value(f"{base}/operstate"),
        mtu=read.integer(f"{base}/mtu"),
    )
    found = _Interface(link=link, kind=NicKind.PHYSICAL, is_bond=source.is_dir(f"{base}/bonding"))
    carrier, why_carrier = _state_dependent(source, log, f"{base}/carrier")
    link.carrier = {"1": True, "0": False}.get(carrier or "")
    if link.carrier is None:
        found.notes["carrier"] = why_carrier or f"carrier {carrier!r} not understood"
    duplex, why_duplex = _state_dependent(source, log, f"{base}/duplex")
    link.duplex = _duplex(duplex)
    if link.duplex is None:
        found.notes["duplex"] = why_duplex or f"the kernel reports {duplex!r}"
    found.raw_speed, why_speed = _state_dependent(source, log, f"{base}/speed")
    link.speed_mbps = _sysfs_speed(read, f"{base}/speed", found.raw_speed)
    if link.speed_mbps is None:
        found.notes["speed_mbps"] = why_speed or f"the kernel reports {found.raw_speed} (no speed)"
    if not found.is_bond:
        _hardware(source, log, found)
    else:
        found.kind = NicKind.VIRTUAL
    return found


def _link_down(link: LinkState) -> bool:
    return link.carrier is False or (link.operstate or "") in _DOWN_STATES


def _link_words(link: LinkState) -> str:
    carrier = {True: "carrier", False: "no carrier", None: "carrier unknown"}[link.carrier]
    return f"operstate {link.operstate or 'unknown'}, {carrier}"


# --- ethtool --------------------------------------------------------------------------------


def _why_not(result: CommandResult) -> str:
    """The command's failure in words, with what ethtool printed when it said nothing on stderr."""
    reason = result.reason()
    if result.status is CommandStatus.FAILED and not result.stderr.strip():
        said = next((ln.strip() for ln in result.stdout.splitlines() if ln.strip()), "")
        if said:
            reason += f": {said[:80]}"
    return reason


def _command_failed(log: ProblemLog, nic: Nic, result: CommandResult, facts: list[str]) -> None:
    reason = _why_not(result)
    for fact in facts:
        nic.not_collected[fact] = reason
    if nic.kind is NicKind.PHYSICAL or result.status in _HOST_WIDE:
        log.add(PART, result.command.line, result.problem_kind, reason)


def _not_understood(
    log: ProblemLog, nic: Nic, command: Command, err: EthtoolParseError, facts: list[str]
) -> None:
    """Garbled output is always worth a line; ethtool's own "No data available" is a failure."""
    if isinstance(err, EthtoolNoDataError):
        reason, kind = err.problem, ProblemKind.FAILED
    else:
        reason, kind = f"output not understood: {err}", ProblemKind.GARBLED
    for fact in facts:
        nic.not_collected[fact] = reason
    if kind is ProblemKind.GARBLED or nic.kind is NicKind.PHYSICAL:
        log.add(PART, command.line, kind, reason)


_SETTINGS_FACTS = ["settings", "max_supported_speed_mbps", "max_common_speed_mbps"]


def _apply_ethtool(
    log: ProblemLog, nic: Nic, settings: CommandResult, driver: CommandResult
) -> None:
    """Parse both outputs into the NIC; failures become problems and reasons."""
    if not settings.ok:
        _command_failed(log, nic, settings, _SETTINGS_FACTS)
    else:
        try:
            nic.settings = parse_ethtool_settings(settings.stdout, nic.name)
        except EthtoolParseError as err:
            _not_understood(log, nic, settings.command, err, _SETTINGS_FACTS)
        else:
            for warning in nic.settings.warnings:
                log.add(PART, settings.command.line, ProblemKind.GARBLED, warning)
    if not driver.ok:
        _command_failed(log, nic, driver, ["driver"])
        return
    try:
        nic.driver = parse_ethtool_driver(driver.stdout)
    except EthtoolParseError as err:
        _not_understood(log, nic, driver.command, err, ["driver"])


def _read_ethtool(source: Source, log: ProblemLog, nics: list[Nic]) -> None:
    commands: list[Command] = []
    for nic in nics:
        commands += [
            ethtool_settings_command(nic.name),
            ethtool_driver_command(nic.name),
            ethtool_statistics_command(nic.name),
        ]
    results = source.run_all(commands)
    for index, nic in enumerate(nics):
        _apply_ethtool(log, nic, results[3 * index], results[3 * index + 1])
        _apply_statistics(log, nic, results[3 * index + 2])


# --- error counters ---------------------------------------------------------------------------

_CARRIER_COUNTS = ("carrier_changes", "carrier_up_count", "carrier_down_count")
# What `ethtool -S` prints (exit status 94) for a driver that keeps no statistics of its own.
_NO_STATISTICS = re.compile(r"^no stats available", re.IGNORECASE)


def _read_counters(read: SysfsReader, name: str) -> NicCounters | None:
    """`statistics/*` and the carrier counts of one interface; None when none could be read."""
    base = f"{SYS_NET}/{name}"
    counters = NicCounters()
    for counter in read.entries(f"{base}/statistics"):
        value = read.integer(f"{base}/statistics/{counter}")
        if value is not None and value >= 0:
            counters.statistics[counter] = value
    for counter in _CARRIER_COUNTS:
        setattr(counters, counter, read.integer(f"{base}/{counter}"))
    if not counters.statistics and counters.carrier_changes is None:
        return None
    return counters


def _apply_statistics(log: ProblemLog, nic: Nic, result: CommandResult) -> None:
    """`ethtool -S` into the NIC's counters. A snapshot without it (taken before pinchpoint
    ran it) leaves `counters.driver` empty and says nothing: the rule that compares counters
    says what it lacks."""
    if not result.ok:
        if result.status is CommandStatus.NOT_COLLECTED:
            return
        if result.status is CommandStatus.FAILED and _NO_STATISTICS.match(result.stdout.strip()):
            # ethtool's "no stats available" (status 94): the driver keeps none, a fact of it
            nic.not_collected["driver_counters"] = f"{_driver_words(nic)} keeps no statistics"
            return
        _command_failed(log, nic, result, ["driver_counters"])
        return
    try:
        found = parse_ethtool_statistics(result.stdout)
    except EthtoolParseError as err:
        _not_understood(log, nic, result.command, err, ["driver_counters"])
        return
    for warning in found.warnings:
        log.add(PART, result.command.line, ProblemKind.GARBLED, warning)
    if nic.counters is None:
        nic.counters = NicCounters()
    nic.counters.driver = found.counters


# --- what is still unknown, and why -----------------------------------------------------------


def _driver_words(nic: Nic) -> str:
    return f"driver {nic.driver.driver}" if nic.driver else "the driver"


def _fill_from_ethtool(nic: Nic) -> None:
    """Speed, duplex and carrier from ethtool where sysfs gave none (e.g. not captured)."""
    s = nic.settings
    if s is None:
        return
    if nic.speed_mbps is None and s.speed_mbps is not None:
        nic.speed_mbps = s.speed_mbps
        nic.not_collected.pop("speed_mbps", None)
    if nic.duplex is None and s.duplex is not None:
        nic.duplex = s.duplex
        nic.not_collected.pop("duplex", None)
    if nic.carrier is None and s.link_detected is not None:
        nic.carrier = s.link_detected
        nic.not_collected.pop("carrier", None)


def _explain_speed(log: ProblemLog, nic: Nic, raw: str | None) -> None:
    if nic.speed_mbps is not None:
        return
    if _link_down(nic):
        why = f"the link is down ({_link_words(nic)}): no speed is negotiated"
    elif raw is not None or nic.settings is not None:
        shown = f"sysfs speed {raw}" if raw is not None else "sysfs speed withheld"
        why = f"{_driver_words(nic)} reports no speed while the link is up ({shown}"
        why += ", ethtool 'Unknown!')" if nic.settings is not None else ")"
    else:
        why = nic.not_collected.get("speed_mbps", "neither sysfs nor ethtool gave a speed")
    nic.not_collected["speed_mbps"] = why
    if nic.kind is NicKind.PHYSICAL:
        log.add(PART, nic.name, ProblemKind.UNSUPPORTED, f"speed not known: {why}")


def _explain_link_modes(log: ProblemLog, nic: Nic) -> None:
    s = nic.settings
    if s is None:
        return  # the failure is already the reason
    if s.max_supported_speed_mbps is None:
        if nic.kind is NicKind.VIRTUAL:
            why = (
                f"a virtual interface ({_driver_words(nic)}) has no link modes: ethtool lists none"
            )
        else:
            why = f"{_driver_words(nic)} reports no supported link modes (ethtool: 'Not reported')"
            log.add(PART, nic.name, ProblemKind.UNSUPPORTED, f"link modes not known: {why}")
        nic.not_collected["max_supported_speed_mbps"] = why
        nic.not_collected["max_common_speed_mbps"] = why
        return
    if s.max_common_speed_mbps is not None:
        return
    if s.partner_link_modes is None:
        if s.autoneg is False:
            cause = "auto-negotiation is off"
        elif _link_down(nic):
            cause = "the link is down"
        else:
            cause = f"{_driver_words(nic)} does not report them"
        why = f"the link partner's advertised modes are unknown ({cause})"
    else:
        why = "the two ends advertise no link mode in common"
    nic.not_collected["max_common_speed_mbps"] = why


# --- bonds ----------------------------------------------------------------------------------


def _first_word(text: str | None) -> str | None:
    """sysfs bonding values carry the number after the name: "802.3ad 4", "slow 0"."""
    return text.split()[0] if text else None


def _bond_from_sysfs(read: SysfsReader, name: str) -> Bond:
    """A bond from sysfs alone, where /proc/net/bonding/NAME was not read."""
    b = f"{SYS_NET}/{name}/bonding"
    mode_word = _first_word(read.value(f"{b}/mode"))
    bond = Bond(id=bond_id(name), name=name, source="sysfs", mode_text=mode_word)
    bond.mode = BondMode(mode_word) if mode_word in {m.value for m in BondMode} else None
    bond.active_member = read.value(f"{b}/active_slave")
    bond.primary_member = read.value(f"{b}/primary")
    bond.miimon_ms = read.integer(f"{b}/miimon")
    bond.updelay_ms = read.integer(f"{b}/updelay")
    bond.downdelay_ms = read.integer(f"{b}/downdelay")
    bond.arp_interval_ms = read.integer(f"{b}/arp_interval")
    bond.transmit_hash_policy = read.value(f"{b}/xmit_hash_policy")
    bond.min_links = read.integer(f"{b}/min_links")
    if bond.mode is BondMode.LACP:
        bond.lacp_rate = _first_word(read.value(f"{b}/lacp_rate"))
        bond.active_aggregator_id = read.integer(f"{b}/ad_aggregator")
        bond.active_aggregator_ports = read.integer(f"{b}/ad_num_ports")
        bond.partner_key = read.integer(f"{b}/ad_partner_key")
        mac = read.value(f"{b}/ad_partner_mac")
        bond.partner_mac = mac.lower() if mac else None
        bond.not_collected["lacp_details"] = (
            f"{PROC_BONDING}/{name} was not read: each member's LACP partner is unknown"
        )
    for member in (read.value(f"{b}/slaves") or "").split():
        bond.members.append(_member_from_sysfs(read, name, member))
    return bond


def _member_from_sysfs(read: SysfsReader, bond: str, name: str) -> BondMember:
    """A member's `bonding_slave/`: in its own directory, or through the bond's link to it."""
    places = [
        f"{SYS_NET}/{name}",
        f"{SYS_NET}/{bond}/lower_{name}",
        f"{SYS_NET}/{bond}/slave_{name}",
    ]
    s = next((f"{p}/bonding_slave" for p in places if read.source.is_dir(f"{p}/bonding_slave")), "")
    if not s:
        return BondMember(name=name)
    mac = read.value(f"{s}/perm_hwaddr")
    return BondMember(
        name=name,
        state=read.value(f"{s}/state"),
        mii_status=read.value(f"{s}/mii_status"),
        link_failure_count=read.integer(f"{s}/link_failure_count"),
        permanent_mac_address=mac.lower() if mac else None,
        aggregator_id=read.integer(f"{s}/ad_aggregator_id"),
    )


def _read_bond(
    source: Source, read: SysfsReader, log: ProblemLog, name: str, in_sysfs: bool
) -> Bond:
    path = f"{PROC_BONDING}/{name}"
    why = ""
    try:
        bond = parse_bonding(name, source.read_text(path))
    except SourceError as err:
        why = f"{path} {err.reason}"
        if err.kind is not ProblemKind.MISSING or not in_sysfs:
            log.add(PART, path, err.kind, why)
    except BondingParseError as err:
        why = str(err)
        log.add(PART, path, ProblemKind.GARBLED, f"output not understood: {err.problem}")
    else:
        for warning in bond.warnings:
            log.add(PART, path, ProblemKind.GARBLED, warning)
        return bond
    if in_sysfs:
        return _bond_from_sysfs(read, name)
    return Bond(id=bond_id(name), name=name, not_collected={"bonding": why})


def _read_bonds(
    source: Source, read: SysfsReader, log: ProblemLog, found: dict[str, _Interface]
) -> list[Bond]:
    in_sysfs = {name for name, i in found.items() if i.is_bond}
    in_proc = set(read.entries(PROC_BONDING))
    bonds = []
    for name in sorted(in_sysfs | in_proc):
        bond = _read_bond(source, read, log, name, name in in_sysfs)
        interface = found.get(name)
        if interface is None:
            bond.not_collected["link"] = f"{SYS_NET}/{name} does not exist"
        else:
            link = interface.link.model_dump(exclude={"name", "not_collected"})
            for key, value in link.items():
                setattr(bond, key, value)
            bond.not_collected.update(interface.notes)
        bonds.append(bond)
    return bonds


def _join_members(log: ProblemLog, bonds: list[Bond], nics: dict[str, Nic]) -> None:
    """Tie members to their NICs; a member with no /sys/class/net entry is marked gone."""
    for bond in bonds:
        for member in bond.members:
            nic = nics.get(member.name)
            if nic is None:
                member.present = False
                log.add(
                    PART,
                    f"{bond.name}/{member.name}",
                    ProblemKind.MISSING,
                    f"bond {bond.name} lists member {member.name}, but {SYS_NET}/{member.name} "
                    "does not exist: the interface was removed or renamed while enslaved (or "
                    "the snapshot lacks it); its link facts are not collected",
                )
                continue
            nic.bond = bond.name
            nic.permanent_mac_address = member.permanent_mac_address
            if bond.source == "sysfs":  # /proc gives these; sysfs has them on the member
                member.speed_mbps = nic.speed_mbps
                member.duplex = nic.duplex


# --- ids ------------------------------------------------------------------------------------


def _identity_mac(nic: Nic) -> str | None:
    """The permanent MAC: a bond member's from the bond, else the current one; Ethernet only."""
    mac = nic.permanent_mac_address or nic.mac_address
    if mac is None or mac == _NO_MAC or not _ETHERNET_MAC.match(mac):
        return None  # absent, zero, or an IPoIB address (its queue pair number changes)
    return mac


def _assign_ids(nics: list[Nic]) -> None:
    """`nic:<MAC>` where the MAC is unique, else `nic:<PCI>/<ifname>`; virtual by name."""
    physical = [n for n in nics if n.kind is NicKind.PHYSICAL]
    counts = Counter(_identity_mac(n) for n in physical)
    for nic in nics:
        mac = _identity_mac(nic)
        if nic.kind is NicKind.VIRTUAL:
            nic.id = virtual_nic_id(nic.name)
        elif mac is not None and counts[mac] == 1:
            nic.id = nic_id_from_mac(mac)
        elif nic.pci_address is not None:
            nic.id = nic_id_from_pci(nic.pci_address, nic.name)
        elif nic.driver is not None and nic.driver.bus_info:
            nic.id = f"nic:{nic.driver.bus_info}/{nic.name}"
        else:
            nic.id = f"nic:{nic.name}"


# --- the entry point ------------------------------------------------------------------------


def _nic(found: _Interface) -> Nic:
    nic = Nic(
        **found.link.model_dump(exclude={"not_collected"}),
        id="",
        kind=found.kind,
        pci_address=found.pci_address,
        device_path=found.device_path,
    )
    nic.not_collected.update(found.notes)
    return nic


def collect_network(source: Source, log: ProblemLog) -> Network:
    """Every interface but `lo` and every bond; what fails is logged and the rest stands."""
    read = SysfsReader(source, PART, log)
    found = {n: _read_interface(source, read, log, n) for n in _interface_names(source, log)}
    bonds = _read_bonds(source, read, log, found)
    bond_names = {b.name for b in bonds}
    nics = [_nic(i) for name, i in found.items() if name not in bond_names]
    for nic in nics:
        nic.counters = _read_counters(read, nic.name)
    _read_ethtool(source, log, nics)
    for nic in nics:
        _fill_from_ethtool(nic)
        _explain_speed(log, nic, found[nic.name].raw_speed)
        _explain_link_modes(log, nic)
    by_name = {n.name: n for n in nics}
    _join_members(log, bonds, by_name)
    _assign_ids(nics)
    for bond in bonds:
        for member in bond.members:
            member_nic = by_name.get(member.name)
            member.nic_id = member_nic.id if member_nic else None
    nics.sort(key=lambda n: (n.kind is not NicKind.PHYSICAL, n.name))
    return Network(nics=nics, bonds=bonds)


def read_network(source: Source, problems: ProblemLog, inventory: Inventory, say: Progress) -> None:
    """The network part of the inventory: NICs and bonds."""
    inventory.network = collect_network(source, problems)


COLLECTOR = Collector(part=PART, says="reading NICs and bonds", read=read_network)
