"""NICs and bonds: `sys/class/net`, the NICs' PCI functions, `/proc/net/bonding` and ethtool.

Formats are those of Linux 6.1 (net-sysfs.c, bond_sysfs.c, bond_sysfs_slave.c,
bond_procfs.c) and ethtool 6.1 (the netlink path: link modes one speed a line, each mode
followed by a space). A NIC runs at the highest speed both it and its link partner advertise;
a NIC whose link is down has no carrier, speed -1 and duplex "unknown", as the kernel prints
them, and ethtool says "Unknown!". A bond's MAC is its first member's permanent one, which
every member then carries as its current address.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pinchpoint.simulator.addresses import name_hash
from pinchpoint.simulator.naming import default_root_port
from pinchpoint.simulator.pci import CLASS_ETHERNET, PciIds, PciWriter, pci_device_path
from pinchpoint.simulator.spec.host import HostSpec
from pinchpoint.simulator.spec.rest_of_host import BondSpec, NicSpec
from pinchpoint.simulator.tree_writer import TreeWriter

SYS = "sys"
SYS_NET = f"{SYS}/class/net"
VIRTUAL_NET = f"{SYS}/devices/virtual/net"
NO_MAC = "00:00:00:00:00:00"
# ad_link_speed_type of drivers/net/bonding/bond_3ad.c: the actor key holds it above the
# duplex bit.
_AD_SPEED = {
    10: 2,
    100: 3,
    1000: 4,
    2500: 5,
    5000: 6,
    10000: 7,
    25000: 10,
    40000: 11,
    50000: 12,
    100000: 14,
}
LACP_STATE_SLOW = 61  # activity, aggregation, synchronization, collecting, distributing
LACP_STATE_FAST = 63  # the same with the short timeout bit
LACP_STATE_DOWN = 69  # activity, aggregation, defaulted: no partner heard


@dataclass(frozen=True)
class NicDriver:
    """What a driver's NIC looks like: PCI ids, default speeds, firmware, port type."""

    vendor: str
    device: str
    subsystem_device: str
    speeds: tuple[int, ...]
    firmware: str
    port: str  # "Twisted Pair", "FIBRE", "Direct Attach Copper"
    oui: int


NIC_DRIVERS = {
    "ixgbe": NicDriver(
        "0x8086", "0x1528", "0x0001", (1000, 10000), "0x800004e0", "Twisted Pair", 0xA0369F
    ),
    "ice": NicDriver(
        "0x8086",
        "0x159b",
        "0x0003",
        (1000, 10000, 25000),
        "4.20 0x8001778b 1.3346.0",
        "FIBRE",
        0xB49691,
    ),
    "i40e": NicDriver(
        "0x8086", "0x1572", "0x0000", (1000, 10000), "9.20 0x8000d95e 1.3353.0", "FIBRE", 0x3CFDFE
    ),
    "igb": NicDriver(
        "0x8086", "0x1521", "0x0001", (10, 100, 1000), "1.63, 0x80000c7f", "Twisted Pair", 0xA0369F
    ),
    "e1000e": NicDriver(
        "0x8086", "0x15bb", "0x0000", (10, 100, 1000), "0.8-4", "Twisted Pair", 0x5C8A38
    ),
    "bnxt_en": NicDriver(
        "0x14e4",
        "0x16d7",
        "0x1402",
        (1000, 10000, 25000),
        "228.0.76.0/pkg 228.1.111.0",
        "FIBRE",
        0x00062B,
    ),
    "mlx5_core": NicDriver(
        "0x15b3",
        "0x1017",
        "0x0020",
        (1000, 10000, 25000),
        "16.35.2000 (MT_0000000080)",
        "Direct Attach Copper",
        0x0C42A1,
    ),
}
_DEFAULT_DRIVER = NicDriver(
    "0x8086", "0x10fb", "0x0000", (1000, 10000), "0x800004e0", "FIBRE", 0xA0369F
)

