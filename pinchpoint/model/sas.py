"""The SAS fabric as an expert draws it: HBA → port → chain → enclosure → slot → disk, and paths.

All references between entities are stable ids (see `pinchpoint.model.ids`), so the model
serialises flat and joins cheaply.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field, computed_field

from pinchpoint.model.pcie import PcieLink


class PhyErrorCounters(BaseModel):
    invalid_dword_count: int | None = None
    running_disparity_error_count: int | None = None
    loss_of_dword_sync_count: int | None = None
    phy_reset_problem_count: int | None = None


class Phy(BaseModel):
    """One SAS phy (lane). Rates are Gbit/s; `None` means no link or not reported."""

    id: str
    name: str  # kernel name, e.g. "phy-11:8"
    phy_identifier: int
    sas_address: str
    negotiated_gbps: float | None = None
    negotiated_text: str = ""  # as the kernel says: "12.0 Gbit", "Unknown", "Phy disabled"
    maximum_gbps: float | None = None  # programmed maximum
    maximum_hw_gbps: float | None = None  # what the silicon can do
    enabled: bool | None = None
    device_type: str | None = None
    attached_id: str | None = None  # the device at the far end of this phy, when known
    far_end_max_gbps: float | None = None  # the most the far end can do
    far_end_max_source: str | None = None  # how that was learnt, in words
    errors: PhyErrorCounters = Field(default_factory=PhyErrorCounters)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def link_up(self) -> bool:
        return self.negotiated_gbps is not None


class AttachedKind(StrEnum):
    EXPANDER = "expander"
    END_DEVICE = "end_device"
    NOTHING = "nothing"


class HbaPort(BaseModel):
    """A (wide) port of an HBA: the phys that share one connector's link."""

    id: str
    name: str  # kernel name, e.g. "port-11:0"
    hba_id: str
    connector: int  # lowest phy id of the port ÷ 4: the usual connector numbering
    width: int  # `sas_port/*/num_phys`
    phys: list[Phy] = Field(default_factory=list)
    attached_kind: AttachedKind = AttachedKind.NOTHING
    attached_id: str | None = None  # expander id or disk path id

    @computed_field  # type: ignore[prop-decorator]
    @property
    def phys_up(self) -> int:
        return sum(1 for p in self.phys if p.link_up)


class Hba(BaseModel):
    """A SAS host bus adapter: one PCI function with its SCSI host."""

    id: str
    pci_address: str
    scsi_host: str  # kernel name, e.g. "host11"
    driver: str | None = None  # scsi_host proc_name
    board_name: str | None = None
    firmware: str | None = None
    host_sas_address: str | None = None
    can_queue: int | None = None
    pcie: PcieLink | None = None
    numa_node: int | None = None
    sas_transport: bool = (
        True  # False where the driver registers no sas_host (mpi3mr on old kernels)
    )
    ports: list[HbaPort] = Field(default_factory=list)
    idle_phys: list[Phy] = Field(default_factory=list)  # phys not in any port

    @property
    def label(self) -> str:
        """`0000:03:00.0 SAS9300-8e`: the PCI address a technician finds the slot by, and the
        board (findings and statistics name an HBA this way)."""
        return f"{self.pci_address} {self.board_name}" if self.board_name else self.pci_address


class Expander(BaseModel):
    """A SAS expander; one physical expander may be reached through several HBA ports."""

    id: str
    names: list[str] = Field(default_factory=list)  # kernel names, one per path it is seen through
    sas_address: str
    vendor: str | None = None
    product: str | None = None
    revision: str | None = None
    component_vendor: str | None = None
    level: int | None = None
    enclosure_id: str | None = None  # None for a SAS switch or an unidentified box
    upstream_ids: list[str] = Field(default_factory=list)  # HBA ports or expanders above it
    phys: list[Phy] = Field(default_factory=list)


class SesDevice(BaseModel):
    """An enclosure services device (SCSI type 13): one per I/O module of an enclosure."""

    id: str
    sas_address: str | None = None
    hctls: list[str] = Field(default_factory=list)
    sg_devices: list[str] = Field(default_factory=list)
    vendor: str | None = None
    product: str | None = None
    revision: str | None = None
    serial: str | None = None  # VPD page 0x80 of the SES device
    expander_id: str | None = None  # the expander it sits on
    hba_port_ids: list[str] = Field(default_factory=list)
    in_enclosure_class: bool = False  # False when the kernel made no /sys/class/enclosure entry


class Slot(BaseModel):
    """A bay: `index` is the bay number a technician reads, not the SES element index."""

    id: str
    index: int
    element_index: int | None = None
    descriptor: str | None = None
    status: str | None = None
    fault: bool | None = None
    locate: bool | None = None
    active: bool | None = None
    occupied: bool | None = None
    disk_id: str | None = None


class ElementLimits(BaseModel):
    """A sensor's own limits, from the SES threshold page: °C for temperature, % above/below
    nominal for voltage and current; None where the sensor has none."""

    high_critical: float | None = None
    high_warning: float | None = None
    low_warning: float | None = None
    low_critical: float | None = None
    unit: str = ""


