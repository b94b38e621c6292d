"""NICs and bonds: what each link could do, what both ends offer, and the speed it runs at.

Three speeds per NIC answer "did this link negotiate down?" (field case 3: a 1 Gbit/s NIC
running at 100 Mbit/s over a bad cable) without any rule logic here:

* `max_supported_speed_mbps`: the fastest link mode the NIC supports (`ethtool` "Supported
  link modes");
* `max_common_speed_mbps`: the fastest link mode both ends advertise (our "Advertised link
  modes" ∩ "Link partner advertised link modes"); None when the partner's modes are unknown;
* `speed_mbps`: the speed it runs at (`/sys/class/net/IF/speed`; the kernel's -1 means none).

Speeds are in Mbit/s, as the kernel and ethtool give them. A fact that could not be learnt is
None, and `not_collected` on the entity says why in words an engineer acts on.

Ids (a contract: reports, mutes and history key on them):

* `nic:<MAC>` — the permanent MAC address: `/sys/class/net/IF/address` for a physical NIC,
  but for a bond member the "Permanent HW addr" of `/proc/net/bonding` (a member carries the
  bond's MAC while enslaved);
* `nic:<PCI address>/<ifname>` — a physical NIC whose MAC is unknown, all zeros or shared
  with another NIC;
* `nic:virtual/<ifname>` — a virtual interface (veth, bridge, tun, VLAN …): it has no
  hardware identity, only its name;
* `bond:<name>` — a bond is a software object; its name is its identity.
"""

from __future__ import annotations

import re
from enum import StrEnum

from pydantic import BaseModel, Field, computed_field

# A link mode name: "1000baseT/Full", "25000baseCR/Full", "2500baseX/Full", "10baseT1L/Full".
_LINK_MODE = re.compile(r"^(\d+)base\S*/(Half|Full)$")


def link_mode_speed_mbps(mode: str) -> int | None:
    """`10000baseT/Full` -> 10000; a name that is not a speed/duplex mode -> None."""
    match = _LINK_MODE.match(mode)
    return int(match.group(1)) if match else None


def fastest_mbps(modes: list[str]) -> int | None:
    """The highest speed among link mode names; None when none names a speed."""
    speeds = [s for s in (link_mode_speed_mbps(m) for m in modes) if s is not None]
    return max(speeds) if speeds else None


def nic_id_from_mac(mac: str) -> str:
    return f"nic:{mac.strip().lower()}"


def nic_id_from_pci(pci_address: str, ifname: str) -> str:
    return f"nic:{pci_address}/{ifname}"


def virtual_nic_id(ifname: str) -> str:
    return f"nic:virtual/{ifname}"


def bond_id(name: str) -> str:
    return f"bond:{name}"


class Duplex(StrEnum):
    FULL = "full"
    HALF = "half"


class NicKind(StrEnum):
    PHYSICAL = "physical"  # has a `device` link to the hardware it drives (a PCI function …)
    VIRTUAL = "virtual"  # under /sys/devices/virtual: veth, bridge, tun, VLAN, ifb …


class BondMode(StrEnum):
    """The bonding mode by the name `ip link` and sysfs use; the kernel's description follows."""

    BALANCE_RR = "balance-rr"  # load balancing (round-robin)
    ACTIVE_BACKUP = "active-backup"  # fault-tolerance (active-backup)
    BALANCE_XOR = "balance-xor"  # load balancing (xor)
    BROADCAST = "broadcast"  # fault-tolerance (broadcast)
    LACP = "802.3ad"  # IEEE 802.3ad Dynamic link aggregation
    BALANCE_TLB = "balance-tlb"  # transmit load balancing
    BALANCE_ALB = "balance-alb"  # adaptive load balancing