# The link mode names ethtool prints, per port type and speed.
_COPPER = {s: f"{s}baseT" for s in (10, 100, 1000, 2500, 5000, 10000)}
_FIBRE = {
    1000: "1000baseX",
    10000: "10000baseSR",
    25000: "25000baseSR",
    40000: "40000baseSR4",
    50000: "50000baseSR2",
    100000: "100000baseSR4",
}
_DAC = {
    1000: "1000baseKX",
    10000: "10000baseCR",
    25000: "25000baseCR",
    40000: "40000baseCR4",
    50000: "50000baseCR2",
    100000: "100000baseCR4",
}
_PORT_SHORT = {"Twisted Pair": "TP", "FIBRE": "FIBRE", "Direct Attach Copper": "FIBRE"}


def nic_driver(name: str) -> NicDriver:
    """The driver's defaults (a generic Intel 10 GbE card for drivers not in the table)."""
    return NIC_DRIVERS.get(name, _DEFAULT_DRIVER)


@dataclass(eq=False)
class NicView:
    """One NIC as the kernel shows it: names, PCI placement, MACs and the negotiated link."""

    spec: NicSpec
    pci_address: str
    root_port: str
    permanent_mac: str
    ifindex: int
    driver: NicDriver
    supported: list[int]
    advertised: list[int]
    partner: list[int]
    speed: int | None  # None: the link is down
    bond: BondView | None = None
    address: str = ""  # current MAC: the bond's for a member

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def up(self) -> bool:
        return self.speed is not None


@dataclass(eq=False)
class BondView:
    """A bond: its members (NICs, and names that vanished), MAC and aggregate link."""

    spec: BondSpec
    ifindex: int
    mac: str
    members: list[NicView] = field(default_factory=list)
    partner_mac: str = NO_MAC

    @property
    def name(self) -> str:
        return self.spec.name

    def members_up(self) -> list[NicView]:
        return [m for m in self.members if m.up]

    def active(self) -> NicView | None:
        """The member carrying traffic (active-backup): the primary if up, else the first up."""
        up = self.members_up()
        primary = next((m for m in up if m.name == self.spec.primary), None)
        return primary or (up[0] if up else None)

    def speed(self) -> int | None:
        if self.spec.mode == "802.3ad":
            up = self.members_up()
            return sum(m.speed or 0 for m in up) if up else None
        active = self.active()
        return active.speed if active else None


def _mac_text(value: int) -> str:
    return ":".join(f"{(value >> shift) & 0xFF:02x}" for shift in range(40, -8, -8))


def _derived_mac(driver: NicDriver, pci_address: str) -> str:
    """Ports of one card have consecutive MACs: a per-card base plus the function number."""
    card, _, function = pci_address.rpartition(".")
    base = (name_hash("nic", card) & 0xFFFFF8) | int(function)
    return _mac_text((driver.oui << 24) | base)


def default_nic_pci_address(ordinal: int) -> str:
    """A NIC without an address in the spec: bus 0x18, 0x19 …, function 0."""
    return f"0000:{0x18 + ordinal:02x}:00.0"


def nic_views(spec: HostSpec, first_ifindex: int = 2) -> tuple[list[NicView], list[BondView]]:
    """Every NIC (in PCI order, as the kernel numbers them) and bond of the spec."""
    nics = []
    for ordinal, nic in enumerate(spec.nic):
        driver = nic_driver(nic.driver)
        pci = nic.pci_address or default_nic_pci_address(ordinal)
        supported = nic.speeds_mbps or list(driver.speeds)
        advertised = nic.advertised_mbps if nic.advertised_mbps is not None else supported
        partner = nic.partner_mbps if nic.partner_mbps is not None else advertised
        common = sorted(set(advertised) & set(partner)) if partner else advertised
        up = nic.operstate == "up" and bool(common)
        nics.append(
            NicView(
                spec=nic,
                pci_address=pci,
                root_port=nic.root_port or default_root_port(pci),
                permanent_mac=nic.mac or _derived_mac(driver, pci),
                ifindex=0,
                driver=driver,
                supported=supported,
                advertised=advertised,
                partner=partner if up else [],
                speed=max(common) if up else None,
            )
        )
    nics.sort(key=lambda n: n.pci_address)
    for offset, view in enumerate(nics):
        view.ifindex = first_ifindex + offset
        view.address = view.permanent_mac
    by_name = {n.name: n for n in nics}
    bonds = []
    for offset, bond_spec in enumerate(spec.bond):
        members = [by_name[m] for m in spec.bond_members(bond_spec)]
        mac = bond_spec.mac or (members[0].permanent_mac if members else _vanished_mac(bond_spec))
        bond = BondView(bond_spec, first_ifindex + len(nics) + offset, mac, members)
        if bond.members_up():
            bond.partner_mac = _mac_text(0x00_1C_73_00_00_00 | name_hash("switch", bond.name) >> 40)
        for member in members:
            member.bond = bond
            member.address = mac
        bonds.append(bond)
    return nics, bonds


