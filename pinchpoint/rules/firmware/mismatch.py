"""`firmware.mismatch`: one model of disk, HBA, expander or enclosure I/O module running
different firmware on one host."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from pinchpoint.model.findings import EntityRef, Evidence, Fact, Severity
from pinchpoint.model.inventory import Inventory
from pinchpoint.naming import disk_ref, host_ref
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext

TB = 1000**4


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
    return f"{size_bytes / TB:.2f} TB" if size_bytes else "size unknown"


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


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Models whose devices run more than one firmware level."""
    inventory = context.inventory
    groups: dict[tuple[str, tuple[str, ...]], list[Unit]] = {}
    for unit in (*_disks(inventory), *_adapters(inventory)):
        groups.setdefault((unit.kind, unit.identity), []).append(unit)
    host = host_ref(inventory)
    for (kind, identity), units in sorted(groups.items()):
        levels = Counter(u.firmware for u in units)
        if len(levels) < 2:
            continue
        usual = levels.most_common(1)[0][0]
        others = [u for u in units if u.firmware != usual]
        model = units[0].model
        counts = ", ".join(f"{level} on {n}" for level, n in levels.most_common())
        facts = [Fact(name="firmware levels", value=counts)]
        facts += [
            Fact(
                name=f"{u.kind} not at {usual}",
                value=u.firmware if u.ref is not None else f"{u.firmware} ({u.name})",
                entity=u.ref,
            )
            for u in others
        ]
        yield Hit(
            entity=host,
            key=f"{host.id}/{kind}/{'/'.join(identity)}",
            title=f"{len(levels)} firmware levels on {len(units)} {kind}s {model}",
            severity=Severity.INFO if kind == "disk" else Severity.WARNING,
            evidence=[
                Evidence(
                    summary=(
                        f"{len(units)} {kind}s {model}: {counts}; "
                        f"{len(others)} not at the usual {usual}"
                    ),
                    facts=facts,
                )
            ],
        )


RULE = Rule(
    id="firmware.mismatch",
    title="One model running different firmware on one host",
    severity=Severity.WARNING,
    needs=(Input.SAS,),
    remediation=(
        "Bring every device of the model to the same firmware — the vendor's current release "
        "for that model — one device at a time, in a maintenance window (for an enclosure's "
        "I/O modules and expanders, the enclosure vendor's bundle; for HBAs, the release the "
        "enclosure vendor supports); then check again."
    ),
    judge=judge,
    doc=(
        "Devices of one model behave alike only at one firmware level: a disk firmware fix "
        "(a timeout, a cache bug) protects only the disks that have it, two I/O modules of an "
        "enclosure at different levels are a known cause of path flapping, and HBAs and "
        "expanders are qualified by the enclosure vendor as a set. The rule groups devices by "
        "their full model identity — a disk by the model SMART reports (sysfs cuts a SATA "
        "model to 16 characters) and its capacity, an HBA by board and driver, an expander or "
        "I/O module by vendor and product — and names the devices not at the most common "
        "level. Disks are info (mixed disk firmware is common and often harmless), HBAs, "
        "expanders and I/O modules a warning."
    ),
)
