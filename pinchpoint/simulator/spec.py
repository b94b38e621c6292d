"""The spec of an imagined storage host: HBAs, SAS switches, JBODs and how they are cabled,
and the rest of the host: NICs and bonds, Fibre Channel ports with their LUNs, SMART outputs,
NVMe SSDs and ZFS pools.

A spec is a small TOML or YAML file; `load_spec` reads it, `write_snapshot` turns it into a
snapshot directory laid out like real Linux sysfs. Every field has a default except names.
Names are labels used only inside the spec (chains refer to them) and, for enclosures, the SES
subenclosure nickname. Bays are numbered from 0, as `bay_identifier` and the SES "device slot
number" count them (the element descriptor says "SLOT 01" for bay 0). I/O modules are "A" and
"B". SAS rates are Gbit/s and must be one of 1.5, 3.0, 6.0, 12.0, 22.5.

``[host]``
    hostname (str, "simulated-storage-host"), kernel (str, "6.1.0-28-amd64"),
    captured_at (RFC 3339 datetime, 2025-01-01T00:00:00Z: fixed so output is deterministic),
    first_scsi_host (int, 0): the kernel number of the first SCSI host; HBAs are numbered in
    PCI address order from there, as the kernel probes them.

``[[hba]]`` one SAS host bus adapter
    name (str, required); pci_address ("DDDD:BB:DD.F", default derived: bus 0x03, 0x04 …
    on NUMA node 0, 0x81, 0x82 … on node 1); root_port (PCI address of the root port above it,
    default derived from the bus: pci0000:00 below bus 0x80, pci0000:80 from 0x80 up);
    board_name ("SAS9300-8e"); driver ("mpt3sas"); firmware ("16.00.12.00");
    bios ("08.37.00.00"); chip ("SAS3008", shown as `version_product`); pci_vendor ("0x1000");
    pci_device (default by driver: mpt3sas "0x0097", mpi3mr "0x00a5"); phys (8): external
    connectors are groups of 4 phys, connector 0 = phys 0-3; max_rate_gbps (12.0);
    pcie (table: current_gts 8.0, current_width 8, max_gts 8.0, max_width 8); numa_node (0);
    can_queue (9856); sas_address (default derived from the name); sas_transport (true):
    false is an mpi3mr on an old kernel, with no sas_host/sas_port/sas_phy/expander classes
    at all and its SCSI targets directly below the host.

``[[switch]]`` a SAS switch: an expander that belongs to no enclosure
    name (required); vendor ("ASTEK"); product ("SAS_SWITCH"); revision ("0100");
    component_vendor ("PMCSIERA"); component_id (32854); component_revision (3); phys (48);
    max_rate_gbps (12.0); sas_address (derived). Its phys 0-3 go to the HBA connector, then
    each chain through it takes the next 4 phys, in spec order.

``[[enclosure]]`` a JBOD
    name (required: the SES subenclosure nickname); logical_id ("0x…", derived from the name
    when absent); vendor ("HGST"); product ("H4060-J"); revision ("3010"); bays (24);
    io_modules (2: "A" and "B"; 1: "A" only); expanders_per_io_module (1; a 4U60 has 3: one main
    expander holding the SES device and the in/out ports, then sub-expanders sharing the bays);
    max_rate_gbps (12.0); expander_product (default: product); expander_revision ("0210");
    expander_component_vendor ("PMCSIERA"); expander_component_id (32854);
    expander_component_revision (2); enclosure_class (true; false: the SES device lacks the
    EncServ bit, so no /sys/class/enclosure entry although it is still a SCSI type 13 device);
    lose_path (list of I/O modules that are not cabled: chains listing this enclosure skip it
    on that side); empty_bays (list of bays); missing_disk_paths (list of {bay, io_module}: that
    disk's port on that I/O module has no link);
    disk (table, every disk of the enclosure): vendor ("HGST"), model ("HUH721212AL5200"),
    revision ("A3D0"), size_bytes (12000138625024), rotational (true), protocol ("sas":
    dual-ported when io_modules = 2; "sata": single port, on I/O module A only),
    max_rate_gbps (12.0 for sas, 6.0 for sata), queue_depth (254 for sas, 32 for sata),
    nr_requests (256), scheduler ("mq-deadline"), logical_block_size (512),
    physical_block_size (4096), timeout (30), smart (true: `commands/smartctl/<sdX>.json`
    is written for the disk's first path, the device the health collector asks about),
    rotation_rate (7200; 0 for an SSD), temperature_c (31), power_on_hours (21000).

``[[chain]]`` one cable run, in cabling order
    hba (required); connector (0); io_module ("A"); enclosures (list of names, required):
    HBA → first → second …; switch (optional name: HBA connector → switch → this chain;
    several chains may share one switch and its HBA connector).

``[[degraded_link]]`` a link negotiated below what both its ends support
    rate_gbps (required) and either hba + phy (an HBA phy and the phy at its far end) or
    enclosure + io_module ("A") + bay (that I/O module's drive link).

``[[failing_disk]]`` a disk whose smartctl report says it is unwell
    enclosure and bay (required); kind: "grown_defects" (SAS: `scsi_grown_defect_list` =
    count), "reallocated" (SATA: Reallocated_Sector_Ct raw = count, and Current_Pending_Sector
    count // 4) or "smart_failed" (`smart_status.passed` false, exit status bit 3; SATA: the
    reallocated attribute also fails "now"); count (int, 120).

``[[lane_down]]`` one lane of an HBA connector's wide port without link (a damaged cable or
    connector lane, or a phy switched off)
    hba and phy (required: the HBA phy; its connector must be cabled); state ("Unknown": the
    link was lost, `negotiated_linkrate` says "Unknown"; "Phy disabled": someone wrote 0 to
    its `enable`); in_port (false: the state after discovery, as at boot — mpt3sas builds the
    port from the phys that have a link, so the phy stays outside it, with no `port` link, and
    `num_phys` counts the others; true: the lane was lost while running — mpt3sas keeps the
    phy in its port with the new rate). The expander phy at its far end has no link either.

``[[phy_errors]]`` the error counters of one phy (`sas_phy/*_count`, zero elsewhere)
    either hba and phy (an HBA phy), or enclosure, io_module ("A") and phy (a phy of that I/O
    module's main expander: 0-3 in, 4-7 out, then the bay phys); invalid_dword_count,
    running_disparity_error_count, loss_of_dword_sync_count, phy_reset_problem_count (0).
    Counters are totals since boot: two snapshots of one host with higher counts in the second
    are how a rise between two sweeps is simulated.

``[[partition]]`` a partition of a disk outside any ZFS pool (pool disks get ZFS's own)
    enclosure and bay (required); number (1); start (2048: the first sector, 512-byte units;
    2048 is 1 MiB, 63 the old DOS start); size (sectors, default: up to the 34 sectors the
    GPT backup keeps at the end, or up to the next partition). Written as the kernel shows it
    below every path's block device (`sdX/sdXN/{partition,start,size,dev,ro}`), in
    `/sys/class/block` and, with a workload, as an idle line of `/proc/diskstats`.

``[[nic]]`` one Ethernet port (a PCI function, `/sys/class/net/<name>`)
    name (required, e.g. "ens1f0"); pci_address (default derived: bus 0x18, 0x19 … one
    function .0 each); root_port (default derived as for HBAs); driver ("ixgbe"; also "ice",
    "i40e", "igb", "e1000e", "bnxt_en", "mlx5_core": each gives the PCI ids, firmware and
    default speeds); driver_version (default: the kernel release, as in-tree drivers report);
    firmware (default by driver); mac (default derived from the name); speeds_mbps (default by
    driver: ixgbe [1000, 10000], ice [1000, 10000, 25000], e1000e/igb [10, 100, 1000] …);
    advertised_mbps (default: speeds_mbps); partner_mbps (what the link partner advertises,
    default: advertised_mbps; [] for "Not reported"); the speed it runs at is derived: the
    highest speed both ends advertise (a 1 G NIC whose partner only does 100 runs at 100);
    duplex ("full"); mtu (1500); operstate ("up"; "down": no carrier, speed unknown); autoneg
    (true); numa_node (0); pcie (table as for HBAs, default 8 GT/s x8); bond (name of a
    `[[bond]]` it is a member of).

``[[bond]]`` a Linux bond (`/sys/devices/virtual/net/<name>`, `/proc/net/bonding/<name>`)
    name (required, e.g. "bond0"); mode ("802.3ad" or "active-backup"); members (list of NIC
    names, default: the NICs naming this bond, in spec order; NICs listed here join it);
    vanished (list of member names the bond still lists although no such interface exists);
    mac (default: the first member's MAC); mtu (default: the first member's); miimon (100);
    updelay (0); downdelay (0); lacp_rate ("slow" or "fast", 802.3ad); xmit_hash_policy
    ("layer3+4", 802.3ad); primary (active-backup: default none; the active member is the
    primary, else the first member whose link is up).

``[[fc_port]]`` one Fibre Channel port (a PCI function, one SCSI host with an fc_host)
    name (required: a label); pci_address (default derived: ports pair up as functions .0 and
    .1 of bus 0x41, 0x42 …); root_port (derived); driver ("lpfc" or "qla2xxx"); model (by
    driver: "LPe32002-M2", "QLE2692"); firmware (by driver); driver_version (by driver);
    symbolic_name (default built the way each driver does from model, firmware, version and
    the hostname); wwpn and wwnn (default derived from the name, in the maker's OUI);
    speed_gbps (16); supported_speeds_gbps ([4, 8, 16]: a port at 8 of [4, 8, 16] is
    downgraded); state ("Online" or "Linkdown": no speed, no remote port, no LUN); port_type
    ("NPort (fabric via point-to-point)"); numa_node (0); pcie (table, default 8 GT/s x8);
    array (str, "array1": the storage array its targets belong to; the LUN number L of one
    array is the same LU, one WWID, on every port and target that sees it); remote_ports (1:
    target ports of that array it logs into); luns (3: LUNs 1..N behind each target);
    lun_size_bytes (1 TiB); lun_vendor ("PURE"); lun_product ("FlashArray");
    lun_revision ("8888"); lun_queue_depth (default: the driver's module parameter);
    can_queue (by driver); smart (true: a smartctl output for each of its LUNs' first path).

``[multipath]`` dm-multipath over the FC LUNs
    enabled (false): every LU seen through two paths or more becomes a map `dm-N` (in the
    order of its first path) named mpatha, mpathb … (user_friendly_names, true; false: named by
    WWID), listed in `commands/multipath/ll.txt`; path_selector ("service-time 0");
    hwhandler ("1 alua"); features ("0").

``[fc_driver]`` module parameters of the FC drivers (written when a port uses the driver)
    lpfc_lun_queue_depth (30), lpfc_hba_queue_depth (8192), ql2xmaxqdepth (64).

``[[nvme]]`` one NVMe SSD: a PCI function, controller `nvmeN` (numbered in spec order from 0)
    and its namespace `nvmeNn1` in `/sys/block`
    pci_address (default derived: bus 0x61, 0x62 … function .0); root_port (derived);
    model ("Micron_7300_MTFDHBE1T6TDG"); serial (default derived); firmware ("95420260");
    size_bytes (1600321314816); pcie (table, default 8 GT/s x4 of 8 GT/s x4; a link trained
    at x2 of x4: `pcie = {current_width = 2, max_width = 4}`); numa_node (0);
    smart (true: `commands/smartctl/nvmeN.json`); critical_warning (0: healthy; a bit mask,
    e.g. 4 reliability degraded, 16 the volatile memory backup failed; any bit set fails the
    overall assessment, exit status bit 3, as smartctl does); media_errors (0);
    percentage_used (0); temperature_c (35); power_on_hours (5100). The namespace `wwid` is
    `eui.` + its EUI-64.

``[zfs]`` (optional) ZFS loaded on the host: `/sys/module/zfs`, `commands/zpool/status.txt`
    version ("2.1.11-1"); parameters (table of `zfs_vdev_*` module parameters overriding the
    OpenZFS 2.1 defaults, e.g. `zfs_vdev_async_read_max_active = 3`, sync read/write 10,
    async write 10, scrub 3, zfs_vdev_max_active 1000 …; unknown names are written as given).
    ``[[zfs.pool]]`` one pool, as `zpool status -P` prints it: name (required);
    enclosures (list of enclosure names, required: where its data disks are); bays (list of
    bays of those enclosures that hold data disks, default every occupied bay not used as a
    log, cache or spare or by an earlier pool); layout ("mirror", "raidz1", "raidz2",
    "raidz3" or "stripe"); width (disks per vdev: default the number of enclosures for a
    mirror across several, else 2 for a mirror, 6 for raidz, 1 for a stripe); order ("bay":
    disks taken bay by bay across the enclosures, so a mirror of two JBODs pairs bay 0 with
    bay 0; "enclosure": every bay of the first enclosure, then the next); vdevs (how many
    data vdevs, default as many full groups as the disks make; leftover disks stay unused);
    log, cache, spares (lists of {enclosure, bay}: a log of two or more is one mirror).
    Leaves are `/dev/disk/by-id/wwn-0x<LU name>-part1`, each a link to `../../sdX1` (the
    disk's first path); every path of a pool disk gets partitions 1 (start 2048, 1 MiB
    aligned) and 9 (8 MiB, ZFS's reserved one) in sysfs. A disk with no path at all shows
    UNAVAIL by GUID ("was /dev/disk/by-id/…"), its vdev and the pool DEGRADED.

``[workload]`` (optional) a simulated workload: `samples/<n>/proc/{diskstats,uptime}` and,
    where a ZFS pool carries load, `commands/zpool/iostat-w.txt` (see docs/simulator-workload.md
    for the model). samples (13, at least 2); interval_s (10.0); start_uptime_s (86400.0: the
    uptime of sample 0); seed (1: the same seed gives the same files); path_policy
    ("round-robin": a disk's I/O alternates over its linked paths, as dm-multipath or a
    multipathing OS does; "first": all of it goes through its first sdX, as a pool opened by-id
    without multipath); sas_link_efficiency (0.55: the share of a lane's raw rate that carries
    data when many disks share a wide port through expanders); fc_link_efficiency (0.8);
    hdd_random_ms (8.0: seek and rotation of one random I/O); hdd_sequential_ms (0.5);
    hdd_mbps (200.0: media rate); ssd_ms (0.1); ssd_mbps (1000.0); lun_ms (0.02: the array's
    time per I/O of one LUN, many disks behind it); ncq_gain (0.25: an HDD with c queued random
    I/Os serves them 1 + ncq_gain * log2(c) times faster by reordering); max_utilisation (0.9:
    a device is never offered more than this share of its capacity; the offered rate is cut);
    nic_efficiency (0.94: the share of a link's line rate a saturated NIC carries as counted
    bytes; a 100 Mbit/s link then carries 11.75 MB/s). With a `[workload]` every sample also
    holds `proc/net/dev` for lo, the NICs and the bonds.
    ``[[workload.network]]`` traffic offered to one NIC or bond: interface (its name); rx_mb_s,
    tx_mb_s (0.0: MB/s, 10^6 bytes, received and sent). A bond splits its traffic evenly over
    its members that are up (802.3ad hashes flows; active-backup: all on the active member);
    each NIC carries at most nic_efficiency × its negotiated speed, the rest is not carried.
    ``[[workload.load]]`` work given to a set of devices, exactly one of: pool (name of a
    `[[zfs.pool]]`: its data disks), enclosures (list: every disk in them), luns (true: every FC
    LU, through its multipath map when there is one). read_share (0.0-1.0, 0.5); io_kib (128);
    iops or mbps (offered per device; exactly one); pattern ("random" or "sequential");
    burst (1: I/Os arrive one by one at random times; N: in groups of N, as a ZFS txg sync or
    a database checkpoint issues them); even (true: every device of the load runs at the rate
    the slowest can sustain, as a mirrored pool does); sync_reads (true: ZFS reads are sync,
    writes async).

The host section also gives `/proc/sys/kernel/{hostname,osrelease}`.
"""