def _vanished_mac(bond: BondSpec, name: str | None = None) -> str:
    """The permanent MAC of a member that is gone (or of a bond that only had such)."""
    return _mac_text(0xA0369F000000 | (name_hash("vanished", bond.name, name or "") >> 40))


# --- sysfs ----------------------------------------------------------------------------------


def _link_attrs(
    mac: str, ifindex: int, mtu: int, up: bool, speed: int | None, duplex: str
) -> dict[str, str]:
    """The attributes of a net device the collector reads (and a few every one has)."""
    return {
        "address": mac,
        "addr_len": "6",
        "broadcast": "ff:ff:ff:ff:ff:ff",
        "type": "1",
        "ifindex": str(ifindex),
        "iflink": str(ifindex),
        "mtu": str(mtu),
        "tx_queue_len": "1000",
        "flags": "0x1003",
        "operstate": "up" if up else "down",
        "carrier": "1" if up else "0",
        "speed": str(speed) if speed is not None else "-1",
        "duplex": duplex if up else "unknown",
    }


# The files of `/sys/class/net/IF/statistics/` (kernel 6.1).
KERNEL_STATISTICS = (
    "collisions", "multicast", "rx_bytes", "rx_compressed", "rx_crc_errors", "rx_dropped",
    "rx_errors", "rx_fifo_errors", "rx_frame_errors", "rx_length_errors", "rx_missed_errors",
    "rx_nohandler", "rx_over_errors", "rx_packets", "tx_aborted_errors", "tx_bytes",
    "tx_carrier_errors", "tx_compressed", "tx_dropped", "tx_errors", "tx_fifo_errors",
    "tx_heartbeat_errors", "tx_packets", "tx_window_errors",
)  # fmt: skip
# What an hour of light traffic leaves in the totals of a link that is up.
_TRAFFIC = {"rx_packets": 1_843_211, "tx_packets": 1_502_877}
_TRAFFIC_BYTES = {"rx_bytes": 1_843_211 * 812, "tx_bytes": 1_502_877 * 904}


def _statistics_values(nic: NicView) -> dict[str, int]:
    """The kernel's counters of a NIC: traffic when up, the spec's counters, else 0."""
    values = dict.fromkeys(KERNEL_STATISTICS, 0)
    if nic.up:
        values |= _TRAFFIC | _TRAFFIC_BYTES
    values |= {k: v for k, v in nic.spec.counters.items() if k in values}
    return values


def _statistics(nic: NicView) -> dict[str, str]:
    return {name: str(value) for name, value in _statistics_values(nic).items()}


def _carrier_counts(nic: NicView) -> dict[str, str]:
    """`carrier_changes` (the spec's, else one down and one up since boot, one down for a
    link that never came up), split into up and down counts as the kernel keeps them."""
    changes = nic.spec.counters.get("carrier_changes", 2 if nic.up else 1)
    ups = changes // 2 if nic.up else (changes - 1) // 2
    return {
        "carrier_changes": str(changes),
        "carrier_up_count": str(ups),
        "carrier_down_count": str(changes - ups),
    }


