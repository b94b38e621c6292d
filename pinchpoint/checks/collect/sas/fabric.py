"""Joining the walked SAS tree and the SES facts into the fabric model.

This is inventory assembly, not judgement: which enclosure an expander belongs to, which
enclosures hang off which HBA port and in what order, how many HBA ports reach each disk and
enclosure, and how many an enclosure is built to have. Rules decide later what is wrong.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from pinchpoint.checks.collect.sas.enclosure_class import SesFacts, SlotFacts
from pinchpoint.checks.collect.sas.walk import (
    SCSI_TYPE_DISK,
    SCSI_TYPE_ENCLOSURE,
    EndDevice,
    ExpanderNode,
    HostNode,
    PortNode,
    ScsiDevice,
)
from pinchpoint.model import ids
from pinchpoint.model.sas import (
    AttachedKind,
    Chain,
    Disk,
    DiskPath,
    Enclosure,
    Expander,
    Hba,
    HbaPort,
    Phy,
    SasFabric,
    SesDevice,
    Slot,
)

__all__ = ["FabricBuilder"]

SATA_MAX_GBPS = 6.0
# Expander chips by product id prefix: the SAS generation fixes the highest link rate.
EXPANDER_GENERATIONS: tuple[tuple[str, float, str], ...] = (
    ("SAS2X", 6.0, "SAS-2"),
    ("SAS2x", 6.0, "SAS-2"),
    ("SAS3X", 12.0, "SAS-3"),
    ("SAS3x", 12.0, "SAS-3"),
    ("SAS35X", 12.0, "SAS-3"),
    ("SAS35x", 12.0, "SAS-3"),
    ("SAS4X", 22.5, "SAS-4"),
    ("SAS4x", 22.5, "SAS-4"),
)


@dataclass
class _Reach:
    """What one walk from an HBA port met: expanders with their depth, SES devices, disks."""

    hba: Hba
    port: HbaPort | None
    expander_path: list[str] = field(default_factory=list)


@dataclass
class _Seen:
    """Accumulators filled during the walk of every host."""

    expanders: dict[str, Expander] = field(default_factory=dict)
    expander_nodes: dict[str, ExpanderNode] = field(default_factory=dict)
    expander_ports: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    expander_children: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    ses_devices: dict[str, SesDevice] = field(default_factory=dict)
    ses_end_devices: dict[str, EndDevice] = field(default_factory=dict)
    paths: list[tuple[DiskPath, ScsiDevice, EndDevice | None]] = field(default_factory=list)
    port_trees: dict[str, list[tuple[str, int]]] = field(default_factory=dict)


def expander_max_rate(node: ExpanderNode) -> tuple[float | None, str | None]:
    """The highest rate an expander can run, from its phys or else its chip generation."""
    rates = [p.maximum_hw_gbps for p in node.phys if p.maximum_hw_gbps is not None]
    if rates:
        return max(rates), f"expander {node.sas_address} phys report {max(rates):g} Gbit maximum"
    product = node.product or ""
    for prefix, rate, generation in EXPANDER_GENERATIONS:
        if product.startswith(prefix):
            return rate, f"{node.vendor or ''} {product} is a {generation} expander ({rate:g} Gbit)"
    return None, None


def end_device_max_rate(end: EndDevice) -> tuple[float | None, str | None]:
    if end.target_protocols and "sata" in end.target_protocols:
        return SATA_MAX_GBPS, "SATA device (6 Gbit at most)"
    return None, None


def _occupied(has_disk: bool, status: str | None) -> bool | None:
    """A bay holds a drive when a disk was placed in it or SES says anything but "Not
    installed"; None when neither source says."""
    if has_disk:
        return True
    if status is None:
        return None
    return status.lower() not in ("not installed", "unsupported")


def path_route(path: DiskPath) -> str:
    """What tells two paths apart: the HBA port, or where the driver hides ports (no SAS
    transport class), the HBA and the disk port the path enters by."""
    if path.hba_port_id:
        return path.hba_port_id
    return f"{path.hba_id}/target:{path.target_sas_address or path.hctl}"