class EthtoolSettings(BaseModel):
    """What `ethtool IF` printed (ethtool 4.x to 6.x text): link modes, negotiation, port.

    Link mode lists are empty where ethtool says "Not reported" or prints nothing.
    """

    interface: str  # from "Settings for IF:"
    supported_ports: list[str] = Field(default_factory=list)  # "TP", "MII", "FIBRE" …
    supported_link_modes: list[str] = Field(default_factory=list)  # "1000baseT/Full" …
    supported_pause: str | None = None  # "Symmetric", "No" …
    supports_autoneg: bool | None = None
    supported_fec_modes: list[str] = Field(default_factory=list)
    advertised_link_modes: list[str] = Field(default_factory=list)
    advertised_pause: str | None = None
    advertised_autoneg: bool | None = None
    advertised_fec_modes: list[str] = Field(default_factory=list)
    # None: ethtool printed no link partner modes (autoneg off, link down, driver silent).
    partner_link_modes: list[str] | None = None
    partner_pause: str | None = None
    partner_autoneg: bool | None = None
    speed_mbps: int | None = None  # "Speed: 1000Mb/s"; "Unknown!" -> None
    duplex: Duplex | None = None  # "Duplex: Full"; "Unknown! (255)" -> None
    autoneg: bool | None = None  # "Auto-negotiation: on"
    port: str | None = None  # "Twisted Pair", "FIBRE", "Direct Attach Copper", "Other" …
    phy_address: int | None = None  # "PHYAD: 1"
    transceiver: str | None = None  # "internal", "external"
    mdix: str | None = None  # "off (auto)", "Unknown"
    lanes: int | None = None  # "Lanes: 4" (ethtool 5.10 and later, where the driver says)
    link_detected: bool | None = None  # None: "Cannot get link status" or no such line
    link_down_events: int | None = None  # "Link Down Events: 3" (ethtool 6.x, newer kernels)
    # Lines where ethtool said what it could not read ("Cannot get wake-on-lan settings: …").
    messages: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)  # values the parser could not use

    @computed_field  # type: ignore[prop-decorator]
    @property
    def max_supported_speed_mbps(self) -> int | None:
        """The fastest mode the NIC supports; None when it reports no link modes."""
        return fastest_mbps(self.supported_link_modes)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def max_advertised_speed_mbps(self) -> int | None:
        return fastest_mbps(self.advertised_link_modes)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def common_link_modes(self) -> list[str] | None:
        """Modes both ends advertise, in our order; None when the partner's are unknown."""
        if not self.partner_link_modes:
            return None
        theirs = set(self.partner_link_modes)
        return [m for m in self.advertised_link_modes if m in theirs]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def max_common_speed_mbps(self) -> int | None:
        """The fastest mode both ends advertise; None when the partner's modes are unknown."""
        common = self.common_link_modes
        return fastest_mbps(common) if common is not None else None


class DriverInfo(BaseModel):
    """What `ethtool -i IF` printed: the driver, its firmware and the bus address."""

    driver: str  # "e1000e", "virtio_net", "bonding", "veth"
    version: str | None = None  # driver version (often the kernel release)
    firmware_version: str | None = None  # empty in ethtool's output -> None
    expansion_rom_version: str | None = None
    bus_info: str | None = None  # "0000:00:1f.6" for PCI; empty for virtual interfaces -> None


class EthtoolStatistics(BaseModel):
    """What `ethtool -S IF` printed: the driver's own counters, by the driver's names."""

    counters: dict[str, int] = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list)  # lines the parser could not use


DRIVER_COUNTER_PREFIX = "ethtool:"  # `NicCounters.values()` names a driver's counter so


class NicCounters(BaseModel):
    """An interface's counters since boot (or since the driver was loaded), read each sweep;
    `net.link.errors` compares two sweeps. None or absent: not read (see `not_collected`).

    * `statistics`: `/sys/class/net/IF/statistics/*`, the kernel's names (`rx_errors`,
      `rx_crc_errors`, `tx_carrier_errors` …), every driver;
    * `carrier_changes`, `carrier_up_count`, `carrier_down_count`: `/sys/class/net/IF/…`, how
      often the link went down and up (a flapping cable or switch port);
    * `driver`: `ethtool -S IF`, the driver's own names (`port.rx_crc_errors`, `rx_align_errors`).
    """

    statistics: dict[str, int] = Field(default_factory=dict)
    carrier_changes: int | None = None
    carrier_up_count: int | None = None
    carrier_down_count: int | None = None
    driver: dict[str, int] = Field(default_factory=dict)

    def values(self) -> dict[str, int | None]:
        """Every counter by one name: the sysfs statistics and carrier counts by the kernel's
        names, the driver's as `ethtool:<name>`."""
        found: dict[str, int | None] = dict(self.statistics)
        found |= {
            "carrier_changes": self.carrier_changes,
            "carrier_up_count": self.carrier_up_count,
            "carrier_down_count": self.carrier_down_count,
        }
        found |= {f"{DRIVER_COUNTER_PREFIX}{n}": value for n, value in self.driver.items()}
        return found


class LinkState(BaseModel):
    """What `/sys/class/net/IF` says about any interface, NIC or bond."""

    name: str  # kernel name: changes across reboots and renames, never an identity
    mac_address: str | None = None  # `address` now (a bond member carries the bond's)
    operstate: str | None = None  # "up", "down", "lowerlayerdown", "dormant", "unknown" …
    carrier: bool | None = None  # None when the interface is administratively down
    mtu: int | None = None
    duplex: Duplex | None = None
    speed_mbps: int | None = None  # the speed it runs at; the kernel's -1 (none) -> None
    # Fact name -> why it is missing ("speed": "the link is down …"); empty when all is known.
    not_collected: dict[str, str] = Field(default_factory=dict)


