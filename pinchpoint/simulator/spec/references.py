"""What the sections of a host spec refer to must exist: HBAs, switches, enclosures, bays,
phys, pools, NICs and bonds named anywhere are defined, each cabled or used once. Every error
names the entry at fault, as `chain[1].enclosures: unknown enclosure 'JBOD-9'`."""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING, Any

from pinchpoint.simulator.spec.rest_of_host import PartitionSpec, ZfsDiskRef
from pinchpoint.simulator.spec.sas import EnclosureSpec, HbaSpec
from pinchpoint.simulator.spec.values import CONNECTOR_PHYS

if TYPE_CHECKING:
    from pinchpoint.simulator.spec.host import HostSpec


def check_references(spec: HostSpec) -> None:
    """Refuse a spec whose sections name something it does not define, or use it twice."""
    _check_unique("hba", [h.name for h in spec.hba])
    _check_unique("switch", [s.name for s in spec.switch])
    _check_unique("enclosure", [e.name for e in spec.enclosure])
    _check_unique("hba pci_address", [h.pci_address for h in spec.hba if h.pci_address])
    hbas = {h.name: h for h in spec.hba}
    enclosures = {e.name: e for e in spec.enclosure}
    connector_use = _check_chains(spec, hbas, enclosures)
    _check_degraded_links(spec, hbas, enclosures)
    _check_failing(spec, enclosures)
    _check_lanes(spec, hbas, connector_use)
    _check_phy_errors(spec, hbas, enclosures)
    _check_partitions(spec, enclosures)
    _check_network(spec)
    _check_fc(spec)
    _check_zfs(spec, enclosures)
    _check_workload(spec, enclosures)


def _check_chains(
    spec: HostSpec, hbas: dict[str, HbaSpec], enclosures: dict[str, EnclosureSpec]
) -> dict[tuple[str, int], tuple[int, str | None]]:
    """Chains start at an HBA connector (shared only through one switch), reach enclosures on an
    I/O module they have, cable each side once, and fit their switch; returns which chain first
    cables each (HBA, connector), and through which switch."""
    switches = {s.name: s for s in spec.switch}
    cabled: dict[tuple[str, str], int] = {}
    connector_use: dict[tuple[str, int], tuple[int, str | None]] = {}
    switch_use: dict[str, tuple[str, int]] = {}
    for i, chain in enumerate(spec.chain):
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
            raise ValueError(f"{where}.switch: unknown switch {chain.switch!r}{_known(switches)}")
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
        chains = sum(1 for c in spec.chain if c.switch == switch_name)
        needed = CONNECTOR_PHYS * (1 + chains)
        if needed > switch.phys:
            raise ValueError(
                f"switch {switch_name!r}: {chains} chains and the link to HBA {hba_name!r} "
                f"connector {connector} need {needed} phys, it has {switch.phys}"
            )
    return connector_use


def _check_degraded_links(
    spec: HostSpec, hbas: dict[str, HbaSpec], enclosures: dict[str, EnclosureSpec]
) -> None:
    """A degraded link names an HBA phy or an enclosure bay that exists."""
    for i, link in enumerate(spec.degraded_link):
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
                    f"{where}.enclosure: unknown enclosure {link.enclosure!r}{_known(enclosures)}"
                )
            if link.bay is not None and link.bay >= enclosure.bays:
                raise ValueError(f"{where}.bay: bay {link.bay} is outside 0..{enclosure.bays - 1}")
            if link.io_module not in enclosure.io_module_names:
                raise ValueError(f"{where}.io_module: no I/O module {link.io_module}")