def _set_far_end(
    phys: Iterable[Phy], attached: str | None, rate: tuple[float | None, str | None]
) -> None:
    """Record on each phy what it is cabled to and the most that far end can do."""
    for phy in phys:
        phy.attached_id = attached
        phy.far_end_max_gbps, phy.far_end_max_source = rate


class FabricBuilder:
    """Builds a `SasFabric` from walked hosts and per-SES-device facts (keyed by H:C:T:L)."""

    def __init__(self, hosts: list[HostNode], ses: dict[str, SesFacts]) -> None:
        self.hosts = hosts
        self.ses = ses
        self.seen = _Seen()

    def build(self) -> SasFabric:
        hbas = [self._hba(host) for host in self.hosts]
        enclosure_of = self._assign_enclosures()
        for expander in self.seen.expanders.values():
            expander.enclosure_id = enclosure_of.get(expander.id)
        disks = self._disks()
        enclosures = self._enclosures(enclosure_of, disks)
        chains = self._chains(hbas, enclosure_of)
        self._count_enclosure_paths(enclosures, disks, enclosure_of)
        return SasFabric(
            hbas=hbas,
            expanders=sorted(self.seen.expanders.values(), key=lambda e: e.id),
            enclosures=enclosures,
            chains=chains,
            disks=disks,
        )

    # -- HBAs, ports and the walk --------------------------------------------------------

    def _hba(self, host: HostNode) -> Hba:
        identity = host.pci_address or host.host_sas_address or host.name
        hba = Hba(
            id=ids.hba_id(identity),
            pci_address=host.pci_address or "",
            scsi_host=host.name,
            driver=host.driver,
            board_name=host.board_name,
            firmware=host.firmware,
            host_sas_address=host.host_sas_address,
            can_queue=host.can_queue,
            pcie=host.pcie,
            numa_node=host.numa_node,
            sas_transport=host.sas_transport,
        )
        phys_by_name = {p.name: p for p in host.phys}
        in_ports: set[str] = set()
        for node in host.ports:
            phys = [phys_by_name[n] for n in node.phy_names if n in phys_by_name]
            in_ports.update(p.name for p in phys)
            connector = min(p.phy_identifier for p in phys) // 4 if phys else len(hba.ports)
            port = HbaPort(
                id=ids.hba_port_id(identity, connector),
                name=node.name,
                hba_id=hba.id,
                connector=connector,
                width=node.width if node.width is not None else len(phys),
                phys=sorted(phys, key=lambda p: p.phy_identifier),
            )
            hba.ports.append(port)
            self.seen.port_trees[port.id] = []
            self._walk_port(node, _Reach(hba, port), port.phys, upstream=port.id)
        hba.ports.sort(key=lambda p: p.connector)
        hba.idle_phys = [p for p in host.phys if p.name not in in_ports]
        for dev in host.direct_devices:
            self._scsi(dev, None, _Reach(hba, None))
        return hba

    def _walk_port(self, node: PortNode, reach: _Reach, phys: list[Phy], upstream: str) -> None:
        if node.expander is not None:
            exp = self._expander(node.expander, reach, upstream)
            _set_far_end(phys, exp.id, expander_max_rate(node.expander))
            if reach.port is not None and upstream == reach.port.id:
                reach.port.attached_kind = AttachedKind.EXPANDER
                reach.port.attached_id = exp.id
            inner = _Reach(reach.hba, reach.port, [*reach.expander_path, exp.id])
            exp_phys = {p.name: p for p in node.expander.phys}
            for child in node.expander.ports:
                child_phys = [exp_phys[n] for n in child.phy_names if n in exp_phys]
                self._walk_port(child, inner, child_phys, upstream=exp.id)
        elif node.end_device is not None:
            end = node.end_device
            _set_far_end(phys, None, end_device_max_rate(end))
            for dev in end.scsi_devices:
                path_id = self._scsi(dev, end, reach)
                for phy in phys:
                    phy.attached_id = path_id
            if reach.port is not None and upstream == reach.port.id:
                reach.port.attached_kind = AttachedKind.END_DEVICE
                reach.port.attached_id = (
                    ids.path_id(reach.hba.pci_address, end.sas_address) if end.sas_address else None
                )

    def _expander(self, node: ExpanderNode, reach: _Reach, upstream: str) -> Expander:
        exp_id = ids.expander_id(node.sas_address or f"{reach.hba.id}/{node.name}")
        exp = self.seen.expanders.get(exp_id)
        if exp is None:
            exp = Expander(
                id=exp_id,
                sas_address=node.sas_address or "",
                vendor=node.vendor,
                product=node.product,
                revision=node.revision,
                component_vendor=node.component_vendor,
                level=node.level,
                phys=node.phys,
            )
            self.seen.expanders[exp_id] = exp
            self.seen.expander_nodes[exp_id] = node
        if node.name not in exp.names:
            exp.names.append(node.name)
        if upstream not in exp.upstream_ids:
            exp.upstream_ids.append(upstream)
        if upstream in self.seen.expanders:
            self.seen.expander_children[upstream].add(exp_id)
        if reach.port is not None:
            self.seen.expander_ports[exp_id].add(reach.port.id)
            self.seen.port_trees[reach.port.id].append((exp_id, len(reach.expander_path)))
        return exp

    def _scsi(self, dev: ScsiDevice, end: EndDevice | None, reach: _Reach) -> str:
        target = (end.sas_address if end else None) or dev.sas_address
        pid = ids.path_id(reach.hba.pci_address or reach.hba.id, target or dev.hctl)
        port_ids = [reach.port.id] if reach.port else []
        if dev.scsi_type == SCSI_TYPE_ENCLOSURE:
            ses_id = ids.ses_device_id(target or dev.hctl)
            ses = self.seen.ses_devices.get(ses_id)
            if ses is None:
                ses = SesDevice(
                    id=ses_id,
                    sas_address=target,
                    vendor=dev.vendor,
                    product=dev.model,
                    revision=dev.revision,
                    serial=dev.serial,
                    expander_id=reach.expander_path[-1] if reach.expander_path else None,
                )
                self.seen.ses_devices[ses_id] = ses
                if end is not None:
                    self.seen.ses_end_devices[ses_id] = end
            ses.hctls.append(dev.hctl)
            if dev.sg_device:
                ses.sg_devices.append(dev.sg_device)
            routes = port_ids or [f"{reach.hba.id}/target:{target or dev.hctl}"]
            ses.hba_port_ids.extend(p for p in routes if p not in ses.hba_port_ids)
            facts = self.ses.get(dev.hctl)
            ses.in_enclosure_class = ses.in_enclosure_class or bool(
                facts and facts.in_enclosure_class
            )
            if facts is not None and facts.revision:
                # the I/O module's firmware as its own configuration page gives it (what each
                # SES device reports for itself), else the INQUIRY revision sysfs shows
                ses.revision = facts.revision
        elif dev.scsi_type in (SCSI_TYPE_DISK, None):
            path = DiskPath(
                id=pid,
                hba_id=reach.hba.id,
                hba_port_id=reach.port.id if reach.port else None,
                target_sas_address=target,
                expander_ids=list(reach.expander_path),
                hctl=dev.hctl,
                block_device=dev.block_device,
                sg_device=dev.sg_device,
                state=dev.state,
                queue_depth=dev.queue_depth,
                timeout_s=dev.timeout_s,
            )
            self.seen.paths.append((path, dev, end))
        return pid

    # -- enclosures ----------------------------------------------------------------------

    def _ses_logical_id(self, ses: SesDevice) -> str | None:
        for hctl in ses.hctls:
            facts = self.ses.get(hctl)
            if facts and facts.logical_id:
                return facts.logical_id
        end = self.seen.ses_end_devices.get(ses.id)
        return end.enclosure_identifier if end else None

    def _assign_enclosures(self) -> dict[str, str]:
        """Expander id -> enclosure id, from the strongest evidence each expander offers."""
        result: dict[str, str] = {}
        ses_on: dict[str, list[str]] = defaultdict(list)
        for ses in self.seen.ses_devices.values():
            logical = self._ses_logical_id(ses)
            if ses.expander_id and logical:
                ses_on[ses.expander_id].append(logical)
        for exp_id, node in self.seen.expander_nodes.items():
            if node.enclosure_identifier:
                result[exp_id] = ids.enclosure_id(node.enclosure_identifier)
            elif ses_on.get(exp_id):
                result[exp_id] = ids.enclosure_id(ses_on[exp_id][0])
            else:
                votes = Counter(
                    port.end_device.enclosure_identifier
                    for port in node.ports
                    if port.end_device is not None and port.end_device.enclosure_identifier
                )
                if votes:
                    result[exp_id] = ids.enclosure_id(votes.most_common(1)[0][0])
        # An expander with no evidence whose children all sit in one enclosure is part of it
        # (a 4U60's main expander whose SES device was not seen).
        for exp_id in self.seen.expander_nodes:
            if exp_id in result:
                continue
            below = {result.get(c) for c in self.seen.expander_children.get(exp_id, set())}
            if len(below) == 1 and None not in below:
                only = below.pop()
                assert only is not None
                has_disks = any(
                    p.end_device is not None for p in self.seen.expander_nodes[exp_id].ports
                )
                if has_disks:
                    result[exp_id] = only
        return result

    def _enclosures(self, enclosure_of: dict[str, str], disks: list[Disk]) -> list[Enclosure]:
        by_id: dict[str, Enclosure] = {}

        def enclosure(enc_id: str) -> Enclosure:
            if enc_id not in by_id:
                logical = enc_id.split(":", 1)[1]
                by_id[enc_id] = Enclosure(id=enc_id, logical_id=logical)
            return by_id[enc_id]

        for exp_id, enc_id in enclosure_of.items():
            enclosure(enc_id).expander_ids.append(exp_id)
        facts_by_enclosure: dict[str, list[SesFacts]] = defaultdict(list)
        for ses in self.seen.ses_devices.values():
            logical = self._ses_logical_id(ses)
            if logical is None and ses.expander_id:
                owner = enclosure_of.get(ses.expander_id)
                logical = owner.split(":", 1)[1] if owner else None
            if logical is None:
                continue
            enc = enclosure(ids.enclosure_id(logical))
            enc.ses_devices.append(ses)
            facts_by_enclosure[enc.id].extend(f for h in ses.hctls if (f := self.ses.get(h)))
        for disk in disks:
            if disk.enclosure_id:
                enclosure(disk.enclosure_id)
        disks_by_enclosure: dict[str, list[Disk]] = defaultdict(list)
        for disk in disks:
            if disk.enclosure_id:
                disks_by_enclosure[disk.enclosure_id].append(disk)
        for enc in by_id.values():
            self._describe(enc, facts_by_enclosure.get(enc.id, []))
            enc.slots = self._slots(enc, facts_by_enclosure.get(enc.id, []), disks_by_enclosure)
            enc.expander_ids.sort()
        return sorted(by_id.values(), key=lambda e: (e.name, e.id))

    def _describe(self, enc: Enclosure, facts: list[SesFacts]) -> None:
        """Vendor, product, nickname, bays and I/O modules from SES, then from expanders."""
        for f in facts:
            enc.vendor = enc.vendor or f.vendor
            enc.product = enc.product or f.product
            enc.revision = enc.revision or f.revision
            enc.nickname = enc.nickname or f.nickname
            enc.bay_count = enc.bay_count or f.slot_count
        for ses in enc.ses_devices:
            enc.serial = enc.serial or ses.serial
            enc.vendor = enc.vendor or ses.vendor
            enc.product = enc.product or ses.product
            enc.revision = enc.revision or ses.revision
        for exp_id in enc.expander_ids:
            exp = self.seen.expanders[exp_id]
            enc.vendor = enc.vendor or exp.vendor
            enc.product = enc.product or exp.product
        enc.io_modules = len(enc.ses_devices) or None
        for f in sorted(facts, key=lambda f: not f.elements_whole):  # a whole page first
            if f.elements is not None and enc.elements is None:
                reporter = next((s.id for s in enc.ses_devices if f.hctl in s.hctls), f.hctl)
                enc.elements = [e.model_copy(update={"reported_by": reporter}) for e in f.elements]
                enc.status_summary = list(f.status_summary)
        declared = [f.io_modules for f in facts if f.io_modules]
        elements = [f.expander_elements for f in facts if f.expander_elements]
        if declared:
            enc.io_modules = max(enc.io_modules or 0, max(declared))
        elif elements:  # no count of I/O modules: two expanders or more make two at most
            enc.io_modules = max(enc.io_modules or 0, min(max(elements), 2))

    def _slots(
        self, enc: Enclosure, facts: list[SesFacts], disks: dict[str, list[Disk]]
    ) -> list[Slot]:
        merged: dict[int, SlotFacts] = {}
        for f in facts:
            for index, slot in f.slots.items():
                into = merged.setdefault(index, SlotFacts(index=index))
                into.element_index = (
                    into.element_index if into.element_index is not None else slot.element_index
                )
                into.descriptor = into.descriptor or slot.descriptor
                into.status = into.status or slot.status
                into.fault = into.fault if into.fault is not None else slot.fault
                into.locate = into.locate if into.locate is not None else slot.locate
                into.active = into.active if into.active is not None else slot.active
                into.device_hctl = into.device_hctl or slot.device_hctl
                into.sas_addresses.extend(
                    a for a in slot.sas_addresses if a not in into.sas_addresses
                )
        by_bay = {d.slot: d for d in disks.get(enc.id, []) if d.slot is not None}
        if enc.bay_count is None and merged:
            enc.bay_count = len(merged)
        indexes = sorted(set(merged) | set(by_bay))
        slots = []
        for index in indexes:
            info = merged.get(index, SlotFacts(index=index))
            disk = by_bay.get(index)
            occupied = _occupied(disk is not None, info.status)
            slots.append(
                Slot(
                    id=ids.slot_id(enc.id, index),
                    index=index,
                    element_index=info.element_index,
                    descriptor=info.descriptor,
                    status=info.status,
                    fault=info.fault,
                    locate=info.locate,
                    active=info.active,
                    occupied=occupied,
                    disk_id=disk.id if disk else None,
                )
            )
        return slots

    # -- disks ---------------------------------------------------------------------------

    def _places(self) -> dict[str, tuple[str, int]]:
        """Where SES puts each disk: its port SAS addresses (additional element status) and
        the H:C:T:L of its `/sys/class/enclosure` device link -> (logical id, bay)."""
        found: dict[str, tuple[str, int]] = {}
        for facts in self.ses.values():
            if not facts.logical_id:
                continue
            for slot in facts.slots.values():
                for key in [*slot.sas_addresses, slot.device_hctl]:
                    if key:
                        found[key] = (facts.logical_id, slot.index)
        return found

    def _add_ses_port_addresses(self, disk: Disk) -> None:
        """Port addresses SES lists for the disk's bay: port B of a dual-ported disk shows
        there even when no path reaches it (the single-pathed JBOD of field case 1)."""
        if disk.enclosure_id is None or disk.slot is None:
            return
        logical = disk.enclosure_id.split(":", 1)[1]
        for facts in self.ses.values():
            slot = facts.slots.get(disk.slot) if facts.logical_id == logical else None
            if slot is None or not set(slot.sas_addresses) & set(disk.port_sas_addresses):
                continue  # only a bay whose SES entry names this very disk
            disk.port_sas_addresses.extend(
                a for a in slot.sas_addresses if a not in disk.port_sas_addresses
            )

    def _disks(self) -> list[Disk]:
        places = self._places()
        grouped: dict[str, list[tuple[DiskPath, ScsiDevice, EndDevice | None]]] = defaultdict(list)
        for entry in self.seen.paths:
            path, dev, end = entry
            identity = dev.wwid or (path.target_sas_address or f"{path.hba_id}:{dev.hctl}")
            grouped[identity].append(entry)
        disks = []
        for identity, entries in grouped.items():
            _, first_dev, first_end = entries[0]
            disk = Disk(
                id=ids.disk_id(identity),
                wwid=first_dev.wwid,
                vendor=first_dev.vendor,
                model=first_dev.model,
                revision=first_dev.revision,
                serial=first_dev.serial,
                protocol=first_end.target_protocols if first_end else None,
                rotational=first_dev.rotational,
                size_bytes=first_dev.size_bytes,
                paths=sorted((p for p, _, _ in entries), key=lambda p: p.id),
            )
            for path, dev, end in entries:
                if (
                    path.target_sas_address
                    and path.target_sas_address not in disk.port_sas_addresses
                ):
                    disk.port_sas_addresses.append(path.target_sas_address)
                if end is not None and not path.expander_ids:
                    disk.direct_attached = True
                elif end is not None and end.enclosure_identifier and disk.enclosure_id is None:
                    disk.enclosure_id = ids.enclosure_id(end.enclosure_identifier)
                    disk.slot = end.bay
                if disk.enclosure_id is None:
                    place = places.get(dev.hctl) or places.get(path.target_sas_address or "")
                    if place:
                        disk.enclosure_id = ids.enclosure_id(place[0])
                        disk.slot = place[1]
            self._add_ses_port_addresses(disk)
            disk.hba_ports = len({path_route(p) for p in disk.paths})
            disks.append(disk)
        return sorted(
            disks,
            key=lambda d: (d.enclosure_id or "~", d.slot if d.slot is not None else 1 << 30, d.id),
        )

    # -- chains and path counts ----------------------------------------------------------

    def _chains(self, hbas: list[Hba], enclosure_of: dict[str, str]) -> list[Chain]:
        chains = []
        for hba in hbas:
            for port in hba.ports:
                tree = self.seen.port_trees.get(port.id, [])
                if not tree:
                    continue
                chain = Chain(id=ids.chain_id(port.id), hba_id=hba.id, hba_port_id=port.id)
                chain.enclosure_ids = self._chain_order(port.id, enclosure_of)
                chain.branches = self._branches(port.id, enclosure_of)
                chain.switch_ids = sorted({e for e, _ in tree if e not in enclosure_of})
                chains.append(chain)
        return chains

    def _chain_order(self, port_id: str, enclosure_of: dict[str, str]) -> list[str]:
        """Enclosures below a port by how many enclosures the cable passes to reach them."""
        depth: dict[str, int] = {}
        roots = [e for e in self.seen.expanders.values() if port_id in e.upstream_ids]
        stack: list[tuple[str, int, str | None]] = [(e.id, 0, None) for e in roots]
        visited: set[str] = set()
        while stack:
            exp_id, hops, last = stack.pop()
            if exp_id in visited:
                continue
            visited.add(exp_id)
            enc = enclosure_of.get(exp_id)
            if enc is not None and enc != last:
                hops += 1
                depth[enc] = min(depth.get(enc, hops), hops)
            for child in self.seen.expander_children.get(exp_id, set()):
                stack.append((child, hops, enc if enc is not None else last))
        return sorted(depth, key=lambda e: (depth[e], e))

    def _branches(self, port_id: str, enclosure_of: dict[str, str]) -> list[list[str]]:
        """Each daisy chain below a port: the enclosure sequence to every leaf expander."""
        sequences: set[tuple[str, ...]] = set()
        roots = [e.id for e in self.seen.expanders.values() if port_id in e.upstream_ids]
        stack: list[tuple[str, tuple[str, ...], frozenset[str]]] = [
            (r, (), frozenset()) for r in roots
        ]
        while stack:
            exp_id, sequence, visited = stack.pop()
            if exp_id in visited:
                continue
            enc = enclosure_of.get(exp_id)
            if enc is not None and (not sequence or sequence[-1] != enc):
                sequence = (*sequence, enc)
            children = self.seen.expander_children.get(exp_id, set())
            if not children and sequence:
                sequences.add(sequence)
            for child in children:
                stack.append((child, sequence, visited | {exp_id}))
        maximal = [
            s for s in sequences if not any(len(o) > len(s) and o[: len(s)] == s for o in sequences)
        ]
        return [list(s) for s in sorted(maximal)]

    def _count_enclosure_paths(
        self, enclosures: list[Enclosure], disks: list[Disk], enclosure_of: dict[str, str]
    ) -> None:
        ports: dict[str, set[str]] = defaultdict(set)
        for exp_id, enc_id in enclosure_of.items():
            ports[enc_id].update(self.seen.expander_ports.get(exp_id, set()))
        for disk in disks:
            if disk.enclosure_id:
                ports[disk.enclosure_id].update(p.hba_port_id for p in disk.paths if p.hba_port_id)
        for enc in enclosures:
            for ses in enc.ses_devices:
                ports[enc.id].update(ses.hba_port_ids)
            enc.hba_port_ids = sorted(ports.get(enc.id, set()))
            # Behind a driver that hides ports, a disk's own path count is the best evidence.
            widest = max((d.hba_ports for d in disks if d.enclosure_id == enc.id), default=0)
            enc.hba_ports = max(len(enc.hba_port_ids), widest)
        disks_by_enc: dict[str, list[Disk]] = defaultdict(list)
        for disk in disks:
            if disk.enclosure_id:
                disks_by_enc[disk.enclosure_id].append(disk)
        for enc in enclosures:
            enc.hba_ports_expected, enc.hba_ports_expected_reason = self._expected_hba_ports(
                enc, enclosures, disks_by_enc.get(enc.id, [])
            )

    def _expected_hba_ports(
        self, enc: Enclosure, enclosures: list[Enclosure], disks: list[Disk]
    ) -> tuple[int, str]:
        """How many HBA ports this enclosure is built to be reached through, and why."""
        if len(enc.ses_devices) >= 2:
            return 2, f"{len(enc.ses_devices)} I/O modules answer as SES devices"
        facts = [f for s in enc.ses_devices for h in s.hctls if (f := self.ses.get(h))]
        declared = max((f.io_modules or 0 for f in facts), default=0)
        if declared >= 2:
            return 2, f"its SES configuration declares {declared} I/O modules"
        elements = max((f.expander_elements or 0 for f in facts), default=0)
        if not declared and elements >= 2:  # I/O modules not counted: expanders hint at two
            return 2, f"its SES configuration lists {elements} SAS expanders"
        dual = max((f.dual_ported_slots for f in facts), default=0)
        if dual:
            return 2, f"SES lists {dual} slots holding dual-ported disks"
        dual_disks = [d for d in disks if len(d.port_sas_addresses) >= 2]
        if dual_disks:
            return 2, f"{len(dual_disks)} of its disks are dual-ported (two SAS port addresses)"
        peers = [
            e
            for e in enclosures
            if e.id != enc.id and e.product and e.product == enc.product and e.vendor == enc.vendor
        ]
        if peers and max(e.hba_ports for e in peers) >= 2:
            best = max(e.hba_ports for e in peers)
            return (
                best,
                f"other {enc.vendor} {enc.product} enclosures here have {best} HBA port paths",
            )
        return 1, "no sign of a second I/O module or of dual-ported disks"