class Nic(LinkState):
    """One network interface that is not a bond (physical NICs first, then virtual ones)."""

    id: str
    kind: NicKind
    pci_address: str | None = None  # the PCI function behind the `device` link
    device_path: str | None = None  # sysfs path of that device (`/sys/devices/pci…/0000:…`)
    permanent_mac_address: str | None = None  # a bond member's "Permanent HW addr"
    bond: str | None = None  # the bond it is a member of, by name
    driver: DriverInfo | None = None  # `ethtool -i`
    settings: EthtoolSettings | None = None  # `ethtool IF`
    counters: NicCounters | None = None  # error counters and carrier changes; None: not read

    @computed_field  # type: ignore[prop-decorator]
    @property
    def max_supported_speed_mbps(self) -> int | None:
        """The fastest link mode the NIC supports; None when unknown (see `not_collected`)."""
        return self.settings.max_supported_speed_mbps if self.settings else None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def max_common_speed_mbps(self) -> int | None:
        """The fastest mode both ends advertise; None when the partner's modes are unknown."""
        return self.settings.max_common_speed_mbps if self.settings else None


class BondMember(BaseModel):
    """One member ("slave") of a bond, as the bonding driver reports it."""

    name: str
    present: bool = True  # False: the bond lists it but /sys/class/net has no such interface
    nic_id: str | None = None  # the `Nic` it is, when present
    mii_status: str | None = None  # "up", "down", "going down", "going back"
    state: str | None = None  # "active" or "backup" (sysfs `bonding_slave/state`)
    speed_mbps: int | None = None  # as the bond sees it; "Unknown" -> None
    duplex: Duplex | None = None
    link_failure_count: int | None = None
    permanent_mac_address: str | None = None  # "Permanent HW addr"
    aggregator_id: int | None = None  # 802.3ad: the aggregator this port joined
    actor_port_key: int | None = None  # 802.3ad: "details actor lacp pdu: port key"
    partner_system_mac: str | None = None  # 802.3ad: "details partner lacp pdu: system mac address"
    partner_oper_key: int | None = None  # 802.3ad: "details partner lacp pdu: oper key"
    actor_churn_state: str | None = None  # "none", "churned", "monitoring"
    partner_churn_state: str | None = None


class Bond(LinkState):
    """A bonding master with its members; facts from `/proc/net/bonding/NAME` (else sysfs)."""

    id: str
    mode: BondMode | None = None
    mode_text: str | None = (
        None  # as the kernel printed it: "IEEE 802.3ad Dynamic link aggregation"
    )
    mii_status: str | None = None  # the bond's own "MII Status"
    transmit_hash_policy: str | None = None  # "layer2 (0)", "layer3+4 (1)"
    primary_member: str | None = None  # active-backup, balance-tlb/alb: "Primary Slave"
    active_member: str | None = None  # "Currently Active Slave"
    miimon_ms: int | None = None  # "MII Polling Interval (ms)"; 0: link monitoring off
    updelay_ms: int | None = None
    downdelay_ms: int | None = None
    arp_interval_ms: int | None = None
    lacp_rate: str | None = None  # 802.3ad: "slow" or "fast"
    min_links: int | None = None
    active_aggregator_id: int | None = None  # 802.3ad "Active Aggregator Info"
    active_aggregator_ports: int | None = None  # "Number of ports" in the active aggregator
    partner_key: int | None = None  # the switch's LACP key for the active aggregator
    partner_mac: str | None = None  # the switch's LACP system MAC; all zeros: no LACP partner
    members: list[BondMember] = Field(default_factory=list)
    source: str = "proc"  # where the bonding facts came from: "proc" or "sysfs"
    warnings: list[str] = Field(default_factory=list)  # lines the parser could not use

    @computed_field  # type: ignore[prop-decorator]
    @property
    def members_up(self) -> int:
        """Members whose MII status is "up"."""
        return sum(1 for m in self.members if m.mii_status == "up")


class Network(BaseModel):
    """Every interface but `lo`: NICs (physical and virtual) and bonds."""

    nics: list[Nic] = Field(default_factory=list)
    bonds: list[Bond] = Field(default_factory=list)

    def nic(self, name: str) -> Nic | None:
        """The NIC with kernel name `name` (for tests and display; ids are the keys)."""
        return next((n for n in self.nics if n.name == name), None)

    def bond(self, name: str) -> Bond | None:
        return next((b for b in self.bonds if b.name == name), None)