def _check_failing(spec: HostSpec, enclosures: dict[str, EnclosureSpec]) -> None:
    """Failing disks name an occupied bay, with a kind the disk's protocol can show."""
    for i, failing in enumerate(spec.failing_disk):
        where = f"failing_disk[{i}]"
        enclosure = enclosures.get(failing.enclosure)
        if enclosure is None:
            raise ValueError(
                f"{where}.enclosure: unknown enclosure {failing.enclosure!r}{_known(enclosures)}"
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
        if failing.kind == "worn" and enclosure.disk.rotational:
            raise ValueError(f"{where}.kind: worn needs SSDs (disk.rotational = false)")


def _check_lanes(
    spec: HostSpec, hbas: dict[str, HbaSpec], cabled: dict[tuple[str, int], tuple[int, str | None]]
) -> None:
    """A lane down names an HBA phy of a cabled connector, once."""
    seen: set[tuple[str, int]] = set()
    for i, lane in enumerate(spec.lane_down):
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
        if any(d.hba == hba.name and d.phy == lane.phy for d in spec.degraded_link):
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
    spec: HostSpec, hbas: dict[str, HbaSpec], enclosures: dict[str, EnclosureSpec]
) -> None:
    """Phy error counters name a phy that exists."""
    for i, errors in enumerate(spec.phy_errors):
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


def _check_partitions(spec: HostSpec, enclosures: dict[str, EnclosureSpec]) -> None:
    """Partitions name an occupied bay outside every pool, and do not overlap."""
    pooled = _pool_bays(spec, enclosures)
    by_disk: dict[tuple[str, int], list[PartitionSpec]] = {}
    for i, part in enumerate(spec.partition):
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


def _pool_bays(spec: HostSpec, enclosures: dict[str, EnclosureSpec]) -> dict[tuple[str, int], str]:
    """Every (enclosure, bay) a ZFS pool may take (its enclosures' bays, or the bays it
    lists, and its log, cache and spare disks), with the pool's name."""
    taken: dict[tuple[str, int], str] = {}
    for pool in spec.zfs.pool if spec.zfs else []:
        for name in pool.enclosures:
            enclosure = enclosures.get(name)
            if enclosure is None:
                continue
            bays = pool.bays if pool.bays is not None else range(enclosure.bays)
            taken.update({(name, b): pool.name for b in bays})
        for ref in (*pool.log, *pool.cache, *pool.spares):
            taken[(ref.enclosure, ref.bay)] = pool.name
    return taken


def _check_network(spec: HostSpec) -> None:
    """NIC and bond names are unique; members and bonds refer to each other."""
    _check_unique("nic", [n.name for n in spec.nic] + [b.name for b in spec.bond])
    _check_unique("nic pci_address", [n.pci_address for n in spec.nic if n.pci_address])
    nics = {n.name: n for n in spec.nic}
    bonds = {b.name: b for b in spec.bond}
    for i, nic in enumerate(spec.nic):
        if nic.bond is not None and nic.bond not in bonds:
            raise ValueError(f"nic[{i}].bond: unknown bond {nic.bond!r}{_known(bonds)}")
    taken: dict[str, str] = {}
    for i, bond in enumerate(spec.bond):
        for name in bond.members:
            if name not in nics:
                raise ValueError(
                    f"bond[{i}].members: unknown NIC {name!r} (a member that is gone "
                    "belongs in vanished)"
                )
            if nics[name].bond not in (None, bond.name):
                raise ValueError(f"bond[{i}].members: NIC {name!r} says bond = {nics[name].bond!r}")
        for name in bond.vanished:
            if name in nics:
                raise ValueError(f"bond[{i}].vanished: {name!r} is a NIC of the spec")
        members = spec.bond_members(bond)
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


def _check_fc(spec: HostSpec) -> None:
    """FC port names, addresses and WWPNs are unique, and no PCI function is used twice."""
    _check_unique("fc_port", [p.name for p in spec.fc_port])
    _check_unique("fc_port wwpn", [p.wwpn for p in spec.fc_port if p.wwpn])
    used = [h.pci_address for h in spec.hba if h.pci_address]
    used += [n.pci_address for n in spec.nic if n.pci_address]
    used += [p.pci_address for p in spec.fc_port if p.pci_address]
    used += [d.pci_address for d in spec.nvme if d.pci_address]
    _check_unique("pci_address (HBAs, NICs, FC ports and NVMe SSDs)", used)
    _check_failed_paths(spec)


