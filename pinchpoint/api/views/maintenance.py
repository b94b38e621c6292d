"""The maintenance view of each enclosure: how it is cabled, as a technician at the rack needs it.

Per enclosure: the HBA ports it hangs off and its place in each chain, paths present against
expected, the I/O modules, every slot (occupied, faulted, locate on, the disk and its paths) and
the open findings about it or its disks.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from pinchpoint.model.findings import Finding, Severity
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.sas import Disk, Enclosure, Slot
from pinchpoint.naming import hba_port_name, slot_label, slot_name


class CableEnd(BaseModel):
    """One HBA port an enclosure is reached through, and where in that chain it sits."""

    hba_id: str
    hba: str  # "0000:03:00.0 SAS9300-8e"
    hba_port_id: str
    hba_port: str  # "0000:03:00.0 SAS9300-8e connector 0" (pinchpoint.naming)
    port: str  # kernel name, "port-11:0"
    connector: int
    chain_id: str | None = None
    position: int | None = None  # 1 = cabled straight to the HBA
    chain_length: int | None = None  # enclosures on that chain


class SlotView(BaseModel):
    """One slot: `index` is the number the enclosure reports for it (SES device slot number, the
    kernel's `slot`), `label` the enclosure's own label when it says more, `name` both as every
    output writes them (`slot 4 (SLOT 05)`, see pinchpoint.naming)."""

    index: int
    name: str
    label: str | None = None
    descriptor: str | None = None
    occupied: bool | None = None
    fault: bool | None = None
    locate: bool | None = None
    status: str | None = None
    disk_id: str | None = None
    disk: str | None = None  # "HGST HUH721212AL5200 8HK1ZT4H"
    hba_ports: int | None = None  # distinct HBA ports reaching the disk
    hba_ports_expected: int | None = None


class FindingBrief(BaseModel):
    id: str
    rule: str
    severity: Severity
    title: str
    entity_id: str
    muted: bool


class EnclosureMaintenance(BaseModel):
    """Everything about one enclosure's cabling and bays."""

    id: str
    name: str
    logical_id: str
    nickname: str | None = None
    vendor: str | None = None
    product: str | None = None
    serial: str | None = None
    hba_ports: int
    hba_ports_expected: int
    hba_ports_expected_reason: str = ""
    io_modules: int | None = None
    cabling: list[CableEnd] = Field(default_factory=list)
    bay_count: int | None = None
    slots_occupied: int = 0
    slots_faulted: int = 0
    slots_locate: int = 0
    slots: list[SlotView] = Field(default_factory=list)
    findings: list[FindingBrief] = Field(default_factory=list)
    worst: Severity | None = None


def _cabling(enclosure: Enclosure, inventory: Inventory) -> list[CableEnd]:
    fabric = inventory.sas
    ends: list[CableEnd] = []
    for hba in fabric.hbas:
        for port in hba.ports:
            if port.id not in enclosure.hba_port_ids:
                continue
            end = CableEnd(
                hba_id=hba.id,
                hba=hba.label,
                hba_port_id=port.id,
                hba_port=hba_port_name(hba, port),
                port=port.name,
                connector=port.connector,
            )
            for chain in fabric.chains:
                if chain.hba_port_id == port.id and enclosure.id in chain.enclosure_ids:
                    end.chain_id = chain.id
                    end.chain_length = len(chain.enclosure_ids)
                    branch = next((b for b in chain.branches if enclosure.id in b), None)
                    order = branch if branch is not None else chain.enclosure_ids
                    end.position = order.index(enclosure.id) + 1
            ends.append(end)
    return ends


def disk_label(disk: Disk) -> str:
    """`HGST HUH721212AL5200 8HK1ZT4H`: what the label on the carrier says."""
    return " ".join(p for p in (disk.vendor, disk.model, disk.serial) if p) or disk.id


def slot_view(slot: Slot, disk: Disk | None, enclosure: Enclosure) -> SlotView:
    """One bay as the technician sees it: occupied, faulted, locate, the disk and its paths."""
    return SlotView(
        index=slot.index,
        name=slot_name(slot.index, slot.descriptor),
        label=slot_label(slot.descriptor, slot.index),
        descriptor=slot.descriptor,
        occupied=slot.occupied,
        fault=slot.fault,
        locate=slot.locate,
        status=slot.status,
        disk_id=slot.disk_id,
        disk=disk_label(disk) if disk is not None else None,
        hba_ports=disk.hba_ports if disk is not None else None,
        hba_ports_expected=enclosure.hba_ports_expected if disk is not None else None,
    )


def _slots(enclosure: Enclosure, inventory: Inventory) -> list[SlotView]:
    disks = {d.id: d for d in inventory.sas.disks if d.enclosure_id == enclosure.id}
    return [slot_view(slot, disks.get(slot.disk_id or ""), enclosure) for slot in enclosure.slots]


def _findings_by_entity(findings: list[Finding]) -> dict[str, list[Finding]]:
    found: dict[str, list[Finding]] = {}
    for finding in findings:
        found.setdefault(finding.entity.id, []).append(finding)
    return found


def enclosure_maintenance(
    inventory: Inventory, findings: list[Finding]
) -> list[EnclosureMaintenance]:
    """Every enclosure's maintenance view, in the inventory's order."""
    by_entity = _findings_by_entity(findings)
    views = []
    for enclosure in inventory.sas.enclosures:
        disk_ids = {d.id for d in inventory.sas.disks if d.enclosure_id == enclosure.id}
        cabling = _cabling(enclosure, inventory)
        mine = list(by_entity.get(enclosure.id, []))
        for chain_id in sorted({c.chain_id for c in cabling if c.chain_id}):
            mine.extend(by_entity.get(chain_id, []))  # its chain's imbalance concerns it too
        for disk_id in sorted(disk_ids):
            mine.extend(by_entity.get(disk_id, []))
        slots = _slots(enclosure, inventory)
        briefs = [
            FindingBrief(
                id=f.id,
                rule=f.rule,
                severity=f.severity,
                title=f.title,
                entity_id=f.entity.id,
                muted=f.muted is not None,
            )
            for f in mine
        ]
        active = [b.severity for b in briefs if not b.muted]
        views.append(
            EnclosureMaintenance(
                id=enclosure.id,
                name=enclosure.name,
                logical_id=enclosure.logical_id,
                nickname=enclosure.nickname,
                vendor=enclosure.vendor,
                product=enclosure.product,
                serial=enclosure.serial,
                hba_ports=enclosure.hba_ports,
                hba_ports_expected=enclosure.hba_ports_expected,
                hba_ports_expected_reason=enclosure.hba_ports_expected_reason,
                io_modules=enclosure.io_modules,
                cabling=cabling,
                bay_count=enclosure.bay_count,
                slots_occupied=sum(1 for s in slots if s.occupied),
                slots_faulted=sum(1 for s in slots if s.fault),
                slots_locate=sum(1 for s in slots if s.locate),
                slots=slots,
                findings=briefs,
                worst=max(active, key=lambda s: s.rank) if active else None,
            )
        )
    return views
