"""The rest of a host spec beside the SAS fabric: `[[nic]]` and `[[bond]]`, `[[fc_port]]` with
`[multipath]` and `[fc_driver]`, `[[nvme]]`, and what the disks hold: `[[partition]]` and `[zfs]`
with its pools (docs/simulator.md)."""

from __future__ import annotations

import re
from typing import Annotated, Literal, Self

from pydantic import AfterValidator, Field, field_validator, model_validator

from pinchpoint.simulator.spec.values import HexAddress, PciAddress, PcieSpec, SpecModel

_MAC = re.compile(r"^[0-9a-f]{2}(:[0-9a-f]{2}){5}$")


def _mac(value: str | None) -> str | None:
    """An Ethernet MAC `aa:bb:cc:dd:ee:ff`, lower case."""
    if value is not None and not _MAC.match(value.lower()):
        raise ValueError("must look like 3c:ec:ef:12:34:56")
    return None if value is None else value.lower()


MacAddress = Annotated[str | None, AfterValidator(_mac)]
# A file name in sysfs or a word in `ethtool -S`: never a path (`..`) or white space.
_COUNTER_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.]*$")


def _counters(value: dict[str, int]) -> dict[str, int]:
    """Counter names as sysfs or ethtool spell them, values never negative."""
    for name, count in value.items():
        if not _COUNTER_NAME.match(name):
            raise ValueError(
                f"{name!r} is not a counter name (a letter, then letters, digits, _ and .)"
            )
        if count < 0:
            raise ValueError(f"{name}: a counter is never negative, not {count}")
    return value


Counters = Annotated[dict[str, int], AfterValidator(_counters)]
NIC_SPEEDS_MBPS = (10, 100, 1000, 2500, 5000, 10000, 25000, 40000, 50000, 100000)


class NicSpec(SpecModel):
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
    # Error counters since boot: the kernel's `statistics/*` names and `carrier_changes` go to
    # sysfs (and `ethtool -S`), any other name to `ethtool -S` only (`port.rx_crc_errors`).
    counters: Counters = Field(default_factory=dict)

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


class BondSpec(SpecModel):
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


class FcPortSpec(SpecModel):
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
    # `fc_host/hostN/statistics/*` by file name (`link_failure_count = 4`); the rest as usual.
    counters: Counters = Field(default_factory=dict)

    @model_validator(mode="after")
    def _speed_supported(self) -> Self:
        """The running speed must be one the port supports."""
        if self.state == "Online" and self.speed_gbps not in self.supported_speeds_gbps:
            raise ValueError(
                f"speed_gbps: {self.speed_gbps} is not in supported_speeds_gbps "
                f"{self.supported_speeds_gbps}"
            )
        return self


# A path down as `multipath -ll` prints it: device-mapper's state, the checker's, the device's
# (multipath-tools' print.c: `%t %T %o`). "failed faulty offline": the SCSI device was set
# offline; "failed faulty running": the checker fails it (a capture of dell/csm#296); "active
# faulty running": device-mapper has not failed it yet (insights-core's faulty-paths capture);
# "failed shaky running": its checker says it is up but multipathd keeps it failed (a path
# flapping with I/O errors, held back by the marginal-path checks; the emc_clariion checker's
# "not available for normal operations"); "active ghost running": a standby path (an ALUA
# standby or an RDAC passive port), as public `multipath -ll` outputs show it.
FailedPathState = Literal[
    "failed faulty offline",
    "failed faulty running",
    "active faulty running",
    "failed shaky running",
    "active ghost running",
]


class FailedPathSpec(SpecModel):
    """`[[multipath.failed_path]]`: one path of a map down — LUN `lun` through `remote_port`
    of FC port `port`."""

    port: str = Field(min_length=1)
    lun: int = Field(ge=1)
    remote_port: int = Field(default=0, ge=0)
    state: FailedPathState = "failed faulty offline"


class MultipathSpec(SpecModel):
    """`[multipath]`: dm-multipath maps over LUNs seen through several paths."""

    enabled: bool = False
    user_friendly_names: bool = True
    path_selector: str = "service-time 0"
    hwhandler: str = "1 alua"
    features: str = "0"
    # how multipathd groups a map's paths: all in one group (multibus), or by priority
    # (group_by_prio: a ghost path sits in a group of its own, prio 1, enabled)
    path_grouping_policy: Literal["multibus", "group_by_prio"] = "multibus"
    failed_path: list[FailedPathSpec] = Field(default_factory=list)