def ethtool_statistics_text(nic: NicView) -> str:
    """`ethtool -S IF` as a driver prints it: its own copy of the main kernel counters, then
    the spec's counters the kernel does not keep (`port.rx_crc_errors`)."""
    kernel = _statistics_values(nic)
    shown = {
        name: kernel[name]
        for name in ("rx_packets", "tx_packets", "rx_bytes", "tx_bytes", "rx_errors", "tx_errors")
    }
    shown |= {"rx_crc_errors": kernel["rx_crc_errors"]}
    shown |= {
        k: v for k, v in nic.spec.counters.items() if k not in kernel and k != "carrier_changes"
    }
    return "NIC statistics:\n" + "".join(f"     {k}: {v}\n" for k, v in shown.items())


def _write_nic(w: TreeWriter, pci: PciWriter, nic: NicView) -> None:
    spec = nic.spec
    ids = PciIds(
        vendor=nic.driver.vendor,
        device=nic.driver.device,
        subsystem_vendor=nic.driver.vendor,
        subsystem_device=nic.driver.subsystem_device,
        class_code=CLASS_ETHERNET,
    )
    function = pci.function(
        nic.pci_address, nic.root_port, ids, spec.driver, spec.pcie, spec.numa_node
    )
    directory = f"{function}/net/{nic.name}"
    w.attrs(
        directory, _link_attrs(nic.address, nic.ifindex, spec.mtu, nic.up, nic.speed, spec.duplex)
    )
    w.attrs(directory, _carrier_counts(nic))
    w.attrs(f"{directory}/statistics", _statistics(nic))
    w.link(f"{directory}/device", function)
    w.link(f"{SYS_NET}/{nic.name}", directory)
    bond = nic.bond
    if bond is None:
        return
    bond_dir = f"{VIRTUAL_NET}/{bond.name}"
    w.link(f"{directory}/master", bond_dir)
    w.link(f"{directory}/upper_{bond.name}", bond_dir)
    lacp = bond.spec.mode == "802.3ad"
    active = bond.active()
    state = "active" if lacp or nic is active else "backup"
    values = {
        "state": state,
        "mii_status": "up" if nic.up else "down",
        "link_failure_count": "0",
        "perm_hwaddr": nic.permanent_mac,
        "queue_id": "0",
    }
    if lacp:
        port_state = _actor_state(bond, nic)
        values |= {
            "ad_aggregator_id": str(_aggregator_id(bond, nic)),
            "ad_actor_oper_port_state": str(port_state),
            "ad_partner_oper_port_state": str(port_state if nic.up else 1),
        }
    w.attrs(f"{directory}/bonding_slave", values)


def _aggregator_id(bond: BondView, nic: NicView) -> int:
    """Members with a link share aggregator 1; each member without one sits alone."""
    if nic.up:
        return 1
    return 2 + [m for m in bond.members if not m.up].index(nic)


def _actor_state(bond: BondView, nic: NicView) -> int:
    if not nic.up:
        return LACP_STATE_DOWN
    return LACP_STATE_FAST if bond.spec.lacp_rate == "fast" else LACP_STATE_SLOW


def _actor_key(speed: int | None) -> int:
    """The LACP actor key: the speed class above the duplex bit (0 with no link)."""
    if speed is None:
        return 0
    return (_AD_SPEED.get(speed, 0) << 1) | 1


_MODE_NUMBER = {"802.3ad": 4, "active-backup": 1}
_HASH_NUMBER = {"layer2": 0, "layer3+4": 1, "layer2+3": 2, "encap2+3": 3, "encap3+4": 4}


