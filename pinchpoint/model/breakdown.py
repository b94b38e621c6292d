"""Statistics summed along the hierarchy: what `pinchpoint stats show --by …` prints.

Field case 1 was solved by grouping: per disk the slow I/Os were spread evenly, per JBOD two
enclosures stood out by their share of slow I/Os and their queue per disk. A `Breakdown` holds,
for each level asked (disk, enclosure, chain, HBA port, HBA; LUN, FC port, FC adapter), one
`GroupFigures` per group: summed load, the mean queue per member, the mean wait, and the merged
latency histogram with its 99th percentile and its share of I/Os slower than a threshold.
Network traffic is grouped NIC → bond (`LinkFigures`): field case 3 found a client by its NIC
carrying 11 MB/s at a negotiated 100 Mbit/s where its peers ran at 1 Gbit/s.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from pinchpoint.model.histogram import LatencyHistogram
from pinchpoint.model.stats import HistogramKind


class GroupLevel(StrEnum):
    """A level of the hierarchy to group by (the `--by` values)."""

    DISK = "disk"
    ENCLOSURE = "enclosure"
    CHAIN = "chain"
    HBA_PORT = "hba-port"
    HBA = "hba"
    LUN = "lun"
    FC_PORT = "fc-port"
    FC_ADAPTER = "fc-adapter"
    NIC = "nic"  # a network interface: its traffic against its negotiated speed
    BOND = "bond"  # a bond: the sum of its members, each member's share
    STANDALONE = "standalone"  # matched to no topology: listed as the tool named it
    CONTROLLER = "controller"  # a disk controller outside the SAS fabric: AHCI, NVMe, virtio
    CONTROLLER_PORT = "controller-port"  # a port of one: an ATA port, an NVMe controller


class SlowerBasis(StrEnum):
    """What the latency columns of a group rest on."""

    HISTOGRAMS = "histograms"  # merged latency histograms: percentiles and shares are measured
    MEANS_ONLY = "means only"  # only per-interval means (diskstats, iostat): no p99, no share
    NO_FIGURES = "no figures"  # nothing measured for the group's members


class GroupFigures(BaseModel):
    """One group of one level over the whole measured time.

    Rates are sums over the members; `queue_per_member` is their summed aqu-sz (I/Os active
    plus waiting, averaged over time) divided by the members measured; `await_ms` is the mean
    time per I/O over all their reads and writes.
    """

    level: GroupLevel
    id: str
    name: str  # what a technician calls it: "JBOD-003", "0000:03:00.0 SAS9300-8e connector 0"
    detail: str | None = None  # the topology that may explain it: "1 path, chain of 4"
    members: int  # disks (or LUNs) in the group per the inventory
    measured: int  # members that have figures
    member_ids: list[str] = Field(default_factory=list)
    read_iops: float = 0.0
    write_iops: float = 0.0
    read_mb_s: float = 0.0  # MB/s in SI (10⁶ bytes, as `iostat --si` and every view say MB)
    write_mb_s: float = 0.0
    queue_per_member: float | None = None
    queue_vs_peers: float | None = None  # queue_per_member ÷ the median of its level
    await_ms: float | None = None
    util_pct: float | None = None  # mean %util of the measured members' devices
    histogram: LatencyHistogram | None = None  # every kind of the family merged (read + write)
    # the same kept apart by kind (read, write), when the breakdown was asked for them (the
    # sampler stores them so that a heat map says which it draws); not in the JSON
    histograms: dict[HistogramKind, LatencyHistogram] = Field(default_factory=dict, exclude=True)
    p99_ms: float | None = None
    share_slower: float | None = None  # 0.0–1.0 of I/Os slower than the breakdown's threshold
    slower_basis: SlowerBasis = SlowerBasis.NO_FIGURES

    @property
    def iops(self) -> float:
        return self.read_iops + self.write_iops

    @property
    def mb_s(self) -> float:
        return self.read_mb_s + self.write_mb_s


class LevelBreakdown(BaseModel):
    """Every group of one level, in the inventory's order."""

    level: GroupLevel
    groups: list[GroupFigures] = Field(default_factory=list)
    note: str | None = None  # e.g. "no FC ports in the inventory"


class LinkFigures(BaseModel):
    """One NIC or bond over the whole measured time: traffic per second and how busy it was.

    MB = 10^6 bytes and speeds in Mbit/s, as Ethernet counts them. `util_pct` is the busier
    direction against `speed_mbps` (a bond: the sum of its members' speeds), averaged over the
    measured time; `peak_util_pct` the busiest interval. Above 100 % is more than the link
    can carry: a measuring error (field case 5), flagged by `above_capacity`.
    """

    level: GroupLevel
    id: str  # `nic:<MAC>`, `bond:<name>`, or `interface:<name>` outside the inventory
    name: str  # the kernel name: eno1, bond0
    detail: str | None = None  # "e1000e, 100 of 1000 Mb/s", "802.3ad, 2 of 2 members up"
    bond: str | None = None  # a NIC's bond, by name
    speed_mbps: int | None = None  # negotiated (a bond: its members' summed)
    max_speed_mbps: int | None = None  # the fastest the NIC supports (a bond: summed)
    measured_s: float = 0.0
    rx_mb_s: float = 0.0
    tx_mb_s: float = 0.0
    rx_packets_s: float = 0.0
    tx_packets_s: float = 0.0
    errors_s: float = 0.0  # receive and transmit errors, per second
    drops_s: float = 0.0
    util_pct: float | None = None
    peak_util_pct: float | None = None
    above_capacity: bool = False
    share: float | None = None  # a bond member: 0.0–1.0 of the bond's bytes
    members: list[LinkFigures] = Field(default_factory=list)  # a bond's members

    @property
    def mb_s(self) -> float:
        return self.rx_mb_s + self.tx_mb_s


class LinkLevelBreakdown(BaseModel):
    """Every NIC or every bond of the inventory, in its order."""

    level: GroupLevel
    links: list[LinkFigures] = Field(default_factory=list)
    intervals: int = 0  # /proc/net/dev intervals used
    note: str | None = None  # e.g. "no bonds in the inventory"


class Breakdown(BaseModel):
    """The statistics of one host grouped along its hierarchy."""

    measured_s: float = 0.0  # the time the diskstats intervals span, summed
    intervals: int = 0  # diskstats intervals used
    slower_than_ms: float
    histogram_kinds: list[HistogramKind] = Field(default_factory=list)  # merged into the columns
    levels: list[LevelBreakdown] = Field(default_factory=list)
    network: list[LinkLevelBreakdown] = Field(default_factory=list)  # `--by nic`, `--by bond`
    standalone: list[GroupFigures] = Field(default_factory=list)  # matched to no topology
    unmatched: list[str] = Field(default_factory=list)  # names that matched no inventory entity
    notes: list[str] = Field(default_factory=list)  # intervals left out, resets, missing parts