class FcDriverSpec(SpecModel):
    """`[fc_driver]`: FC driver module parameters."""

    lpfc_lun_queue_depth: int = Field(default=30, ge=1)
    lpfc_hba_queue_depth: int = Field(default=8192, ge=1)
    ql2xmaxqdepth: int = Field(default=64, ge=1)


class NvmeSpec(SpecModel):
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
    nr_requests: int = Field(default=1023, ge=1, le=65536)  # `queue/nr_requests`
    service_factor: float = Field(default=1.0, gt=0, le=1000)  # its time per I/O × this


class PartitionSpec(SpecModel):
    """`[[partition]]`: a partition of one disk, in 512-byte sectors."""

    enclosure: str
    bay: int = Field(ge=0)
    number: int = Field(default=1, ge=1, le=128)
    start: int = Field(default=2048, ge=1)
    size: int | None = Field(default=None, ge=1)


class ZfsDiskRef(SpecModel):
    """A disk of the spec, by enclosure and bay (a log, cache or spare device of a pool)."""

    enclosure: str = Field(min_length=1)
    bay: int = Field(ge=0)


ZfsLayout = Literal["mirror", "raidz1", "raidz2", "raidz3", "stripe"]
ZfsDeviceState = Literal["ONLINE", "DEGRADED", "FAULTED", "OFFLINE", "UNAVAIL", "REMOVED"]


class ZfsFaultSpec(SpecModel):
    """`[[zfs.pool.fault]]`: one disk of the pool in another state, or counting errors."""

    enclosure: str = Field(min_length=1)
    bay: int = Field(ge=0)
    state: ZfsDeviceState = "FAULTED"
    read_errors: int = Field(default=0, ge=0)
    write_errors: int = Field(default=0, ge=0)
    checksum_errors: int = Field(default=0, ge=0)


class ZfsPoolSpec(SpecModel):
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
    fault: list[ZfsFaultSpec] = Field(default_factory=list)

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


class ZfsSpec(SpecModel):
    """`[zfs]`: the ZFS module and its pools."""

    version: str = "2.1.11-1"
    parameters: dict[str, int] = Field(default_factory=dict)
    pool: list[ZfsPoolSpec] = Field(default_factory=list)


class AhciDiskSpec(SpecModel):
    """`[[ahci.disk]]`: a SATA disk on one port of an AHCI controller."""

    port: int | None = Field(default=None, ge=1, le=32)  # `ataN`; default: the next one
    model: str = "ST4000NM0035-1V4107"
    serial: str | None = None
    firmware: str = "TN04"
    rotational: bool = True
    size_bytes: int = Field(default=4000787030016, gt=0)
    queue_depth: int = Field(default=32, ge=1, le=32)  # NCQ: 32 (31 on some); 1 without
    nr_requests: int = Field(default=64, ge=1, le=65536)
    service_factor: float = Field(default=1.0, gt=0, le=1000)  # its time per I/O × this
    smart: bool = True  # smartctl's report is written (`commands/smartctl/sdX.json`)
    temperature_c: int = 34
    power_on_hours: int = Field(default=21000, ge=0)


class AhciSpec(SpecModel):
    """`[[ahci]]`: an AHCI SATA controller (the chipset's, or a card) and its disks."""

    pci_address: PciAddress = None
    root_port: PciAddress = None
    numa_node: int = Field(default=0, ge=-1)
    disk: list[AhciDiskSpec] = Field(default_factory=list)


class VirtioDiskSpec(SpecModel):
    """`[[virtio]]`: a virtio-blk disk of a virtual machine (one PCI function each)."""

    pci_address: PciAddress = None
    root_port: PciAddress = None
    serial: str | None = None
    rotational: bool = True  # virtio-blk reports 1 unless the hypervisor says otherwise
    size_bytes: int = Field(default=107374182400, gt=0)
    nr_requests: int = Field(default=256, ge=1, le=65536)
    service_factor: float = Field(default=1.0, gt=0, le=1000)  # its time per I/O × this


MdLevel = Literal["raid0", "raid1", "raid5", "raid6", "raid10", "linear"]
MdSyncAction = Literal["idle", "resync", "recover", "check", "repair"]
DmKind = Literal["lvm", "thin_pool", "crypt", "other"]
_MD_NAME = re.compile(r"^md\d{1,3}$")
_DM_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_+.-]{0,126}$")


def _members(value: list[str]) -> list[str]:
    if len(set(value)) != len(value):
        raise ValueError(f"a member is listed twice: {value}")
    return value