def _write_bond(w: TreeWriter, bond: BondView, spec: HostSpec) -> None:
    s = bond.spec
    directory = f"{VIRTUAL_NET}/{bond.name}"
    up = bool(bond.members_up())
    mtu = s.mtu or (bond.members[0].spec.mtu if bond.members else 1500)
    w.attrs(directory, _link_attrs(bond.mac, bond.ifindex, mtu, up, bond.speed(), "full"))
    w.link(f"{SYS_NET}/{bond.name}", directory)
    names = spec.bond_members(s) + s.vanished
    active = bond.active()
    values = {
        "mode": f"{s.mode} {_MODE_NUMBER[s.mode]}",
        "slaves": " ".join(names),
        "miimon": str(s.miimon),
        "updelay": str(s.updelay),
        "downdelay": str(s.downdelay),
        "arp_interval": "0",
        "min_links": "0",
        "active_slave": active.name if active and s.mode == "active-backup" else "",
        "primary": s.primary or "",
        "xmit_hash_policy": f"{s.xmit_hash_policy} {_HASH_NUMBER[s.xmit_hash_policy]}",
    }
    if s.mode == "802.3ad":
        speed = bond.members_up()[0].speed if up else None
        values |= {
            "lacp_rate": f"{s.lacp_rate} {1 if s.lacp_rate == 'fast' else 0}",
            "ad_select": "stable 0",
            "ad_aggregator": "1" if up else "",
            "ad_num_ports": str(len(bond.members_up())) if up else "",
            "ad_actor_key": str(_actor_key(speed)) if up else "",
            "ad_partner_key": str(_partner_key(bond)) if up else "",
            "ad_partner_mac": bond.partner_mac,
        }
    w.attrs(f"{directory}/bonding", values)
    for member in bond.members:
        w.link(f"{directory}/lower_{member.name}", member_dir(member))


def member_dir(nic: NicView) -> str:
    """The net device directory of a NIC below the root."""
    return f"{SYS}/{pci_device_path(nic.pci_address, nic.root_port)}/net/{nic.name}"


def _partner_key(bond: BondView) -> int:
    """The switch's LACP key for the port channel: a stable number per bond."""
    return 1 + name_hash("partner-key", bond.name) % 0x7FFF


# --- /proc/net/bonding ------------------------------------------------------------------------


def bonding_text(bond: BondView, spec: HostSpec) -> str:
    """`/proc/net/bonding/<bond>` as bond_procfs.c prints it (read as root)."""
    s = bond.spec
    up = bool(bond.members_up())
    lacp = s.mode == "802.3ad"
    lines = [f"Ethernet Channel Bonding Driver: v{spec.host.kernel}", ""]
    if lacp:
        lines.append("Bonding Mode: IEEE 802.3ad Dynamic link aggregation")
        lines.append(
            f"Transmit Hash Policy: {s.xmit_hash_policy} ({_HASH_NUMBER[s.xmit_hash_policy]})"
        )
    else:
        active = bond.active()
        lines.append("Bonding Mode: fault-tolerance (active-backup)")
        lines.append(f"Primary Slave: {s.primary or 'None'}")
        lines.append(f"Currently Active Slave: {active.name if active else 'None'}")
    lines += [
        f"MII Status: {'up' if up else 'down'}",
        f"MII Polling Interval (ms): {s.miimon}",
        f"Up Delay (ms): {s.updelay}",
        f"Down Delay (ms): {s.downdelay}",
        "Peer Notification Delay (ms): 0",
    ]
    if lacp:
        speed = bond.members_up()[0].speed if up else None
        lines += [
            "",
            "802.3ad info",
            "LACP active: on",
            f"LACP rate: {s.lacp_rate}",
            "Min links: 0",
            "Aggregator selection policy (ad_select): stable",
            "System priority: 65535",
            f"System MAC address: {bond.mac}",
        ]
        if up:
            lines += [
                "Active Aggregator Info:",
                "\tAggregator ID: 1",
                f"\tNumber of ports: {len(bond.members_up())}",
                f"\tActor Key: {_actor_key(speed)}",
                f"\tPartner Key: {_partner_key(bond)}",
                f"\tPartner Mac Address: {bond.partner_mac}",
            ]
        else:
            lines.append(f"bond {bond.name} has no active aggregator")
    for number, member in enumerate(bond.members, start=1):
        lines += _member_lines(bond, member, number)
    for number, name in enumerate(s.vanished, start=len(bond.members) + 1):
        lines += _vanished_lines(bond, name, number)
    return "\n".join(lines) + "\n"