class EnclosureElement(BaseModel):
    """One SES element of an enclosure other than a disk slot: a power supply, a fan, a
    temperature, voltage or current sensor, an ESM/I/O module, a SAS expander, a display.

    `index` is the element's number within its type (what `sg_ses` prints as "Element N"), not
    the additional page's element index. Readings are None where the element reports none.
    """

    element_type: str  # as sg_ses names it: "Power supply", "Cooling", "Temperature sensor"
    type_index: int  # the `[ti=N]` of its type
    index: int
    descriptor: str | None = None  # "PSU 1", from the element descriptor page
    status: str  # "OK", "Critical", "Noncritical", "Unrecoverable", "Not installed", …
    predicted_failure: bool | None = None
    fail: bool | None = None  # the element's "Fail" bit
    warnings: list[str] = Field(default_factory=list)  # other bits set: "OT warning", "AC fail"
    temperature_c: float | None = None
    voltage_v: float | None = None
    current_a: float | None = None
    fan_rpm: int | None = None
    limits: ElementLimits | None = None
    reported_by: str | None = None  # the SES device (I/O module) whose pages these are
    # an expander's or ESM's SAS address (additional element status): which paths run through it
    sas_address: str | None = None


class Enclosure(BaseModel):
    """A JBOD or other box of bays, identified by its SES logical identifier."""

    id: str
    logical_id: str
    vendor: str | None = None
    product: str | None = None
    revision: str | None = None
    nickname: str | None = None
    serial: str | None = None
    ses_devices: list[SesDevice] = Field(default_factory=list)
    expander_ids: list[str] = Field(default_factory=list)
    io_modules: int | None = None  # SAS expander elements the enclosure reports
    bay_count: int | None = None
    slots: list[Slot] = Field(default_factory=list)
    # Distinct routes reaching it: HBA port ids, or `hba:…/target:<SAS address>` where the
    # driver shows no ports (mpi3mr without the SAS transport class).
    hba_port_ids: list[str] = Field(default_factory=list)
    hba_ports: int = 0  # distinct routes above: what "single-pathed" counts
    hba_ports_expected: int = 1  # what its I/O modules are built for
    hba_ports_expected_reason: str = ""
    # SES elements besides the slots (PSUs, fans, sensors, I/O modules); None where the
    # enclosure status page was not read (older snapshots, sg_ses missing)
    elements: list[EnclosureElement] | None = None
    # the enclosure status page's summary bits that are set: "CRIT", "NON-CRIT", …
    status_summary: list[str] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def name(self) -> str:
        """The name a technician knows it by: nickname, else vendor/product and logical id."""
        if self.nickname:
            return self.nickname
        return f"{self.product or 'enclosure'} {self.logical_id}"


class DiskPath(BaseModel):
    """One way to a disk: an HBA port, the expanders crossed, and the SCSI device it shows as."""

    id: str
    hba_id: str
    hba_port_id: str | None = None
    target_sas_address: str | None = None
    expander_ids: list[str] = Field(default_factory=list)  # from the HBA down to the disk
    hctl: str
    block_device: str | None = None  # "sdv": a name of the moment, never an id
    sg_device: str | None = None
    state: str | None = None
    queue_depth: int | None = None
    timeout_s: int | None = None


class Disk(BaseModel):
    """A logical unit, seen through one or more paths; grouped by its LU name (`wwid`)."""

    id: str
    wwid: str | None = None
    vendor: str | None = None
    model: str | None = None
    serial: str | None = None
    revision: str | None = None
    protocol: str | None = None  # "ssp" (SAS) or "sata"
    rotational: bool | None = None
    size_bytes: int | None = None
    port_sas_addresses: list[str] = Field(default_factory=list)
    enclosure_id: str | None = None
    slot: int | None = None
    direct_attached: bool = False  # cabled to the HBA without an expander
    paths: list[DiskPath] = Field(default_factory=list)  # one per SCSI device (sdX) it shows as
    hba_ports: int = 0  # distinct HBA ports reaching it (its paths may cross one port twice)


class Chain(BaseModel):
    """What hangs off one HBA port: enclosures in cabling order.

    Depth counts enclosures, not expanders: a 4U60 with three expanders is one hop, a SAS
    switch is none. Behind a switch the port fans out into several branches, each a daisy
    chain of its own; all of them share the port's bandwidth.
    """

    id: str
    hba_id: str
    hba_port_id: str
    enclosure_ids: list[str] = Field(default_factory=list)  # all, nearest first
    branches: list[list[str]] = Field(default_factory=list)  # each daisy chain, nearest first
    switch_ids: list[str] = Field(default_factory=list)  # expanders that belong to no enclosure

    @computed_field  # type: ignore[prop-decorator]
    @property
    def depth(self) -> int:
        """Enclosures the cable passes through to reach the farthest one."""
        return max((len(b) for b in self.branches), default=len(self.enclosure_ids))

    @computed_field  # type: ignore[prop-decorator]
    @property
    def enclosure_count(self) -> int:
        """Enclosures sharing this port's link."""
        return len(self.enclosure_ids)


class SasFabric(BaseModel):
    hbas: list[Hba] = Field(default_factory=list)
    expanders: list[Expander] = Field(default_factory=list)
    enclosures: list[Enclosure] = Field(default_factory=list)
    chains: list[Chain] = Field(default_factory=list)
    disks: list[Disk] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def path_count(self) -> int:
        return sum(len(d.paths) for d in self.disks)