class MdSpec(SpecModel):
    """`[[md]]`: a Linux software RAID array over disks off the SAS fabric or other stacks."""

    name: str = Field(pattern=_MD_NAME.pattern)  # "md0", "md127": its kernel name
    level: MdLevel = "raid1"
    members: Annotated[list[str], AfterValidator(_members)] = Field(min_length=1)
    sync_action: MdSyncAction = "idle"
    layer_ms: float = Field(default=0.0, ge=0, le=10000)  # time md adds to each I/O


class DmSpec(SpecModel):
    """`[[dm]]`: a device-mapper device (LVM volume, thin pool, dm-crypt) over other devices."""

    name: str = Field(pattern=_DM_NAME.pattern)  # `dm/name`: "vg0-data", "luks-data"
    kind: DmKind = "lvm"
    members: Annotated[list[str], AfterValidator(_members)] = Field(min_length=1)
    layer_ms: float = Field(default=0.0, ge=0, le=10000)  # time the target adds to each I/O


NvmeTransport = Literal["tcp", "rdma", "fc"]
NvmeControllerState = Literal["live", "connecting", "resetting", "deleting", "dead"]
NvmeAnaState = Literal["optimized", "non-optimized", "inaccessible", "persistent-loss", "change"]


class NvmeTargetPathSpec(SpecModel):
    """`[[nvme_target.path]]`: one controller connecting this host to the subsystem."""

    traddr: str = Field(min_length=1, max_length=128, pattern=r"^[A-Za-z0-9_.:-]+$")
    trsvcid: int | None = Field(default=4420, ge=1, le=65535)  # none for NVMe/FC
    host_iface: str | None = Field(default=None, max_length=15, pattern=r"^[A-Za-z0-9_.-]+$")
    host_traddr: str | None = Field(default=None, max_length=128, pattern=r"^[A-Za-z0-9_.:-]+$")
    src_addr: str | None = Field(default=None, max_length=64, pattern=r"^[0-9A-Fa-f.:]+$")
    state: NvmeControllerState = "live"
    optimized: list[int] | None = None  # NSIDs optimized through it; None: every namespace
    ana_state: NvmeAnaState = "non-optimized"  # of the namespaces not in `optimized`


class NvmeTargetSpec(SpecModel):
    """`[[nvme_target]]`: an NVMe-oF subsystem (an array's NVMe target) this host connects to,
    with native multipath: one controller per `[[nvme_target.path]]`."""

    nqn: str = Field(min_length=1, max_length=223, pattern=r"^[\x21-\x7e]+$")
    model: str = "NVMe-oF array"
    serial: str | None = None
    firmware: str = "1.0"
    transport: NvmeTransport = "tcp"
    namespaces: int = Field(default=1, ge=1, le=64)
    size_bytes: int = Field(default=1 << 40, gt=0)
    iopolicy: Literal["numa", "round-robin", "queue-depth"] = "numa"
    # how its namespaces are identified (sysfs `wwid`): by UUID, as Linux nvmet does, or by an
    # IEEE EUI-64, which smartctl's report of a controller lists too
    namespace_ids: Literal["uuid", "eui64"] = "uuid"
    path: list[NvmeTargetPathSpec] = Field(min_length=1)


IscsiSessionState = Literal["LOGGED_IN", "FAILED", "FREE"]


class IscsiSessionSpec(SpecModel):
    """`[[iscsi_session]]`: one iSCSI session (iscsi_tcp) to a target portal and its LUNs.
    LUNs of one `array` with the same number are one LU (one WWID) across sessions."""

    target: str = Field(min_length=1, max_length=223, pattern=r"^[\x21-\x7e]+$")
    portal: str = Field(min_length=1, max_length=64, pattern=r"^[0-9A-Fa-f.:]+$")
    port: int = Field(default=3260, ge=1, le=65535)
    tpgt: int = Field(default=1, ge=0)
    state: IscsiSessionState = "LOGGED_IN"
    iface: str = Field(default="default", max_length=64, pattern=r"^[A-Za-z0-9_.:-]+$")
    netdev: str | None = Field(default=None, max_length=15, pattern=r"^[A-Za-z0-9_.-]+$")
    local_address: str | None = Field(default=None, max_length=64, pattern=r"^[0-9A-Fa-f.:]+$")
    initiator: str = "iqn.1993-08.org.debian:01:simulated"
    array: str = "iscsi-array"
    vendor: str = "LIO-ORG"
    product: str = "block1"
    revision: str = Field(default="4.0", min_length=1, max_length=4)  # the array's release
    luns: list[int] = Field(default_factory=lambda: [0], min_length=1)
    size_bytes: int = Field(default=1 << 40, gt=0)