def _member_lines(bond: BondView, nic: NicView, number: int) -> list[str]:
    lines = [
        "",
        f"Slave Interface: {nic.name}",
        f"MII Status: {'up' if nic.up else 'down'}",
        f"Speed: {nic.speed} Mbps" if nic.speed is not None else "Speed: Unknown",
        f"Duplex: {nic.spec.duplex}" if nic.up else "Duplex: Unknown",
        "Link Failure Count: 0",
        f"Permanent HW addr: {nic.permanent_mac}",
        "Slave queue ID: 0",
    ]
    if bond.spec.mode != "802.3ad":
        return lines
    state = _actor_state(bond, nic)
    churn = "none" if nic.up else "churned"
    lines += [
        f"Aggregator ID: {_aggregator_id(bond, nic)}",
        f"Actor Churn State: {churn}",
        f"Partner Churn State: {churn}",
        f"Actor Churned Count: {0 if nic.up else 1}",
        f"Partner Churned Count: {0 if nic.up else 1}",
        "details actor lacp pdu:",
        "    system priority: 65535",
        f"    system mac address: {bond.mac}",
        f"    port key: {_actor_key(nic.speed)}",
        "    port priority: 255",
        f"    port number: {number}",
        f"    port state: {state}",
        "details partner lacp pdu:",
    ]
    if nic.up:
        lines += [
            "    system priority: 32768",
            f"    system mac address: {bond.partner_mac}",
            f"    oper key: {_partner_key(bond)}",
            "    port priority: 32768",
            f"    port number: {256 + number}",
            f"    port state: {state}",
        ]
    else:
        lines += [
            "    system priority: 65535",
            f"    system mac address: {NO_MAC}",
            "    oper key: 1",
            "    port priority: 255",
            "    port number: 1",
            "    port state: 1",
        ]
    return lines


def _vanished_lines(bond: BondView, name: str, number: int) -> list[str]:
    """A member the bond still lists although its interface is gone: no link at all."""
    lines = [
        "",
        f"Slave Interface: {name}",
        "MII Status: down",
        "Speed: Unknown",
        "Duplex: Unknown",
        "Link Failure Count: 1",
        f"Permanent HW addr: {_vanished_mac(bond.spec, name)}",
        "Slave queue ID: 0",
    ]
    if bond.spec.mode == "802.3ad":
        lines += [
            f"Aggregator ID: {1 + len(bond.members) + number}",
            "Actor Churn State: churned",
            "Partner Churn State: churned",
            "Actor Churned Count: 1",
            "Partner Churned Count: 1",
        ]
    return lines


# --- ethtool ----------------------------------------------------------------------------------


def _mode_names(nic: NicView, speeds: list[int]) -> list[list[str]]:
    """Link mode names, one list per speed (ethtool prints one speed a line)."""
    table = {"Twisted Pair": _COPPER, "FIBRE": _FIBRE}.get(nic.driver.port, _DAC)
    lines = []
    for speed in speeds:
        base = table.get(speed) or _COPPER.get(speed) or f"{speed}baseT"
        if speed <= 100 and nic.driver.port == "Twisted Pair":
            lines.append([f"{base}/Half", f"{base}/Full"])
        else:
            lines.append([f"{base}/Full"])
    return lines


def _modes_block(label: str, groups: list[list[str]]) -> list[str]:
    """`Supported link modes:   10baseT/Half 10baseT/Full ` and its continuation lines."""
    width = max(len(label) + 2, 24)
    if not groups:
        return [f"\t{label} Not reported"]
    lines = []
    for index, group in enumerate(groups):
        lead = label.ljust(width) if index == 0 else " " * width
        lines.append("\t" + lead + "".join(f"{mode} " for mode in group))
    return lines