from __future__ import annotations

import re
import tomllib
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path
from typing import Annotated, Any, Literal, Self

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

IoModule = Literal["A", "B"]
IO_MODULE_NAMES: tuple[IoModule, ...] = ("A", "B")
SAS_RATES_GBPS = (1.5, 3.0, 6.0, 12.0, 22.5)
CONNECTOR_PHYS = 4
EXPANDER_PORT_PHYS = 8  # phys 0-3 in, 4-7 out, on every enclosure's main expander
SUB_EXPANDER_LINK_WIDTH = 10
FIXED_CAPTURE_TIME = datetime(2025, 1, 1, tzinfo=UTC)

_PCI_ADDRESS = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-1][0-9a-f]\.[0-7]$")
_HEX_ADDRESS = re.compile(r"^0x[0-9a-f]{16}$")


class SpecError(ValueError):
    """A spec that cannot describe a host; the message names the field at fault."""


def _sas_rate(value: float) -> float:
    """Only the rates SAS defines."""
    if value not in SAS_RATES_GBPS:
        raise ValueError(f"must be one of {', '.join(str(r) for r in SAS_RATES_GBPS)} Gbit/s")
    return value


def _hex_address(value: str) -> str:
    """A 64-bit SAS address or WWN, normalised to `0x` + 16 lower-case digits."""
    text = value.strip().lower()
    if not text.startswith("0x"):
        text = "0x" + text
    if not _HEX_ADDRESS.match(text):
        raise ValueError("must be 16 hex digits, e.g. 0x5000ccab0400a003")
    return text


