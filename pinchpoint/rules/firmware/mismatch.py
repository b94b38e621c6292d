"""`firmware.mismatch`: one model of disk (on any controller), HBA, expander or enclosure I/O
module running different firmware on one host."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.naming import host_ref
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext
from pinchpoint.rules.derived.firmware import (
    behind_facts,
    firmware_units,
    mismatch_severity,
    units_by_model,
)


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Models whose devices run more than one firmware level."""
    inventory = context.inventory
    host = host_ref(inventory)
    for (kind, identity), units in units_by_model(firmware_units(inventory)).items():
        levels = Counter(u.firmware for u in units)
        if len(levels) < 2:
            continue
        usual = levels.most_common(1)[0][0]
        others = [u for u in units if u.firmware != usual]
        model = units[0].model
        counts = ", ".join(f"{level} on {n}" for level, n in levels.most_common())
        facts = [Fact(name="firmware levels", value=counts)]
        facts += behind_facts(units, usual)
        yield Hit(
            entity=host,
            key=f"{host.id}/{kind}/{'/'.join(identity)}",
            title=f"{len(levels)} firmware levels on {len(units)} {kind}s {model}",
            severity=mismatch_severity(kind),
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
    needs=(Input.FIRMWARE,),
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
        "their full model identity — a disk on any controller (SAS fabric, AHCI/SATA, NVMe) "
        "by the model SMART reports (sysfs cuts a SATA model to 16 characters) and its "
        "capacity, an HBA by board and driver, an expander or "
        "I/O module by vendor and product — and names the devices not at the most common "
        "level. Disks are info (mixed disk firmware is common and often harmless), HBAs, "
        "expanders and I/O modules a warning. It runs on a host with a SAS HBA or SMART data: "
        "a disk off the SAS fabric is known by the model and firmware smartctl reports. "
        "LUNs of an array (FC, multipath, iSCSI, NVMe-oF) are not disks here: the revision "
        "a LUN reports is the array's software release, updated and judged on the array."
    ),
)
