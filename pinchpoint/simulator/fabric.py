"""The physical SAS fabric a spec describes: HBAs, expanders, disks, SES targets and every cable.

This is what is in the rack, before any kernel names it: `discovery` then walks it from each
HBA the way the driver does. Expander phy layout (per I/O module):

* one expander: phys 0-3 "in" (to the HBA or the previous enclosure), 4-7 "out" (to the next
  enclosure), then one phy per bay, then the SES device's virtual phy;
* a main expander and sub-expanders (4U60 style): the main expander has in 0-3, out 4-7, a
  10-phy wide link to each sub-expander, then the SES phy; each sub-expander has its 10
  upstream phys, then one phy per bay it holds (bays split evenly, in order).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import pairwise
from typing import Literal

from pinchpoint.simulator.addresses import (
    ENCLOSURE_LOGICAL_LOW,
    EXPANDER_LOW,
    SES_LOW,
    AddressBook,
    serial_number,
)
from pinchpoint.simulator.naming import default_pci_address, default_root_port
from pinchpoint.simulator.spec.faults import LaneDownSpec
from pinchpoint.simulator.spec.host import HostSpec
from pinchpoint.simulator.spec.sas import DiskSpec, EnclosureSpec, HbaSpec, SwitchSpec
from pinchpoint.simulator.spec.values import CONNECTOR_PHYS, SUB_EXPANDER_LINK_WIDTH

IN_PHYS = range(0, 4)
OUT_PHYS = range(4, 8)
DRIVER_PCI_DEVICE = {"mpt3sas": "0x0097", "mpi3mr": "0x00a5"}

AttachmentKind = Literal["expander", "disk", "ses"]


@dataclass(eq=False)
class SesTarget:
    """The enclosure services device of one I/O module (a SCSI type 13 target)."""

    enclosure: EnclosureFabric
    io_module: str
    sas_address: int


@dataclass(eq=False)
class DiskPort:
    """One SAS port of a disk (A = phy 0, B = phy 1) and the expander phy it plugs into."""

    disk: Disk
    phy_identifier: int
    io_module: str
    sas_address: int
    linked: bool


@dataclass(frozen=True)
class Partition:
    """A partition of a disk: its number, first sector and length in 512-byte sectors."""

    number: int
    start: int
    size: int


@dataclass(eq=False)
class Disk:
    """A disk in a bay: its LU name, its ports and its partitions (outside ZFS pools)."""

    enclosure: EnclosureFabric
    bay: int
    spec: DiskSpec
    lu_name: int
    serial: str
    ports: list[DiskPort] = field(default_factory=list)
    partitions: list[Partition] = field(default_factory=list)


@dataclass(eq=False)
class Attachment:
    """What hangs off some phys of an expander: a child expander (wide), a disk port, or SES."""

    phys: list[int]
    kind: AttachmentKind
    expander: Expander | None = None
    disk_port: DiskPort | None = None
    ses: SesTarget | None = None


@dataclass(eq=False)
class Expander:
    """A SAS expander (an enclosure I/O module's, or a switch) with its phys and attachments."""

    key: str
    sas_address: int
    vendor: str
    product: str
    revision: str
    component_vendor: str
    component_id: int
    component_revision: int
    max_gbps: float
    rates: list[float | None]
    errors: dict[int, dict[str, int]] = field(default_factory=dict)  # phy -> error counters
    enclosure: EnclosureFabric | None = None
    io_module: str | None = None
    ordinal: int = 0  # 0: main expander of its I/O module, 1..: sub-expanders
    upstream_phys: list[int] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    bay_phys: dict[int, int] = field(default_factory=dict)  # bay -> phy
    sub_link_phys: dict[int, list[int]] = field(default_factory=dict)  # sub ordinal -> phys
    ses_phy: int | None = None
    stp_base: int = 0  # SATA disks behind this expander take stp_base + phy

    @property
    def phy_count(self) -> int:
        return len(self.rates)

    def attach(self, attachment: Attachment) -> None:
        """Add an attachment, keeping them in phy order (the order ports are made in)."""
        self.attachments.append(attachment)
        self.attachments.sort(key=lambda a: a.phys[0])


@dataclass(eq=False)
class EnclosureFabric:
    """A JBOD: its identity, the expanders of each I/O module, its disks and SES targets."""

    spec: EnclosureSpec
    logical_id: int
    expanders: dict[str, list[Expander]] = field(default_factory=dict)  # I/O module -> list
    disks: dict[int, Disk] = field(default_factory=dict)
    ses: dict[str, SesTarget] = field(default_factory=dict)
    cabled_in: set[str] = field(default_factory=set)  # I/O modules with a cable in
    cabled_out: set[str] = field(default_factory=set)  # I/O modules with a cable out

    @property
    def name(self) -> str:
        return self.spec.name

    def main_expander(self, io_module: str) -> Expander:
        """The expander of an I/O module that holds the SES device and connectors."""
        return self.expanders[io_module][0]

    def all_expanders(self) -> list[Expander]:
        """Every expander, I/O module A first, main expander before sub-expanders."""
        return [e for iom in self.spec.io_module_names for e in self.expanders[iom]]


@dataclass(eq=False)
class HbaFabric:
    """An HBA: PCI placement, SAS address, per-phy rates and what each connector reaches."""

    spec: HbaSpec
    pci_address: str
    root_port: str
    pci_device: str
    sas_address: int
    rates: list[float | None]
    connectors: dict[int, Expander] = field(default_factory=dict)
    lanes_down: dict[int, LaneDownSpec] = field(default_factory=dict)  # phy -> how it is down
    errors: dict[int, dict[str, int]] = field(default_factory=dict)  # phy -> error counters


@dataclass(eq=False)
class Fabric:
    """Everything in the rack."""

    spec: HostSpec
    hbas: list[HbaFabric]
    enclosures: list[EnclosureFabric]
    switches: dict[str, Expander]


def _split_bays(bays: int, parts: int) -> list[range]:
    """Bays 0..bays-1 cut into `parts` consecutive, nearly equal runs."""
    size, extra = divmod(bays, parts)
    runs = []
    start = 0
    for k in range(parts):
        end = start + size + (1 if k < extra else 0)
        runs.append(range(start, end))
        start = end
    return runs


def _enclosure_expander(
    enc: EnclosureFabric, io_module: str, base: int, ordinal: int, phys: int
) -> Expander:
    """One expander of an I/O module; `base` is the I/O module's address base."""
    spec = enc.spec
    expander_base = base | (ordinal << 8)
    return Expander(
        key=f"{spec.name}/{io_module}/{ordinal}",
        sas_address=expander_base | EXPANDER_LOW,
        vendor=spec.vendor,
        product=spec.expander_product or spec.product,
        revision=spec.expander_revision,
        component_vendor=spec.expander_component_vendor,
        component_id=spec.expander_component_id,
        component_revision=spec.expander_component_revision,
        max_gbps=spec.max_rate_gbps,
        rates=[None] * phys,
        enclosure=enc,
        io_module=io_module,
        ordinal=ordinal,
        stp_base=expander_base,
    )


def _enclosure_expanders(enc: EnclosureFabric, base: int) -> None:
    """Create the expanders of every I/O module of an enclosure, phys laid out as documented."""
    spec = enc.spec
    subs = spec.expanders_per_io_module - 1
    width = SUB_EXPANDER_LINK_WIDTH
    for iom_index, iom in enumerate(spec.io_module_names):
        iom_base = base | (iom_index << 10)
        if subs == 0:
            main = _enclosure_expander(enc, iom, iom_base, 0, 8 + spec.bays + 1)
            main.bay_phys = {bay: 8 + bay for bay in range(spec.bays)}
            main.ses_phy = 8 + spec.bays
            expanders = [main]
        else:
            main = _enclosure_expander(enc, iom, iom_base, 0, 8 + width * subs + 1)
            main.ses_phy = 8 + width * subs
            expanders = [main]
            for k, bays in enumerate(_split_bays(spec.bays, subs), start=1):
                sub = _enclosure_expander(enc, iom, iom_base, k, width + len(bays))
                sub.bay_phys = {bay: width + i for i, bay in enumerate(bays)}
                main.sub_link_phys[k] = list(range(8 + width * (k - 1), 8 + width * k))
                _link(main, main.sub_link_phys[k], sub, list(range(width)))
                expanders.append(sub)
        ses = SesTarget(enclosure=enc, io_module=iom, sas_address=iom_base | SES_LOW)
        enc.ses[iom] = ses
        main.rates[main.ses_phy] = main.max_gbps
        main.attach(Attachment(phys=[main.ses_phy], kind="ses", ses=ses))
        enc.expanders[iom] = expanders


def _bay_expander(enc: EnclosureFabric, io_module: str, bay: int) -> Expander:
    """The expander of an I/O module that holds `bay`."""
    return next(e for e in enc.expanders[io_module] if bay in e.bay_phys)


def _enclosure_disks(enc: EnclosureFabric, book: AddressBook, spec: HostSpec) -> None:
    """Put a disk in every occupied bay and plug its ports into the bay phys."""
    missing = {(m.bay, m.io_module) for m in enc.spec.missing_disk_paths}
    degraded = {
        (d.io_module, d.bay): d.rate_gbps for d in spec.degraded_link if d.enclosure == enc.name
    }
    disk_spec = enc.spec.disk
    empty = set(enc.spec.empty_bays)
    for bay in range(enc.spec.bays):
        if bay in empty:
            continue
        lu = book.disk_lu(enc.name, bay, disk_spec.vendor)
        firmware = enc.spec.disk_firmware.get(bay)
        disk = Disk(
            enclosure=enc,
            bay=bay,
            spec=disk_spec
            if firmware is None
            else disk_spec.model_copy(update={"revision": firmware}),
            lu_name=lu,
            serial=serial_number(enc.name, str(bay)),
            partitions=_partitions(spec, enc.name, bay, disk_spec.size_bytes),
        )
        port_ioms = (
            list(enc.spec.io_module_names)
            if disk_spec.protocol == "sas"
            else [enc.spec.io_module_names[0]]
        )
        for phy_identifier, iom in enumerate(port_ioms):
            expander = _bay_expander(enc, iom, bay)
            phy = expander.bay_phys[bay]
            address = (
                lu + 1 + phy_identifier if disk_spec.protocol == "sas" else expander.stp_base + phy
            )
            linked = (bay, iom) not in missing
            port = DiskPort(disk, phy_identifier, iom, address, linked)
            disk.ports.append(port)
            if linked:
                rate = min(expander.max_gbps, disk_spec.link_max_gbps)
                expander.rates[phy] = degraded.get((iom, bay), rate)
                expander.attach(Attachment(phys=[phy], kind="disk", disk_port=port))
        enc.disks[bay] = disk


GPT_BACKUP_SECTORS = 34  # the backup partition table at the end of a GPT disk


def _partitions(spec: HostSpec, enclosure: str, bay: int, size_bytes: int) -> list[Partition]:
    """The `[[partition]]`s of one disk, each sized to the next one (or near the end) unless
    the spec gives its size."""
    parts = sorted(
        (p for p in spec.partition if p.enclosure == enclosure and p.bay == bay),
        key=lambda p: p.start,
    )
    end = size_bytes // 512 - GPT_BACKUP_SECTORS
    found = []
    for k, part in enumerate(parts):
        limit = parts[k + 1].start if k + 1 < len(parts) else end
        found.append(Partition(part.number, part.start, part.size or max(1, limit - part.start)))
    return sorted(found, key=lambda p: p.number)


def _switch(spec: SwitchSpec, book: AddressBook) -> Expander:
    """A SAS switch expander, no phy cabled yet."""
    base = book.switch_base(spec.name, spec.vendor)
    return Expander(
        key=spec.name,
        sas_address=base | EXPANDER_LOW,
        vendor=spec.vendor,
        product=spec.product,
        revision=spec.revision,
        component_vendor=spec.component_vendor,
        component_id=spec.component_id,
        component_revision=spec.component_revision,
        max_gbps=spec.max_rate_gbps,
        rates=[None] * spec.phys,
        stp_base=base,
    )


def _link(upper: Expander, upper_phys: list[int], lower: Expander, lower_phys: list[int]) -> None:
    """Cable `upper` phys to `lower` phys (a wide link down the chain)."""
    rate = min(upper.max_gbps, lower.max_gbps)
    for p in upper_phys:
        upper.rates[p] = rate
    for p in lower_phys:
        lower.rates[p] = rate
    lower.upstream_phys = list(lower_phys)
    upper.attach(Attachment(phys=list(upper_phys), kind="expander", expander=lower))


def _cable_hba(hba: HbaFabric, connector: int, expander: Expander, spec: HostSpec) -> None:
    """Cable an HBA connector's 4 phys to an expander's phys 0-3 (a lane down: no link at
    either end)."""
    degraded = {d.phy: d.rate_gbps for d in spec.degraded_link if d.hba == hba.spec.name}
    phys = [connector * CONNECTOR_PHYS + i for i in range(CONNECTOR_PHYS)]
    for hba_phy, expander_phy in zip(phys, IN_PHYS, strict=True):
        rate: float | None = min(hba.spec.max_rate_gbps, expander.max_gbps)
        rate = degraded.get(hba_phy, rate)
        if hba_phy in hba.lanes_down:
            rate = None
        hba.rates[hba_phy] = rate
        expander.rates[expander_phy] = rate
    expander.upstream_phys = list(IN_PHYS)
    hba.connectors[connector] = expander


def _hba(spec: HbaSpec, ordinal_on_node: int, book: AddressBook, host: HostSpec) -> HbaFabric:
    """An HBA with its PCI placement and SAS address, no phy cabled yet."""
    pci = spec.pci_address or default_pci_address(spec.numa_node, ordinal_on_node)
    return HbaFabric(
        spec=spec,
        pci_address=pci,
        root_port=spec.root_port or default_root_port(pci),
        pci_device=spec.pci_device or DRIVER_PCI_DEVICE.get(spec.driver, "0x0097"),
        sas_address=int(spec.sas_address, 16) if spec.sas_address else book.hba_address(spec.name),
        rates=[None] * spec.phys,
        lanes_down={lane.phy: lane for lane in host.lane_down if lane.hba == spec.name},
        errors={e.phy: e.counters for e in host.phy_errors if e.hba == spec.name},
    )


def build_fabric(spec: HostSpec) -> Fabric:
    """Everything the spec describes, cabled."""
    book = AddressBook()
    per_node: dict[int, int] = {}
    hbas = []
    for hba_spec in spec.hba:
        ordinal = per_node.get(hba_spec.numa_node, 0)
        per_node[hba_spec.numa_node] = ordinal + 1
        hbas.append(_hba(hba_spec, ordinal, book, spec))
    by_name = {h.spec.name: h for h in hbas}
    enclosures = []
    for enc_spec in spec.enclosure:
        base = book.enclosure_base(enc_spec.name, enc_spec.vendor)
        logical = (
            int(enc_spec.logical_id, 16) if enc_spec.logical_id else base | ENCLOSURE_LOGICAL_LOW
        )
        enc = EnclosureFabric(spec=enc_spec, logical_id=logical)
        _enclosure_expanders(enc, base)
        _enclosure_disks(enc, book, spec)
        for errors in spec.phy_errors:
            if errors.enclosure == enc.name:
                enc.main_expander(errors.io_module).errors[errors.phy] = errors.counters
        enclosures.append(enc)
    enc_by_name = {e.name: e for e in enclosures}
    switches = {s.name: _switch(s, book) for s in spec.switch}
    switch_next_phy = {name: CONNECTOR_PHYS for name in switches}
    for chain in spec.chain:
        hba = by_name[chain.hba]
        iom = chain.io_module
        run = [enc_by_name[n] for n in chain.enclosures if iom not in enc_by_name[n].spec.lose_path]
        if chain.switch is not None:
            switch = switches[chain.switch]
            if chain.connector not in hba.connectors:
                _cable_hba(hba, chain.connector, switch, spec)
            if not run:
                continue
            first = switch_next_phy[chain.switch]
            switch_next_phy[chain.switch] = first + CONNECTOR_PHYS
            _link(
                switch,
                list(range(first, first + CONNECTOR_PHYS)),
                run[0].main_expander(iom),
                list(IN_PHYS),
            )
        elif run:
            _cable_hba(hba, chain.connector, run[0].main_expander(iom), spec)
        for upper, lower in pairwise(run):
            _link(upper.main_expander(iom), list(OUT_PHYS), lower.main_expander(iom), list(IN_PHYS))
            upper.cabled_out.add(iom)
        for enc in run:
            enc.cabled_in.add(iom)
    return Fabric(spec=spec, hbas=hbas, enclosures=enclosures, switches=switches)
