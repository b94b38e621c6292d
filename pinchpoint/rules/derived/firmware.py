"""Firmware units: every device of a host whose model and firmware level are known — disks on
any controller (SAS fabric, AHCI/SATA, NVMe …), HBAs, expanders, enclosure I/O modules — with
the identity two devices of one model share.
`firmware.mismatch` compares them on one host, `fleet.firmware.mismatch` across hosts."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from pinchpoint.model.block import BlockDevice, ControllerKind
from pinchpoint.model.findings import EntityRef, Fact, Severity
from pinchpoint.model.health import DiskHealth
from pinchpoint.model.inventory import Inventory
from pinchpoint.naming import block_disk_ref, disk_ref
from pinchpoint.stats.attach import wwid_key
from pinchpoint.stats.block_disks import other_disks
from pinchpoint.units import capacity_text


@dataclass(frozen=True)
class Unit:
    """One device of a kind: the model identity it is grouped by, its firmware, its name."""

    kind: str  # "disk", "HBA", "expander", "I/O module"
    identity: tuple[str, ...]  # what makes two devices the same model
    model: str  # the identity in words
    firmware: str
    ref: EntityRef | None  # the device, where it has an entity
    name: str


def _capacity(size_bytes: int | None) -> str:
    """`10.9 TiB` (IEC, as every view says capacities) or `size unknown`."""
    return capacity_text(size_bytes) if size_bytes else "size unknown"


def _disks(inventory: Inventory) -> Iterator[Unit]:
    """Disks by full model identity — the model SMART reports where read (sysfs cuts a SATA
    disk's model to 16 characters: "Samsung SSD 850" is two models), else vendor and model —
    and capacity: two capacities are two models."""
    health = {h.id: h for h in inventory.health.disks}
    for disk in inventory.sas.disks:
        smart = health.get(disk.id)
        firmware = (smart.firmware if smart else None) or disk.revision
        if not firmware:
            continue
        full = (smart.model if smart else None) or " ".join(
            p for p in (disk.vendor, disk.model) if p
        )
        size = (smart.user_capacity_bytes if smart else None) or disk.size_bytes
        model = f"{full} {_capacity(size)}".strip()
        ref = disk_ref(disk, inventory)
        yield Unit("disk", (full, str(size or "")), model, firmware, ref, ref.name)


def _smart_keys(health: DiskHealth) -> Iterator[str]:
    """What a block device may be found by in SMART data: the WWN, NVMe namespace EUI-64s
    (as sysfs `wwid` prints them), and the device name smartctl was asked about."""
    if health.wwn:
        yield wwid_key(health.wwn)
    for namespace in health.nvme.namespaces if health.nvme else []:
        if namespace.eui64:
            yield wwid_key(namespace.eui64)
    yield f"device:{health.device}"


def _smart_of(device: BlockDevice, smart: dict[str, DiskHealth]) -> DiskHealth | None:
    """A block device's SMART data: by WWID, else by kernel name, else (an NVMe namespace)
    by its controller's name, which is what smartctl is asked about."""
    keys = [wwid_key(device.wwid)] if device.wwid else []
    keys.append(f"device:{device.name}")
    controller = device.controller
    if controller is not None and controller.kind is ControllerKind.NVME and controller.port:
        keys.append(f"device:{controller.port}")
    return next((smart[k] for k in keys if k in smart), None)


def _fabric_luns(inventory: Inventory) -> tuple[set[str], set[str]]:
    """The kernel names and WWID keys of the LUNs an array presents over a network: every
    iSCSI session's SCSI devices and every namespace of an NVMe-oF subsystem (its head and
    its paths). Their "firmware" is the array's release, not a disk's."""
    names: set[str] = set()
    keys: set[str] = set()
    for session in inventory.iscsi.sessions:
        for device in session.devices:
            names.update([device.block_device] if device.block_device else [])
            keys.update([wwid_key(device.wwid)] if device.wwid else [])
    for subsystem in inventory.nvme.subsystems:
        if not subsystem.fabrics:
            continue
        for namespace in subsystem.namespaces:
            names.update([namespace.head] if namespace.head else [])
            names.update(path.name for path in namespace.paths)
            keys.update([wwid_key(namespace.wwid)] if namespace.wwid else [])
    return names, keys


def _other_disks(inventory: Inventory) -> Iterator[Unit]:
    """Disks outside the SAS fabric and the SAN (AHCI/SATA, NVMe, other controllers), by the
    full model and firmware SMART reports and the capacity; one unit per SMART device (an
    NVMe controller with several namespaces is one drive). LUNs of an array reached over
    iSCSI or NVMe-oF are left out (`_fabric_luns`), as FC LUNs and multipath maps are: the
    revision such a LUN reports is the array's software release, one per array however many
    LUNs it presents, updated on the array and judged there; counted as disks, one array's
    LUNs would outvote the host's own disks and two arrays at two releases would read as
    mixed disk firmware."""
    smart: dict[str, DiskHealth] = {}
    for health in inventory.health.disks:
        if health.collected and health.model and health.firmware:
            for key in _smart_keys(health):
                smart.setdefault(key, health)
    if not smart:
        return
    sas_ids = {d.id for d in inventory.sas.disks}
    lun_names, lun_keys = _fabric_luns(inventory)
    seen: set[str] = set()
    for device in other_disks(inventory):
        if device.name in lun_names or (device.wwid and wwid_key(device.wwid) in lun_keys):
            continue
        found = _smart_of(device, smart)
        if found is None or found.id in seen or found.id in sas_ids:
            continue
        seen.add(found.id)
        full = found.model or ""
        firmware = found.firmware or ""
        size = found.user_capacity_bytes or device.size_bytes
        model = f"{full} {_capacity(size)}".strip()
        ref = block_disk_ref(device)
        yield Unit("disk", (full, str(size or "")), model, firmware, ref, ref.name)


def _adapters(inventory: Inventory) -> Iterator[Unit]:
    """HBAs by board and driver, expanders and SES devices (I/O modules) by vendor and
    product."""
    for hba in inventory.sas.hbas:
        if hba.firmware and hba.board_name:
            identity = (hba.board_name, hba.driver or "")
            yield Unit("HBA", identity, hba.board_name, hba.firmware, None, hba.label)
    for expander in inventory.sas.expanders:
        if expander.revision and expander.product:
            model = " ".join(p for p in (expander.vendor, expander.product) if p)
            identity = (expander.vendor or "", expander.product)
            name = f"expander {expander.sas_address}"
            yield Unit("expander", identity, model, expander.revision, None, name)
    names = {e.id: e.name for e in inventory.sas.enclosures}
    for enclosure in inventory.sas.enclosures:
        for ses in enclosure.ses_devices:
            if ses.revision and ses.product:
                model = " ".join(p for p in (ses.vendor, ses.product) if p)
                identity = (ses.vendor or "", ses.product)
                name = f"{names[enclosure.id]} I/O module {ses.sas_address or ses.id}"
                yield Unit("I/O module", identity, model, ses.revision, None, name)


def firmware_units(inventory: Inventory) -> list[Unit]:
    """Every device of the host with a known model and firmware level."""
    return [*_disks(inventory), *_other_disks(inventory), *_adapters(inventory)]


def units_by_model(units: list[Unit]) -> dict[tuple[str, tuple[str, ...]], list[Unit]]:
    """Units grouped by kind and model identity, in a stable order."""
    groups: dict[tuple[str, tuple[str, ...]], list[Unit]] = {}
    for unit in units:
        groups.setdefault((unit.kind, unit.identity), []).append(unit)
    return dict(sorted(groups.items()))


class UnitFacts(Protocol):
    """What `behind_facts` reads of a unit: a `Unit` here, a `model.fleet.FleetUnit` kept by a
    central service."""

    @property
    def kind(self) -> str: ...
    @property
    def firmware(self) -> str: ...
    @property
    def ref(self) -> EntityRef | None: ...
    @property
    def name(self) -> str: ...


def behind_facts(units: Sequence[UnitFacts], usual: str) -> list[Fact]:
    """One fact per unit not at the `usual` level: its level, and the unit as the entity (or
    its name beside the level where it has no entity)."""
    return [
        Fact(
            name=f"{u.kind} not at {usual}",
            value=u.firmware if u.ref is not None else f"{u.firmware} ({u.name})",
            entity=u.ref,
        )
        for u in units
        if u.firmware != usual
    ]


def mismatch_severity(kind: str) -> Severity:
    """Mixed disk firmware is common and often harmless (info); HBAs, expanders and I/O
    modules are qualified as a set (warning)."""
    return Severity.INFO if kind == "disk" else Severity.WARNING