def _check_failed_paths(spec: HostSpec) -> None:
    """A failed path is a path of a map: a LUN its online port sees, of an LU with two paths."""
    ports = {p.name: p for p in spec.fc_port}
    seen: set[tuple[str, int, int]] = set()
    for i, failed in enumerate(spec.multipath.failed_path):
        where = f"multipath.failed_path[{i}]"
        if not spec.multipath.enabled:
            raise ValueError(f"{where}: [multipath] is not enabled, so there is no map")
        port = ports.get(failed.port)
        if port is None:
            raise ValueError(f"{where}.port: no fc_port {failed.port!r}{_known(ports)}")
        if port.state != "Online":
            raise ValueError(f"{where}.port: {failed.port!r} is not Online, so it has no path")
        if failed.remote_port >= port.remote_ports:
            raise ValueError(
                f"{where}.remote_port: {failed.port!r} has {port.remote_ports} remote ports"
            )
        if failed.lun > port.luns:
            raise ValueError(f"{where}.lun: {failed.port!r} sees {port.luns} LUNs")
        paths = sum(
            p.remote_ports
            for p in spec.fc_port
            if p.array == port.array and p.state == "Online" and p.luns >= failed.lun
        )
        if paths < 2:
            raise ValueError(f"{where}: LUN {failed.lun} has one path, so no multipath map")
        key = (failed.port, failed.remote_port, failed.lun)
        if key in seen:
            raise ValueError(f"{where}: that path is already failed")
        seen.add(key)


def _check_zfs(spec: HostSpec, enclosures: dict[str, EnclosureSpec]) -> None:
    """Pools name known enclosures and occupied bays, each disk used once."""
    if spec.zfs is None:
        return
    _check_unique("zfs.pool", [p.name for p in spec.zfs.pool])
    used: dict[tuple[str, int], str] = {}
    for i, pool in enumerate(spec.zfs.pool):
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
        for j, fault in enumerate(pool.fault):
            if fault.enclosure not in enclosures:
                raise ValueError(
                    f"{where}.fault[{j}].enclosure: unknown enclosure "
                    f"{fault.enclosure!r}{_known(enclosures)}"
                )
            enclosure = enclosures[fault.enclosure]
            if fault.bay >= enclosure.bays or fault.bay in enclosure.empty_bays:
                raise ValueError(f"{where}.fault[{j}].bay: bay {fault.bay} holds no disk")


def _check_workload(spec: HostSpec, enclosures: dict[str, EnclosureSpec]) -> None:
    """Loads name pools and enclosures that exist; LUN loads need FC ports."""
    if spec.workload is None:
        return
    pools = {p.name: p for p in (spec.zfs.pool if spec.zfs else [])}
    for i, load in enumerate(spec.workload.load):
        where = f"workload.load[{i}]"
        if load.pool is not None and load.pool not in pools:
            raise ValueError(f"{where}.pool: unknown pool {load.pool!r}{_known(pools)}")
        for name in load.enclosures or []:
            if name not in enclosures:
                raise ValueError(
                    f"{where}.enclosures: unknown enclosure {name!r}{_known(enclosures)}"
                )
        if load.luns and not spec.fc_port:
            raise ValueError(f"{where}.luns: the host has no [[fc_port]], so no LUN")
    links = {n.name: n for n in spec.nic} | {b.name: b for b in spec.bond}
    for i, traffic in enumerate(spec.workload.network):
        if traffic.interface not in links:
            raise ValueError(
                f"workload.network[{i}].interface: unknown NIC or bond "
                f"{traffic.interface!r}{_known(links)}"
            )


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