def ethtool_text(nic: NicView) -> str:
    """`ethtool IF` as ethtool 6.1 prints it (as root)."""
    spec = nic.spec
    port = nic.driver.port
    pause = "Symmetric Receive-only" if port == "Twisted Pair" else "Symmetric"
    autoneg = "Yes" if spec.autoneg else "No"
    lines = [
        f"Settings for {nic.name}:",
        f"\tSupported ports: [ {_PORT_SHORT.get(port, 'FIBRE')} ]",
    ]
    lines += _modes_block("Supported link modes:", _mode_names(nic, nic.supported))
    lines += [
        f"\tSupported pause frame use: {pause}",
        "\tSupports auto-negotiation: Yes",
        "\tSupported FEC modes: Not reported",
    ]
    lines += _modes_block("Advertised link modes:", _mode_names(nic, nic.advertised))
    lines += [
        f"\tAdvertised pause frame use: {pause}",
        f"\tAdvertised auto-negotiation: {autoneg}",
        "\tAdvertised FEC modes: Not reported",
    ]
    if nic.up and nic.partner:
        lines += _modes_block("Link partner advertised link modes:", _mode_names(nic, nic.partner))
        lines += [
            "\tLink partner advertised pause frame use: Symmetric",
            f"\tLink partner advertised auto-negotiation: {autoneg}",
            "\tLink partner advertised FEC modes: Not reported",
        ]
    if nic.up:
        lines += [f"\tSpeed: {nic.speed}Mb/s", f"\tDuplex: {spec.duplex.capitalize()}"]
    else:
        lines += ["\tSpeed: Unknown!", "\tDuplex: Unknown! (255)"]
    lines += [
        f"\tAuto-negotiation: {'on' if spec.autoneg else 'off'}",
        f"\tPort: {port}",
        "\tPHYAD: 0",
        "\tTransceiver: internal",
    ]
    if port == "Twisted Pair":
        lines.append(f"\tMDI-X: {'off (auto)' if nic.up else 'Unknown'}")
    lines += [
        "\tSupports Wake-on: d",
        "\tWake-on: d",
        "\tCurrent message level: 0x00000007 (7)",
        "\t\t\t       drv probe link",
        f"\tLink detected: {'yes' if nic.up else 'no'}",
    ]
    return "\n".join(lines) + "\n"


def ethtool_driver_text(nic: NicView, kernel: str) -> str:
    """`ethtool -i IF` as ethtool 6.1 prints it."""
    spec = nic.spec
    return (
        f"driver: {spec.driver}\n"
        f"version: {spec.driver_version or kernel}\n"
        f"firmware-version: {spec.firmware or nic.driver.firmware}\n"
        "expansion-rom-version: \n"
        f"bus-info: {nic.pci_address}\n"
        "supports-statistics: yes\n"
        "supports-test: yes\n"
        "supports-eeprom-access: yes\n"
        "supports-register-dump: yes\n"
        "supports-priv-flags: yes\n"
    )


# --- the whole network ------------------------------------------------------------------------


def write_network(w: TreeWriter, pci: PciWriter, spec: HostSpec) -> None:
    """Every NIC and bond: sysfs, /proc/net/bonding and the ethtool outputs."""
    if not spec.nic and not spec.bond:
        return
    nics, bonds = nic_views(spec)
    w.mkdir(SYS_NET)
    for bond in bonds:
        _write_bond(w, bond, spec)
    for nic in nics:
        _write_nic(w, pci, nic)
    lo = f"{VIRTUAL_NET}/lo"
    w.attrs(
        lo,
        {"address": NO_MAC, "ifindex": "1", "mtu": "65536", "operstate": "unknown", "type": "772"},
    )
    w.link(f"{SYS_NET}/lo", lo)
    if bonds:
        w.write(f"{SYS_NET}/bonding_masters", (" ".join(b.name for b in bonds) + "\n").encode())
        w.mkdir("proc/net/bonding")
        for bond in bonds:
            w.write(f"proc/net/bonding/{bond.name}", bonding_text(bond, spec).encode())
    w.mkdir("commands/ethtool")
    w.mkdir("commands/ethtool-i")
    w.mkdir("commands/ethtool-S")
    for nic in nics:
        w.write(f"commands/ethtool-S/{nic.name}.txt", ethtool_statistics_text(nic).encode())
        w.write(f"commands/ethtool/{nic.name}.txt", ethtool_text(nic).encode())
        w.write(
            f"commands/ethtool-i/{nic.name}.txt",
            ethtool_driver_text(nic, spec.host.kernel).encode(),
        )
