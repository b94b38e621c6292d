"""`sas.disk.missing_path`: a disk reached through fewer HBA ports than the other disks of its
enclosure that speak the same protocol."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.model.sas import Disk
from pinchpoint.naming import disk_ref
from pinchpoint.plurals import agree, plural
from pinchpoint.rules.base import Hit, Input, Limits, Role, Rule, RuleContext
from pinchpoint.rules.derived.hba_ports import hba_ports
from pinchpoint.rules.sas.wording import and_join


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Disks reached through fewer HBA ports than the other disks of their enclosure that speak
    the same protocol (a SATA disk has one port: it is compared with SATA disks only)."""
    inventory = context.inventory
    ports = context.derived(hba_ports)
    by_enclosure: dict[tuple[str, str | None], list[Disk]] = {}
    for disk in inventory.sas.disks:
        if disk.enclosure_id:
            by_enclosure.setdefault((disk.enclosure_id, disk.protocol), []).append(disk)
    for disk in inventory.sas.disks:
        if not disk.enclosure_id:
            continue
        alike = by_enclosure[(disk.enclosure_id, disk.protocol)]
        peers = [d for d in alike if d.id != disk.id]
        if not peers:
            continue
        expected = max(d.hba_ports for d in peers)
        if disk.hba_ports >= expected:
            continue
        own = {p.hba_port_id for p in disk.paths if p.hba_port_id}
        reached = {p.hba_port_id for d in peers for p in d.paths if p.hba_port_id}
        missing = sorted(reached - own)
        ref = disk_ref(disk, inventory)
        with_all = sum(1 for d in peers if d.hba_ports == expected)
        summary = (
            f"{ref.name} is reached through {plural(disk.hba_ports, 'HBA port')} where "
            f"{plural(with_all, 'other disk')} of its enclosure "
            f"{agree(with_all, 'has', 'have')} {expected}"
        )
        if missing:
            summary += f"; missing: {and_join([ports.name(p) for p in missing])}"
        yield Hit(
            entity=ref,
            title=f"{ref.name} has {disk.hba_ports} of {expected} paths",
            evidence=[
                Evidence(
                    summary=summary,
                    facts=[
                        Fact(name="paths", value=disk.hba_ports, unit="HBA ports"),
                        Fact(name="paths of its peers", value=expected, unit="HBA ports"),
                        Fact(name="disk ports", value=len(disk.port_sas_addresses)),
                        *[Fact(name="not reached through", value=ports.name(p)) for p in missing],
                    ],
                    peers=[disk_ref(d, inventory) for d in peers],
                )
            ],
        )


RULE = Rule(
    id="sas.disk.missing_path",
    title="A disk with fewer paths than the other disks of its enclosure",
    severity=Severity.WARNING,
    needs=(Input.SAS,),
    derived=(hba_ports,),
    remediation=(
        "Reseat the disk in its bay; if the path does not return, the disk's second port or "
        "the bay's connection to that I/O module is faulty: replace the disk, then the I/O "
        "module."
    ),
    judge=judge,
    doc=(
        "When the enclosure's other disks are reached through two HBA ports and one disk "
        "through one, that disk's port, its bay connector or the I/O module's lane to it "
        "failed. Disks are compared with disks of the same protocol in the same enclosure "
        "(a SATA disk has one port)."
    ),
    role=Role.CAUSE,
)
