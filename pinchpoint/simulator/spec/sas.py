"""The SAS fabric of a host spec: `[[hba]]`, `[[switch]]`, `[[enclosure]]` with the disks in its
bays, and `[[chain]]`, the cable runs between them (docs/simulator.md)."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import Field, model_validator

from pinchpoint.simulator.spec.values import (
    CONNECTOR_PHYS,
    EXPANDER_PORT_PHYS,
    IO_MODULE_NAMES,
    SUB_EXPANDER_LINK_WIDTH,
    HexAddress,
    IoModule,
    PciAddress,
    PcieSpec,
    SasRate,
    SpecModel,
)

# The power supplies and fans every simulated enclosure reports (simulator/ses_pages.py).
ELEMENT_COUNTS = {"psu": 2, "fan": 4}


class HbaSpec(SpecModel):
    """`[[hba]]`: one SAS HBA (one PCI function, one SCSI host)."""

    name: str = Field(min_length=1)
    pci_address: PciAddress = None
    root_port: PciAddress = None
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

    @property
    def connectors(self) -> int:
        """External connectors: each groups 4 phys."""
        return max(1, self.phys // CONNECTOR_PHYS)


class SwitchSpec(SpecModel):
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


class DiskSpec(SpecModel):
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


class MissingPathSpec(SpecModel):
    """One disk port with no link: the disk in `bay` is not reachable through `io_module`."""

    bay: int = Field(ge=0)
    io_module: IoModule = "B"


ElementKind = Literal["psu", "fan", "temperature", "io_module"]
ElementStatus = Literal["ok", "critical", "noncritical", "unrecoverable", "not_installed"]


class ElementFaultSpec(SpecModel):
    """`[[enclosure.element_fault]]`: one SES element of the enclosure reporting a problem.

    `psu` and `fan` take `number` (0-based: PSU 1 is 0); `temperature` (an I/O module's sensor)
    and `io_module` (its expanders) take `io_module`. `status` defaults to critical, for a
    temperature to what `temperature_c` makes it against the sensor's limits (60 °C warning,
    70 °C critical). An I/O module `not_installed` must also be in `lose_path`.
    """

    element: ElementKind
    number: int = Field(default=0, ge=0)
    io_module: IoModule = "A"
    status: ElementStatus | None = None
    temperature_c: int | None = Field(default=None, ge=-19, le=235)


class EnclosureSpec(SpecModel):
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
    # The element descriptor of each array device slot: {bay} is the 0-based device slot
    # number, {number} bay + 1, {serial} the disk's serial (empty, with the comma before it
    # dropped, for an empty bay). The default is a generic 1-based label; an HGST/WD H4060-J
    # (Ultrastar Data60) reports "SLOT {bay:02d},{serial}" (pinchpoint/simulator/specs/demo.toml).
    slot_descriptor: str = Field(default="SLOT {number:02d}", min_length=1, max_length=64)
    enclosure_class: bool = True
    lose_path: list[IoModule] = Field(default_factory=list)
    empty_bays: list[int] = Field(default_factory=list)
    disk: DiskSpec = DiskSpec()
    disk_firmware: dict[int, str] = Field(default_factory=dict)  # bay -> the disk's revision
    missing_disk_paths: list[MissingPathSpec] = Field(default_factory=list)
    element_fault: list[ElementFaultSpec] = Field(default_factory=list)

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
        for bay in self.disk_firmware:
            if not 0 <= bay < self.bays or bay in self.empty_bays:
                raise ValueError(f"disk_firmware: bay {bay} holds no disk")
        for iom in self.lose_path:
            if iom not in self.io_module_names:
                raise ValueError(f"lose_path: I/O module {iom} does not exist")
        if self.expanders_per_io_module > 1 and self.bays < self.expanders_per_io_module - 1:
            raise ValueError("expanders_per_io_module: more sub-expanders than bays")
        self._slot_descriptor_formats()
        self._elements_exist()
        return self

    def _slot_descriptor_formats(self) -> None:
        """The slot descriptor template names only {bay}, {number} and {serial}."""
        try:
            slot_descriptor(self.slot_descriptor, 0, "SERIAL01")
        except (KeyError, IndexError, ValueError) as error:
            raise ValueError(
                f"slot_descriptor {self.slot_descriptor!r}: use {{bay}}, {{number}} and "
                f"{{serial}} only, with integer formats for bay and number ({error})"
            ) from None

    def _elements_exist(self) -> None:
        """Every faulty element named must exist (2 PSUs, 4 fans, a sensor per I/O module)."""
        counts = {"psu": ELEMENT_COUNTS["psu"], "fan": ELEMENT_COUNTS["fan"]}
        for fault in self.element_fault:
            if fault.element in counts and fault.number >= counts[fault.element]:
                raise ValueError(
                    f"element_fault: no {fault.element} {fault.number} "
                    f"(0..{counts[fault.element] - 1})"
                )
            if (
                fault.element in ("temperature", "io_module")
                and fault.io_module not in self.io_module_names
            ):
                raise ValueError(f"element_fault: no I/O module {fault.io_module}")
            if (
                fault.element == "io_module"
                and fault.status == "not_installed"
                and fault.io_module not in self.lose_path
            ):
                raise ValueError(
                    f"element_fault: I/O module {fault.io_module} not installed must also "
                    "be in lose_path (nothing is cabled through it)"
                )


def slot_descriptor(template: str, bay: int, serial: str | None) -> str:
    """The element descriptor of slot `bay` from the spec's template; for an empty bay the
    serial and the comma before it are left out ("SLOT 02", as a real H4060-J reports)."""
    if serial is None:
        template = template.replace(",{serial}", "").replace("{serial}", "")
    return template.format(bay=bay, number=bay + 1, serial=serial or "").strip()


class ChainSpec(SpecModel):
    """`[[chain]]`: enclosures cabled one after the other from an HBA connector."""

    hba: str
    connector: int = Field(default=0, ge=0)
    io_module: IoModule = "A"
    enclosures: list[str] = Field(min_length=1)
    switch: str | None = None
