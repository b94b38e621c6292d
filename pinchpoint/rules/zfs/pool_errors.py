"""`zfs.pool.errors`: read, write or checksum errors counted on a pool's devices, each named by
enclosure and slot, and whether they line up with one enclosure or one HBA."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.model.inventory import Inventory
from pinchpoint.naming import hba_port_name
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext
from pinchpoint.rules.derived.disk_names import disk_names
from pinchpoint.rules.zfs.devices import (
    NOT_SERVING,
    Device,
    counts_text,
    devices,
    error_total,
    pool_ref,
)


def _shared_place(counting: list[Device], every: list[Device], inventory: Inventory) -> str | None:
    """`all in JBOD-003` or `all behind 0000:03:00.0 … connector 0` when the devices with
    errors (two or more) share one enclosure or one HBA port that the pool's other devices do
    not all share: then the fault is likely there, not in the disks."""
    if len(counting) < 2 or any(d.disk is None for d in counting):
        return None
    enclosures = {d.disk.enclosure_id for d in counting if d.disk is not None}
    pool_enclosures = {d.disk.enclosure_id for d in every if d.disk is not None}
    if len(enclosures) == 1 and len(pool_enclosures) > 1 and None not in enclosures:
        name = next(
            (e.name for e in inventory.sas.enclosures if e.id in enclosures), "one enclosure"
        )
        return f"all in {name}"
    ports_of = [{p.hba_port_id for p in d.disk.paths if p.hba_port_id} for d in counting if d.disk]
    shared = set.intersection(*ports_of) if ports_of else set()
    pool_ports = {p.hba_port_id for d in every if d.disk for p in d.disk.paths if p.hba_port_id}
    if len(shared) == 1 and len(pool_ports) > 1 and all(len(p) == 1 for p in ports_of):
        port_id = shared.pop()
        for hba in inventory.sas.hbas:
            for port in hba.ports:
                if port.id == port_id:
                    return f"all reached only through {hba_port_name(hba, port)}"
    return None


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Pools whose devices count read, write or checksum errors, or that hold data errors."""
    inventory = context.inventory
    for pool in inventory.zfs.pools:
        every = list(devices(pool, inventory, context.derived(disk_names)))
        # A FAULTED or missing device is `zfs.pool.degraded`'s; here, those still serving.
        counting = [d for d in every if error_total(d.leaf) and d.leaf.state not in NOT_SERVING]
        data_errors = pool.data_errors or 0
        if not counting and not data_errors:
            continue
        lines = [f"{d.ref.name} ({counts_text(d.leaf)})" for d in counting]
        summary = f"pool {pool.name}: " + ("; ".join(lines) if lines else "no device counts errors")
        place = _shared_place(counting, every, inventory)
        if place:
            summary += f" — {place}: look at what they share before replacing disks"
        if data_errors:
            summary += f"; {data_errors} data error{'s' if data_errors != 1 else ''} " + (
                "(`zpool status -v` lists the damaged files)"
            )
        facts = [Fact(name="devices counting errors", value=len(counting))]
        if data_errors:
            facts.append(Fact(name="data errors", value=data_errors))
        facts += [Fact(name="errors", value=counts_text(d.leaf), entity=d.ref) for d in counting]
        total = sum(error_total(d.leaf) for d in counting)
        yield Hit(
            entity=pool_ref(pool),
            title=(
                f"pool {pool.name}: {total} I/O errors on {len(counting)} device"
                f"{'s' if len(counting) != 1 else ''}"
                + (f", {data_errors} data errors" if data_errors else "")
            ),
            evidence=[Evidence(summary=summary, facts=facts)],
        )


RULE = Rule(
    id="zfs.pool.errors",
    title="Errors counted on a ZFS pool's devices",
    severity=Severity.WARNING,
    needs=(Input.ZFS,),
    derived=(disk_names,),
    remediation=(
        "Read each named disk's SMART data and kernel log; when the errors share an enclosure, "
        "a cable or an HBA port, check that first (reseat or replace the cable, look at the "
        "expander's phy errors). Scrub the pool (`zpool scrub`), then `zpool clear` it and "
        "watch whether the counts come back; replace a disk whose counts keep rising."
    ),
    judge=judge,
    doc=(
        "ZFS counts read, write and checksum errors per device while the pool stays ONLINE: a "
        "checksum error is data that came back wrong and was repaired from redundancy — fine "
        "once, a failing disk or path when it keeps happening (OpenZFS ZFS-8000-9P). The rule "
        "names every device still in service that counts errors (FAULTED or missing ones are "
        "`zfs.pool.degraded`'s) by enclosure and slot, says when two or more of them share one "
        "enclosure or one HBA port the rest of the pool does not — then the enclosure, its "
        "cable or the port is the suspect, not the disks — and reports the pool's data errors."
    ),
)