SasRate = Annotated[float, AfterValidator(_sas_rate)]
HexAddress = Annotated[str, AfterValidator(_hex_address)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class HostSection(_Strict):
    """`[host]`: what the manifest says about the imagined host."""

    hostname: str = "simulated-storage-host"
    kernel: str = "6.1.0-28-amd64"
    captured_at: datetime = FIXED_CAPTURE_TIME
    first_scsi_host: int = Field(default=0, ge=0)


class PcieSpec(_Strict):
    """The PCIe link of an HBA: what it negotiated and what the slot and card could do."""

    current_gts: float = 8.0
    current_width: int = Field(default=8, ge=1)
    max_gts: float = 8.0
    max_width: int = Field(default=8, ge=1)


class HbaSpec(_Strict):
    """`[[hba]]`: one SAS HBA (one PCI function, one SCSI host)."""

    name: str = Field(min_length=1)
    pci_address: str | None = None
    root_port: str | None = None
    board_name: str = "SAS9300-8e"
    driver: str = "mpt3sas"
    firmware: str = "16.00.12.00"
    bios: str = "08.37.00.00"
    chip: str = "SAS3008"
    pci_vendor: str = "0x1000"
    pci_device: str | None = None
    phys: int = Field(default=8, ge=1, le=64)
    max_rate_gbps: SasRate = 12.0
    pcie: PcieSpec = PcieSpec()
    numa_node: int = Field(default=0, ge=-1)
    can_queue: int = Field(default=9856, ge=1)
    sas_address: HexAddress | None = None
    sas_transport: bool = True

    @field_validator("pci_address", "root_port")
    @classmethod
    def _pci(cls, value: str | None) -> str | None:
        """A PCI address `DDDD:BB:DD.F`, lower case."""
        if value is not None and not _PCI_ADDRESS.match(value.lower()):
            raise ValueError("must look like 0000:03:00.0")
        return None if value is None else value.lower()

    @property
    def connectors(self) -> int:
        """External connectors: each groups 4 phys."""
        return max(1, self.phys // CONNECTOR_PHYS)


class SwitchSpec(_Strict):
    """`[[switch]]`: a SAS switch, an expander that belongs to no enclosure."""

    name: str = Field(min_length=1)
    vendor: str = "ASTEK"
    product: str = "SAS_SWITCH"
    revision: str = "0100"
    component_vendor: str = "PMCSIERA"
    component_id: int = 32854
    component_revision: int = 3
    phys: int = Field(default=48, ge=8, le=255)
    max_rate_gbps: SasRate = 12.0
    sas_address: HexAddress | None = None


class DiskSpec(_Strict):
    """The disk model every occupied bay of an enclosure holds."""

    vendor: str = "HGST"
    model: str = "HUH721212AL5200"
    revision: str = "A3D0"
    size_bytes: int = Field(default=12000138625024, gt=0)
    rotational: bool = True
    protocol: Literal["sas", "sata"] = "sas"
    max_rate_gbps: SasRate | None = None
    queue_depth: int | None = Field(default=None, ge=1)
    nr_requests: int = Field(default=256, ge=1)
    scheduler: str = "mq-deadline"
    logical_block_size: int = 512
    physical_block_size: int = 4096
    timeout: int = 30
    smart: bool = True
    rotation_rate: int = Field(default=7200, ge=0)
    temperature_c: int = 31
    power_on_hours: int = Field(default=21000, ge=0)

    @property
    def link_max_gbps(self) -> float:
        """The fastest rate the disk's own phy can do."""
        if self.max_rate_gbps is not None:
            return self.max_rate_gbps
        return 12.0 if self.protocol == "sas" else 6.0

    @property
    def scsi_queue_depth(self) -> int:
        """What the driver sets as the SCSI device queue depth."""
        if self.queue_depth is not None:
            return self.queue_depth
        return 254 if self.protocol == "sas" else 32


class MissingPathSpec(_Strict):
    """One disk port with no link: the disk in `bay` is not reachable through `io_module`."""

    bay: int = Field(ge=0)
    io_module: IoModule = "B"


class EnclosureSpec(_Strict):
    """`[[enclosure]]`: a JBOD with one or two I/O modules."""

    name: str = Field(min_length=1)
    logical_id: HexAddress | None = None
    vendor: str = "HGST"
    product: str = "H4060-J"
    revision: str = "3010"
    bays: int = Field(default=24, ge=1, le=200)
    io_modules: int = Field(default=2, ge=1, le=2)
    expanders_per_io_module: int = Field(default=1, ge=1, le=4)
    max_rate_gbps: SasRate = 12.0
    expander_product: str | None = None
    expander_revision: str = "0210"
    expander_component_vendor: str = "PMCSIERA"
    expander_component_id: int = 32854
    expander_component_revision: int = 2
    enclosure_class: bool = True
    lose_path: list[IoModule] = Field(default_factory=list)
    empty_bays: list[int] = Field(default_factory=list)
    disk: DiskSpec = DiskSpec()
    missing_disk_paths: list[MissingPathSpec] = Field(default_factory=list)

    @property
    def io_module_names(self) -> tuple[IoModule, ...]:
        """The I/O modules this enclosure has: ("A",) or ("A", "B")."""
        return IO_MODULE_NAMES[: self.io_modules]

    @property
    def main_expander_phys(self) -> int:
        """Phys of an I/O module's main expander: in and out, the bays (or the links to its
        sub-expanders), and the SES device's virtual phy."""
        subs = self.expanders_per_io_module - 1
        inside = self.bays if subs == 0 else SUB_EXPANDER_LINK_WIDTH * subs
        return EXPANDER_PORT_PHYS + inside + 1

    @model_validator(mode="after")
    def _bays_in_range(self) -> Self:
        """Every bay named must exist."""
        for bay in self.empty_bays:
            if not 0 <= bay < self.bays:
                raise ValueError(f"empty_bays: bay {bay} is outside 0..{self.bays - 1}")
        for missing in self.missing_disk_paths:
            if missing.bay >= self.bays:
                raise ValueError(
                    f"missing_disk_paths: bay {missing.bay} is outside 0..{self.bays - 1}"
                )
            if missing.io_module not in self.io_module_names:
                raise ValueError(
                    f"missing_disk_paths: I/O module {missing.io_module} does not exist "
                    f"(io_modules = {self.io_modules})"
                )
        for iom in self.lose_path:
            if iom not in self.io_module_names:
                raise ValueError(f"lose_path: I/O module {iom} does not exist")
        if self.expanders_per_io_module > 1 and self.bays < self.expanders_per_io_module - 1:
            raise ValueError("expanders_per_io_module: more sub-expanders than bays")
        return self


class ChainSpec(_Strict):
    """`[[chain]]`: enclosures cabled one after the other from an HBA connector."""

    hba: str
    connector: int = Field(default=0, ge=0)
    io_module: IoModule = "A"
    enclosures: list[str] = Field(min_length=1)
    switch: str | None = None


class DegradedLinkSpec(_Strict):
    """`[[degraded_link]]`: an HBA phy, or an enclosure drive link, negotiated too low."""

    rate_gbps: SasRate
    hba: str | None = None
    phy: int | None = Field(default=None, ge=0)
    enclosure: str | None = None
    io_module: IoModule = "A"
    bay: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _one_end(self) -> Self:
        """A degraded link is either an HBA phy or a drive link."""
        hba_side = self.hba is not None or self.phy is not None
        bay_side = self.enclosure is not None or self.bay is not None
        if hba_side == bay_side:
            raise ValueError("give either hba and phy, or enclosure, io_module and bay")
        if hba_side and (self.hba is None or self.phy is None):
            raise ValueError("an HBA link needs both hba and phy")
        if bay_side and (self.enclosure is None or self.bay is None):
            raise ValueError("a drive link needs both enclosure and bay")
        return self


class FailingDiskSpec(_Strict):
    """`[[failing_disk]]`: a disk whose smartctl report shows it unwell."""

    enclosure: str
    bay: int = Field(ge=0)
    kind: Literal["grown_defects", "reallocated", "smart_failed"]
    count: int = Field(default=120, ge=0)


LaneState = Literal["Unknown", "Phy disabled"]


class LaneDownSpec(_Strict):
    """`[[lane_down]]`: one lane of an HBA connector's wide port with no link."""

    hba: str
    phy: int = Field(ge=0)
    state: LaneState = "Unknown"
    in_port: bool = False


class PhyErrorsSpec(_Strict):
    """`[[phy_errors]]`: the error counters of one HBA or expander phy."""

    hba: str | None = None
    enclosure: str | None = None
    io_module: IoModule = "A"
    phy: int = Field(ge=0)
    invalid_dword_count: int = Field(default=0, ge=0)
    running_disparity_error_count: int = Field(default=0, ge=0)
    loss_of_dword_sync_count: int = Field(default=0, ge=0)
    phy_reset_problem_count: int = Field(default=0, ge=0)

    @model_validator(mode="after")
    def _one_owner(self) -> Self:
        """The phy belongs to an HBA or to an enclosure's expander, not both."""
        if (self.hba is None) == (self.enclosure is None):
            raise ValueError("give either hba and phy, or enclosure, io_module and phy")
        return self

    @property
    def counters(self) -> dict[str, int]:
        """The four counters by their sysfs names."""
        return {
            "invalid_dword_count": self.invalid_dword_count,
            "running_disparity_error_count": self.running_disparity_error_count,
            "loss_of_dword_sync_count": self.loss_of_dword_sync_count,
            "phy_reset_problem_count": self.phy_reset_problem_count,
        }


class PartitionSpec(_Strict):
    """`[[partition]]`: a partition of one disk, in 512-byte sectors."""

    enclosure: str
    bay: int = Field(ge=0)
    number: int = Field(default=1, ge=1, le=128)
    start: int = Field(default=2048, ge=1)
    size: int | None = Field(default=None, ge=1)


def _pci_or_none(value: str | None) -> str | None:
    """A PCI address `DDDD:BB:DD.F`, lower case."""
    if value is not None and not _PCI_ADDRESS.match(value.lower()):
        raise ValueError("must look like 0000:03:00.0")
    return None if value is None else value.lower()


PciAddress = Annotated[str | None, AfterValidator(_pci_or_none)]
_MAC = re.compile(r"^[0-9a-f]{2}(:[0-9a-f]{2}){5}$")


def _mac(value: str | None) -> str | None:
    """An Ethernet MAC `aa:bb:cc:dd:ee:ff`, lower case."""
    if value is not None and not _MAC.match(value.lower()):
        raise ValueError("must look like 3c:ec:ef:12:34:56")
    return None if value is None else value.lower()


MacAddress = Annotated[str | None, AfterValidator(_mac)]
NIC_SPEEDS_MBPS = (10, 100, 1000, 2500, 5000, 10000, 25000, 40000, 50000, 100000)


class NicSpec(_Strict):
    """`[[nic]]`: one Ethernet port."""

    name: str = Field(min_length=1, max_length=15, pattern=r"^[A-Za-z0-9_.-]+$")
    pci_address: PciAddress = None
    root_port: PciAddress = None
    driver: str = "ixgbe"
    driver_version: str | None = None
    firmware: str | None = None
    mac: MacAddress = None
    speeds_mbps: list[int] | None = None
    advertised_mbps: list[int] | None = None
    partner_mbps: list[int] | None = None
    duplex: Literal["full", "half"] = "full"
    mtu: int = Field(default=1500, ge=68, le=65535)
    operstate: Literal["up", "down"] = "up"
    autoneg: bool = True
    numa_node: int = Field(default=0, ge=-1)
    pcie: PcieSpec = PcieSpec()
    bond: str | None = None

    @field_validator("speeds_mbps", "advertised_mbps", "partner_mbps")
    @classmethod
    def _speeds(cls, value: list[int] | None) -> list[int] | None:
        """Only Ethernet speeds with a link mode name."""
        for speed in value or []:
            if speed not in NIC_SPEEDS_MBPS:
                raise ValueError(
                    f"{speed} is not an Ethernet speed; use {', '.join(map(str, NIC_SPEEDS_MBPS))}"
                )
        return None if value is None else sorted(set(value))


class BondSpec(_Strict):
    """`[[bond]]`: a Linux bonding master."""

    name: str = Field(min_length=1, max_length=15, pattern=r"^[A-Za-z0-9_.-]+$")
    mode: Literal["802.3ad", "active-backup"] = "802.3ad"
    members: list[str] = Field(default_factory=list)
    vanished: list[str] = Field(default_factory=list)
    mac: MacAddress = None
    mtu: int | None = Field(default=None, ge=68, le=65535)
    miimon: int = Field(default=100, ge=0)
    updelay: int = Field(default=0, ge=0)
    downdelay: int = Field(default=0, ge=0)
    lacp_rate: Literal["slow", "fast"] = "slow"
    xmit_hash_policy: Literal["layer2", "layer3+4", "layer2+3", "encap2+3", "encap3+4"] = "layer3+4"
    primary: str | None = None


class FcPortSpec(_Strict):
    """`[[fc_port]]`: one Fibre Channel port and what it sees."""

    name: str = Field(min_length=1)
    pci_address: PciAddress = None
    root_port: PciAddress = None
    driver: Literal["lpfc", "qla2xxx"] = "lpfc"
    model: str | None = None
    firmware: str | None = None
    driver_version: str | None = None
    symbolic_name: str | None = None
    wwpn: HexAddress | None = None
    wwnn: HexAddress | None = None
    speed_gbps: int = Field(default=16, ge=1)
    supported_speeds_gbps: list[int] = Field(default_factory=lambda: [4, 8, 16], min_length=1)
    state: Literal["Online", "Linkdown"] = "Online"
    port_type: str = "NPort (fabric via point-to-point)"
    numa_node: int = Field(default=0, ge=-1)
    pcie: PcieSpec = PcieSpec()
    array: str = Field(default="array1", min_length=1)
    remote_ports: int = Field(default=1, ge=0, le=64)
    luns: int = Field(default=3, ge=0, le=4096)
    lun_size_bytes: int = Field(default=1 << 40, gt=0)
    lun_vendor: str = "PURE"
    lun_product: str = "FlashArray"
    lun_revision: str = "8888"
    lun_queue_depth: int | None = Field(default=None, ge=1)
    can_queue: int | None = Field(default=None, ge=1)
    smart: bool = True

    @model_validator(mode="after")
    def _speed_supported(self) -> Self:
        """The running speed must be one the port supports."""
        if self.state == "Online" and self.speed_gbps not in self.supported_speeds_gbps:
            raise ValueError(
                f"speed_gbps: {self.speed_gbps} is not in supported_speeds_gbps "
                f"{self.supported_speeds_gbps}"
            )
        return self


class MultipathSpec(_Strict):
    """`[multipath]`: dm-multipath maps over LUNs seen through several paths."""

    enabled: bool = False
    user_friendly_names: bool = True
    path_selector: str = "service-time 0"
    hwhandler: str = "1 alua"
    features: str = "0"


class FcDriverSpec(_Strict):
    """`[fc_driver]`: FC driver module parameters."""

    lpfc_lun_queue_depth: int = Field(default=30, ge=1)
    lpfc_hba_queue_depth: int = Field(default=8192, ge=1)
    ql2xmaxqdepth: int = Field(default=64, ge=1)


class NvmeSpec(_Strict):
    """`[[nvme]]`: one NVMe SSD on PCIe with one namespace."""

    pci_address: PciAddress = None
    root_port: PciAddress = None
    model: str = "Micron_7300_MTFDHBE1T6TDG"
    serial: str | None = None
    firmware: str = "95420260"
    size_bytes: int = Field(default=1600321314816, gt=0)
    pcie: PcieSpec = PcieSpec(current_width=4, max_width=4)
    numa_node: int = Field(default=0, ge=-1)
    smart: bool = True
    critical_warning: int = Field(default=0, ge=0, le=255)
    media_errors: int = Field(default=0, ge=0)
    percentage_used: int = Field(default=0, ge=0, le=255)
    temperature_c: int = 35
    power_on_hours: int = Field(default=5100, ge=0)


class ZfsDiskRef(_Strict):
    """A disk of the spec, by enclosure and bay (a log, cache or spare device of a pool)."""

    enclosure: str = Field(min_length=1)
    bay: int = Field(ge=0)


ZfsLayout = Literal["mirror", "raidz1", "raidz2", "raidz3", "stripe"]


class ZfsPoolSpec(_Strict):
    """`[[zfs.pool]]`: one pool built from enclosures' disks."""

    name: str = Field(min_length=1, pattern=r"^[A-Za-z][\w.:-]*$")
    enclosures: list[str] = Field(min_length=1)
    bays: list[int] | None = None
    layout: ZfsLayout = "mirror"
    width: int | None = Field(default=None, ge=1, le=255)
    order: Literal["bay", "enclosure"] = "bay"
    vdevs: int | None = Field(default=None, ge=1)
    log: list[ZfsDiskRef] = Field(default_factory=list)
    cache: list[ZfsDiskRef] = Field(default_factory=list)
    spares: list[ZfsDiskRef] = Field(default_factory=list)

    @property
    def group_width(self) -> int:
        """Disks per data vdev."""
        if self.width is not None:
            return self.width
        if self.layout == "mirror":
            return max(2, len(self.enclosures))
        return 1 if self.layout == "stripe" else 6

    @model_validator(mode="after")
    def _width_fits(self) -> Self:
        """A mirror needs two disks, raidzN more than N parity disks."""
        parity = {"raidz1": 1, "raidz2": 2, "raidz3": 3}.get(self.layout, 0)
        least = 2 if self.layout == "mirror" else parity + 1
        if self.group_width < least:
            raise ValueError(f"width: a {self.layout} vdev needs at least {least} disks")
        if self.layout == "stripe" and self.group_width != 1:
            raise ValueError("width: a stripe has one disk per vdev")
        return self


class ZfsSpec(_Strict):
    """`[zfs]`: the ZFS module and its pools."""

    version: str = "2.1.11-1"
    parameters: dict[str, int] = Field(default_factory=dict)
    pool: list[ZfsPoolSpec] = Field(default_factory=list)


class LoadSpec(_Strict):
    """`[[workload.load]]`: the same work given to every device of a set."""

    pool: str | None = None
    enclosures: list[str] | None = None
    luns: bool = False
    read_share: float = Field(default=0.5, ge=0.0, le=1.0)
    io_kib: int = Field(default=128, ge=1, le=16384)
    iops: float | None = Field(default=None, gt=0)
    mbps: float | None = Field(default=None, gt=0)
    pattern: Literal["random", "sequential"] = "random"
    burst: int = Field(default=1, ge=1, le=100000)
    even: bool = True
    sync_reads: bool = True

    @model_validator(mode="after")
    def _one_target_one_rate(self) -> Self:
        """A load names one set of devices and one offered rate."""
        targets = sum((self.pool is not None, self.enclosures is not None, self.luns))
        if targets != 1:
            raise ValueError("give exactly one of pool, enclosures or luns = true")
        if (self.iops is None) == (self.mbps is None):
            raise ValueError("give exactly one of iops or mbps (offered per device)")
        return self

    @property
    def offered_iops(self) -> float:
        """I/Os per second offered to each device."""
        if self.iops is not None:
            return self.iops
        assert self.mbps is not None
        return self.mbps * 1_000_000 / (self.io_kib * 1024)


class NetworkLoadSpec(_Strict):
    """`[[workload.network]]`: traffic offered to one NIC or bond, in MB/s (10^6 bytes)."""

    interface: str = Field(min_length=1)
    rx_mb_s: float = Field(default=0.0, ge=0)
    tx_mb_s: float = Field(default=0.0, ge=0)


class WorkloadSpec(_Strict):
    """`[workload]`: sampling, the device and link model's parameters, and the loads."""

    samples: int = Field(default=13, ge=2, le=10000)
    interval_s: float = Field(default=10.0, gt=0, le=86400)
    start_uptime_s: float = Field(default=86400.0, ge=0)
    seed: int = 1
    path_policy: Literal["round-robin", "first"] = "round-robin"
    sas_link_efficiency: float = Field(default=0.55, gt=0, le=1)
    fc_link_efficiency: float = Field(default=0.8, gt=0, le=1)
    hdd_random_ms: float = Field(default=8.0, gt=0)
    hdd_sequential_ms: float = Field(default=0.5, ge=0)
    hdd_mbps: float = Field(default=200.0, gt=0)
    ssd_ms: float = Field(default=0.1, gt=0)
    ssd_mbps: float = Field(default=1000.0, gt=0)
    lun_ms: float = Field(default=0.02, gt=0)
    ncq_gain: float = Field(default=0.25, ge=0, le=4)
    max_utilisation: float = Field(default=0.9, gt=0, lt=1)
    nic_efficiency: float = Field(default=0.94, gt=0, le=1)
    load: list[LoadSpec] = Field(default_factory=list)
    network: list[NetworkLoadSpec] = Field(default_factory=list)


class HostSpec(_Strict):
    """A whole imagined host: the root of a spec file."""

    host: HostSection = HostSection()
    hba: list[HbaSpec] = Field(default_factory=list)
    switch: list[SwitchSpec] = Field(default_factory=list)
    enclosure: list[EnclosureSpec] = Field(default_factory=list)
    chain: list[ChainSpec] = Field(default_factory=list)
    degraded_link: list[DegradedLinkSpec] = Field(default_factory=list)
    lane_down: list[LaneDownSpec] = Field(default_factory=list)
    phy_errors: list[PhyErrorsSpec] = Field(default_factory=list)
    failing_disk: list[FailingDiskSpec] = Field(default_factory=list)
    partition: list[PartitionSpec] = Field(default_factory=list)
    nic: list[NicSpec] = Field(default_factory=list)
    bond: list[BondSpec] = Field(default_factory=list)
    fc_port: list[FcPortSpec] = Field(default_factory=list)
    multipath: MultipathSpec = MultipathSpec()
    fc_driver: FcDriverSpec = FcDriverSpec()
    nvme: list[NvmeSpec] = Field(default_factory=list)
    zfs: ZfsSpec | None = None
    workload: WorkloadSpec | None = None

    def bond_members(self, bond: BondSpec) -> list[str]:
        """A bond's members: those it lists, then the NICs naming it, in spec order."""
        members = list(bond.members)
        for nic in self.nic:
            if nic.bond == bond.name and nic.name not in members:
                members.append(nic.name)
        return members

    def hba_named(self, name: str) -> HbaSpec:
        """The HBA of that name (names are checked to exist)."""
        return next(h for h in self.hba if h.name == name)

    def enclosure_named(self, name: str) -> EnclosureSpec:
        """The enclosure of that name."""
        return next(e for e in self.enclosure if e.name == name)

    def switch_named(self, name: str) -> SwitchSpec:
        """The switch of that name."""
        return next(s for s in self.switch if s.name == name)

    @model_validator(mode="after")
    def _references(self) -> Self:
        """Chains and degraded links refer to things that exist, cabled once."""
        _check_unique("hba", [h.name for h in self.hba])
        _check_unique("switch", [s.name for s in self.switch])
        _check_unique("enclosure", [e.name for e in self.enclosure])
        _check_unique("hba pci_address", [h.pci_address for h in self.hba if h.pci_address])
        hbas = {h.name: h for h in self.hba}
        enclosures = {e.name: e for e in self.enclosure}
        switches = {s.name: s for s in self.switch}
        cabled: dict[tuple[str, str], int] = {}
        connector_use: dict[tuple[str, int], tuple[int, str | None]] = {}
        switch_use: dict[str, tuple[str, int]] = {}
        for i, chain in enumerate(self.chain):
            where = f"chain[{i}]"
            hba = hbas.get(chain.hba)
            if hba is None:
                raise ValueError(f"{where}.hba: unknown HBA {chain.hba!r}{_known(hbas)}")
            if chain.connector >= hba.connectors:
                raise ValueError(
                    f"{where}.connector: HBA {hba.name!r} has {hba.phys} phys, so connectors "
                    f"0..{hba.connectors - 1}; {chain.connector} is beyond them"
                )
            if chain.switch is not None and chain.switch not in switches:
                raise ValueError(
                    f"{where}.switch: unknown switch {chain.switch!r}{_known(switches)}"
                )
            key = (chain.hba, chain.connector)
            earlier = connector_use.get(key)
            if earlier is not None and (chain.switch is None or earlier[1] != chain.switch):
                raise ValueError(
                    f"{where}: HBA {chain.hba!r} connector {chain.connector} is already cabled by "
                    f"chain[{earlier[0]}]; only chains through one switch may share a connector"
                )
            connector_use.setdefault(key, (i, chain.switch))
            if chain.switch is not None:
                seen = switch_use.setdefault(chain.switch, key)
                if seen != key:
                    raise ValueError(
                        f"{where}.switch: switch {chain.switch!r} is already cabled to HBA "
                        f"{seen[0]!r} connector {seen[1]}"
                    )
            if len(set(chain.enclosures)) != len(chain.enclosures):
                raise ValueError(f"{where}.enclosures: an enclosure is listed twice")
            for name in chain.enclosures:
                enclosure = enclosures.get(name)
                if enclosure is None:
                    raise ValueError(
                        f"{where}.enclosures: unknown enclosure {name!r}{_known(enclosures)}"
                    )
                if chain.io_module not in enclosure.io_module_names:
                    raise ValueError(
                        f"{where}.io_module: enclosure {name!r} has no I/O module "
                        f"{chain.io_module} (io_modules = {enclosure.io_modules})"
                    )
                if chain.io_module in enclosure.lose_path:
                    continue
                side = (name, chain.io_module)
                if side in cabled:
                    raise ValueError(
                        f"{where}.enclosures: I/O module {chain.io_module} of {name!r} is already "
                        f"cabled by chain[{cabled[side]}]"
                    )
                cabled[side] = i
        for switch_name, (hba_name, connector) in switch_use.items():
            switch = switches[switch_name]
            chains = sum(1 for c in self.chain if c.switch == switch_name)
            needed = CONNECTOR_PHYS * (1 + chains)
            if needed > switch.phys:
                raise ValueError(
                    f"switch {switch_name!r}: {chains} chains and the link to HBA {hba_name!r} "
                    f"connector {connector} need {needed} phys, it has {switch.phys}"
                )
        for i, link in enumerate(self.degraded_link):
            where = f"degraded_link[{i}]"
            if link.hba is not None:
                hba = hbas.get(link.hba)
                if hba is None:
                    raise ValueError(f"{where}.hba: unknown HBA {link.hba!r}{_known(hbas)}")
                if link.phy is not None and link.phy >= hba.phys:
                    raise ValueError(
                        f"{where}.phy: HBA {hba.name!r} has phys 0..{hba.phys - 1}; "
                        f"{link.phy} is beyond them"
                    )
            if link.enclosure is not None:
                enclosure = enclosures.get(link.enclosure)
                if enclosure is None:
                    raise ValueError(
                        f"{where}.enclosure: unknown enclosure {link.enclosure!r}"
                        f"{_known(enclosures)}"
                    )
                if link.bay is not None and link.bay >= enclosure.bays:
                    raise ValueError(
                        f"{where}.bay: bay {link.bay} is outside 0..{enclosure.bays - 1}"
                    )
                if link.io_module not in enclosure.io_module_names:
                    raise ValueError(f"{where}.io_module: no I/O module {link.io_module}")
        self._check_failing(enclosures)
        self._check_lanes(hbas, connector_use)
        self._check_phy_errors(hbas, enclosures)
        self._check_partitions(enclosures)
        self._check_network()
        self._check_fc()
        self._check_zfs(enclosures)
        self._check_workload(enclosures)
        return self

    def _check_workload(self, enclosures: dict[str, EnclosureSpec]) -> None:
        """Loads name pools and enclosures that exist; LUN loads need FC ports."""
        if self.workload is None:
            return
        pools = {p.name: p for p in (self.zfs.pool if self.zfs else [])}
        for i, load in enumerate(self.workload.load):
            where = f"workload.load[{i}]"
            if load.pool is not None and load.pool not in pools:
                raise ValueError(f"{where}.pool: unknown pool {load.pool!r}{_known(pools)}")
            for name in load.enclosures or []:
                if name not in enclosures:
                    raise ValueError(
                        f"{where}.enclosures: unknown enclosure {name!r}{_known(enclosures)}"
                    )
            if load.luns and not self.fc_port:
                raise ValueError(f"{where}.luns: the host has no [[fc_port]], so no LUN")
        links = {n.name: n for n in self.nic} | {b.name: b for b in self.bond}
        for i, traffic in enumerate(self.workload.network):
            if traffic.interface not in links:
                raise ValueError(
                    f"workload.network[{i}].interface: unknown NIC or bond "
                    f"{traffic.interface!r}{_known(links)}"
                )

    def _check_zfs(self, enclosures: dict[str, EnclosureSpec]) -> None:
        """Pools name known enclosures and occupied bays, each disk used once."""
        if self.zfs is None:
            return
        _check_unique("zfs.pool", [p.name for p in self.zfs.pool])
        used: dict[tuple[str, int], str] = {}
        for i, pool in enumerate(self.zfs.pool):
            where = f"zfs.pool[{i}]"
            for name in pool.enclosures:
                if name not in enclosures:
                    raise ValueError(
                        f"{where}.enclosures: unknown enclosure {name!r}{_known(enclosures)}"
                    )
            for bay in pool.bays or []:
                if not any(bay < enclosures[n].bays for n in pool.enclosures):
                    raise ValueError(f"{where}.bays: bay {bay} is in none of its enclosures")
            for role in ("log", "cache", "spares"):
                refs: list[ZfsDiskRef] = getattr(pool, role)
                for j, ref in enumerate(refs):
                    enclosure = enclosures.get(ref.enclosure)
                    if enclosure is None:
                        raise ValueError(
                            f"{where}.{role}[{j}].enclosure: unknown enclosure "
                            f"{ref.enclosure!r}{_known(enclosures)}"
                        )
                    if ref.bay >= enclosure.bays or ref.bay in enclosure.empty_bays:
                        raise ValueError(f"{where}.{role}[{j}].bay: bay {ref.bay} holds no disk")
                    key = (ref.enclosure, ref.bay)
                    if key in used:
                        raise ValueError(
                            f"{where}.{role}[{j}]: {ref.enclosure} bay {ref.bay} is already "
                            f"used by pool {used[key]!r}"
                        )
                    used[key] = pool.name

    def _check_lanes(
        self, hbas: dict[str, HbaSpec], cabled: dict[tuple[str, int], tuple[int, str | None]]
    ) -> None:
        """A lane down names an HBA phy of a cabled connector, once."""
        seen: set[tuple[str, int]] = set()
        for i, lane in enumerate(self.lane_down):
            where = f"lane_down[{i}]"
            hba = hbas.get(lane.hba)
            if hba is None:
                raise ValueError(f"{where}.hba: unknown HBA {lane.hba!r}{_known(hbas)}")
            if lane.phy >= hba.phys:
                raise ValueError(
                    f"{where}.phy: HBA {hba.name!r} has phys 0..{hba.phys - 1}; "
                    f"{lane.phy} is beyond them"
                )
            connector = lane.phy // CONNECTOR_PHYS
            if (hba.name, connector) not in cabled:
                raise ValueError(
                    f"{where}.phy: phy {lane.phy} is on connector {connector} of HBA "
                    f"{hba.name!r}, which no chain cables (an uncabled lane has no link anyway)"
                )
            if (hba.name, lane.phy) in seen:
                raise ValueError(f"{where}: HBA {hba.name!r} phy {lane.phy} is listed twice")
            if any(d.hba == hba.name and d.phy == lane.phy for d in self.degraded_link):
                raise ValueError(f"{where}: phy {lane.phy} is also a degraded_link (it has one)")
            seen.add((hba.name, lane.phy))
        for hba in hbas.values():
            for connector in range(hba.connectors):
                down = {p for h, p in seen if h == hba.name and p // CONNECTOR_PHYS == connector}
                if len(down) == CONNECTOR_PHYS:
                    raise ValueError(
                        f"lane_down: every lane of HBA {hba.name!r} connector {connector} is "
                        "down: that is an uncabled connector (leave the chain out)"
                    )

    def _check_phy_errors(
        self, hbas: dict[str, HbaSpec], enclosures: dict[str, EnclosureSpec]
    ) -> None:
        """Phy error counters name a phy that exists."""
        for i, errors in enumerate(self.phy_errors):
            where = f"phy_errors[{i}]"
            if errors.hba is not None:
                hba = hbas.get(errors.hba)
                if hba is None:
                    raise ValueError(f"{where}.hba: unknown HBA {errors.hba!r}{_known(hbas)}")
                if errors.phy >= hba.phys:
                    raise ValueError(
                        f"{where}.phy: HBA {hba.name!r} has phys 0..{hba.phys - 1}; "
                        f"{errors.phy} is beyond them"
                    )
                continue
            enclosure = enclosures.get(errors.enclosure or "")
            if enclosure is None:
                raise ValueError(
                    f"{where}.enclosure: unknown enclosure {errors.enclosure!r}{_known(enclosures)}"
                )
            if errors.io_module not in enclosure.io_module_names:
                raise ValueError(f"{where}.io_module: no I/O module {errors.io_module}")
            last = enclosure.main_expander_phys - 1
            if errors.phy > last:
                raise ValueError(
                    f"{where}.phy: the main expander of {enclosure.name!r} has phys 0..{last}; "
                    f"{errors.phy} is beyond them"
                )

    def _check_partitions(self, enclosures: dict[str, EnclosureSpec]) -> None:
        """Partitions name an occupied bay outside every pool, and do not overlap."""
        pooled = self._pool_bays(enclosures)
        by_disk: dict[tuple[str, int], list[PartitionSpec]] = {}
        for i, part in enumerate(self.partition):
            where = f"partition[{i}]"
            enclosure = enclosures.get(part.enclosure)
            if enclosure is None:
                raise ValueError(
                    f"{where}.enclosure: unknown enclosure {part.enclosure!r}{_known(enclosures)}"
                )
            if part.bay >= enclosure.bays or part.bay in enclosure.empty_bays:
                raise ValueError(f"{where}.bay: bay {part.bay} holds no disk")
            pool = pooled.get((part.enclosure, part.bay))
            if pool is not None:
                raise ValueError(
                    f"{where}: {part.enclosure} bay {part.bay} is one of ZFS pool {pool!r}'s "
                    "bays, and ZFS partitions its disks itself"
                )
            sectors = enclosure.disk.size_bytes // 512
            end = part.start + (part.size or 1)
            if end > sectors:
                raise ValueError(f"{where}: it ends beyond the disk's {sectors} sectors")
            by_disk.setdefault((part.enclosure, part.bay), []).append(part)
        for (name, bay), parts in by_disk.items():
            numbers = [p.number for p in parts]
            if len(set(numbers)) != len(numbers):
                raise ValueError(f"partition: {name} bay {bay} has a partition number twice")
            ordered = sorted(parts, key=lambda p: p.start)
            for before, after in pairwise(ordered):
                if before.size is not None and before.start + before.size > after.start:
                    raise ValueError(
                        f"partition: {name} bay {bay}: partitions {before.number} and "
                        f"{after.number} overlap"
                    )

    def _pool_bays(self, enclosures: dict[str, EnclosureSpec]) -> dict[tuple[str, int], str]:
        """Every (enclosure, bay) a ZFS pool may take (its enclosures' bays, or the bays it
        lists, and its log, cache and spare disks), with the pool's name."""
        taken: dict[tuple[str, int], str] = {}
        for pool in self.zfs.pool if self.zfs else []:
            for name in pool.enclosures:
                enclosure = enclosures.get(name)
                if enclosure is None:
                    continue
                bays = pool.bays if pool.bays is not None else range(enclosure.bays)
                taken.update({(name, b): pool.name for b in bays})
            for ref in (*pool.log, *pool.cache, *pool.spares):
                taken[(ref.enclosure, ref.bay)] = pool.name
        return taken

    def _check_failing(self, enclosures: dict[str, EnclosureSpec]) -> None:
        """Failing disks name an occupied bay, with a kind the disk's protocol can show."""
        for i, failing in enumerate(self.failing_disk):
            where = f"failing_disk[{i}]"
            enclosure = enclosures.get(failing.enclosure)
            if enclosure is None:
                raise ValueError(
                    f"{where}.enclosure: unknown enclosure {failing.enclosure!r}"
                    f"{_known(enclosures)}"
                )
            if failing.bay >= enclosure.bays or failing.bay in enclosure.empty_bays:
                raise ValueError(f"{where}.bay: bay {failing.bay} holds no disk")
            protocol = enclosure.disk.protocol
            if failing.kind == "grown_defects" and protocol != "sas":
                raise ValueError(f"{where}.kind: grown_defects is a SAS log; use reallocated")
            if failing.kind == "reallocated" and protocol != "sata":
                raise ValueError(f"{where}.kind: reallocated is ATA; use grown_defects")
            if not enclosure.disk.smart:
                raise ValueError(f"{where}: enclosure {failing.enclosure!r} has disk.smart = false")

    def _check_network(self) -> None:
        """NIC and bond names are unique; members and bonds refer to each other."""
        _check_unique("nic", [n.name for n in self.nic] + [b.name for b in self.bond])
        _check_unique("nic pci_address", [n.pci_address for n in self.nic if n.pci_address])
        nics = {n.name: n for n in self.nic}
        bonds = {b.name: b for b in self.bond}
        for i, nic in enumerate(self.nic):
            if nic.bond is not None and nic.bond not in bonds:
                raise ValueError(f"nic[{i}].bond: unknown bond {nic.bond!r}{_known(bonds)}")
        taken: dict[str, str] = {}
        for i, bond in enumerate(self.bond):
            for name in bond.members:
                if name not in nics:
                    raise ValueError(
                        f"bond[{i}].members: unknown NIC {name!r} (a member that is gone "
                        "belongs in vanished)"
                    )
                if nics[name].bond not in (None, bond.name):
                    raise ValueError(
                        f"bond[{i}].members: NIC {name!r} says bond = {nics[name].bond!r}"
                    )
            for name in bond.vanished:
                if name in nics:
                    raise ValueError(f"bond[{i}].vanished: {name!r} is a NIC of the spec")
            members = self.bond_members(bond)
            for name in members:
                if name in taken:
                    raise ValueError(
                        f"bond[{i}].members: NIC {name!r} is already in bond {taken[name]!r}"
                    )
                taken[name] = bond.name
            if not members and not bond.vanished:
                raise ValueError(f"bond[{i}]: no member (list members, or set bond on NICs)")
            if bond.primary is not None and bond.primary not in members:
                raise ValueError(f"bond[{i}].primary: {bond.primary!r} is not a member")

    def _check_fc(self) -> None:
        """FC port names, addresses and WWPNs are unique, and no PCI function is used twice."""
        _check_unique("fc_port", [p.name for p in self.fc_port])
        _check_unique("fc_port wwpn", [p.wwpn for p in self.fc_port if p.wwpn])
        used = [h.pci_address for h in self.hba if h.pci_address]
        used += [n.pci_address for n in self.nic if n.pci_address]
        used += [p.pci_address for p in self.fc_port if p.pci_address]
        used += [d.pci_address for d in self.nvme if d.pci_address]
        _check_unique("pci_address (HBAs, NICs, FC ports and NVMe SSDs)", used)


def _check_unique(what: str, names: list[str]) -> None:
    """Refuse a name used twice."""
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ValueError(f"{what}: {name!r} is used twice")
        seen.add(name)


def _known(names: dict[str, Any]) -> str:
    """The names that would have been accepted, for an error message."""
    return f" (known: {', '.join(names)})" if names else " (none defined)"


def _location(loc: tuple[int | str, ...]) -> str:
    """A pydantic error location as a field path: `hba[0].phys`."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def spec_from_data(data: Any, origin: str = "spec") -> HostSpec:
    """A validated spec from parsed TOML/YAML data; errors name each field at fault."""
    if not isinstance(data, dict):
        raise SpecError(f"{origin}: the top level must be a table of sections")
    try:
        return HostSpec.model_validate(data)
    except ValidationError as err:
        lines = []
        for error in err.errors():
            where = _location(tuple(error["loc"]))
            message = str(error["msg"]).removeprefix("Value error, ")
            lines.append(f"{where}: {message}" if where else message)
        raise SpecError(f"{origin}: " + "; ".join(lines)) from None


def load_spec(path: Path) -> HostSpec:
    """Read a spec file: TOML (`.toml`) or YAML (`.yaml`, `.yml`), chosen by suffix."""
    suffix = path.suffix.lower()
    try:
        if suffix == ".toml":
            with open(path, "rb") as handle:
                data: Any = tomllib.load(handle)
        elif suffix in (".yaml", ".yml"):
            with open(path, encoding="utf-8") as handle:
                data = yaml.safe_load(handle)
        else:
            raise SpecError(f"{path}: unknown spec format {suffix!r} (use .toml, .yaml or .yml)")
    except (tomllib.TOMLDecodeError, yaml.YAMLError) as err:
        raise SpecError(f"{path}: not valid {suffix[1:].upper()}: {err}") from None
    return spec_from_data(data, str(path))
