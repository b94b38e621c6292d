"""`enclosure.element.failed`: an SES element of an enclosure — power supply, fan, temperature,
voltage or current sensor, ESM/I/O module, SAS expander, display — that reports a failure, a
temperature over the sensor's own limit, or is not installed where its peers are."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.sas import Enclosure, EnclosureElement
from pinchpoint.naming import enclosure_element_name, enclosure_ref, hba_port_name
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext
from pinchpoint.stats.enclosure_elements import ElementTrouble, element_kind, element_troubles

# Element types that carry SAS paths: what runs through them is named.
PATH_TYPES = ("sas expander", "enclosure services controller electronics")


def _reading_facts(element: EnclosureElement) -> list[Fact]:
    facts: list[Fact] = []
    if element.temperature_c is not None:
        facts.append(Fact(name="temperature", value=element.temperature_c, unit="°C"))
    if element.voltage_v is not None:
        facts.append(Fact(name="voltage", value=element.voltage_v, unit="V"))
    if element.current_a is not None:
        facts.append(Fact(name="current", value=element.current_a, unit="A"))
    if element.fan_rpm is not None:
        facts.append(Fact(name="fan speed", value=element.fan_rpm, unit="rpm"))
    limits = element.limits
    if limits is not None:
        unit = "°C" if limits.unit == "C" else limits.unit or None
        for name, value in (
            ("high critical limit", limits.high_critical),
            ("high warning limit", limits.high_warning),
            ("low warning limit", limits.low_warning),
            ("low critical limit", limits.low_critical),
        ):
            if value is not None:
                facts.append(Fact(name=name, value=value, unit=unit))
    return facts


def _paths_through(
    element: EnclosureElement, enclosure: Enclosure, inventory: Inventory
) -> tuple[str, list[Fact]]:
    """The SAS paths (HBA port → disks) that run through an expander or I/O module element."""
    if element_kind(element) not in PATH_TYPES:
        return "", []
    fabric = inventory.sas
    expander_ids = {
        x.id
        for x in fabric.expanders
        if element.sas_address and x.sas_address == element.sas_address
    }
    expander_ids |= {
        s.expander_id
        for s in enclosure.ses_devices
        if s.expander_id and element.sas_address and s.sas_address == element.sas_address
    }
    if not expander_ids:
        if element.status.lower() == "not installed":
            return (
                f"; no SAS path runs through it: {enclosure.name} is reached through "
                f"{enclosure.hba_ports} of {enclosure.hba_ports_expected} HBA ports expected",
                [Fact(name="HBA ports reaching the enclosure", value=enclosure.hba_ports)],
            )
        return "", []
    ports = {p.id: (h, p) for h in fabric.hbas for p in h.ports}
    enclosures = {e.id: e for e in fabric.enclosures}
    # HBA port -> enclosure name -> slots of the disks whose path runs through the element;
    # the element's own enclosure first, then those daisy-chained behind it
    by_port: dict[str, dict[str, list[int | None]]] = {}
    own_first = sorted(
        fabric.disks,
        key=lambda d: (d.enclosure_id != enclosure.id, d.enclosure_id or "", d.slot or 0, d.id),
    )
    for disk in own_first:
        for path in disk.paths:
            if expander_ids & set(path.expander_ids):
                where = path.hba_port_id or path.hba_id
                home = enclosures.get(disk.enclosure_id or "")
                group = home.name if home else "no enclosure"
                by_port.setdefault(where, {}).setdefault(group, []).append(disk.slot)
    if not by_port:
        return "; no disk path runs through it", []
    facts: list[Fact] = []
    parts: list[str] = []
    total = 0
    for port_id, groups in by_port.items():
        hba_port = ports.get(port_id)
        port_name = hba_port_name(*hba_port) if hba_port else port_id
        count = sum(len(slots) for slots in groups.values())
        total += count
        spread = ", ".join(f"{len(slots)} in {name}" for name, slots in groups.items())
        parts.append(f"{count} from {port_name} ({spread})")
        for name, slots in groups.items():
            facts.append(
                Fact(
                    name=f"disk paths from {port_name} to {name}",
                    value=f"{len(slots)}: {_slots_text(slots)}",
                )
            )
    return f"; {total} disk paths run through it: {'; '.join(parts)}", facts


def _slots_text(slots: list[int | None]) -> str:
    """`slots 0–11`, `slots 0–3, 7`, `slot 5`: the bays of the disks, runs folded."""
    known = sorted({s for s in slots if s is not None})
    unknown = len(slots) - len([s for s in slots if s is not None])
    runs: list[str] = []
    for number in known:
        if runs and runs[-1].split("–")[-1] == str(number - 1):
            runs[-1] = f"{runs[-1].split('–')[0]}–{number}"
        else:
            runs.append(str(number))
    text = f"slot{'s' if len(known) != 1 else ''} {', '.join(runs)}" if known else ""
    if unknown:
        text = f"{text}, {unknown} without a slot" if text else f"{unknown} without a slot"
    return text


def _hit(enclosure: Enclosure, trouble: ElementTrouble, inventory: Inventory) -> Hit:
    element = trouble.element
    name = enclosure_element_name(enclosure, element)
    paths_text, path_facts = _paths_through(element, enclosure, inventory)
    facts = [
        Fact(name="status", value=element.status),
        Fact(  # how sg_ses addresses it: type header index, element within the type
            name="SES element",
            value=f"sg_ses --index={element.type_index},{element.index}",
        ),
    ]
    if element.fail:
        facts.append(Fact(name="Fail bit", value=True))
    if element.predicted_failure:
        facts.append(Fact(name="predicted failure", value=True))
    if element.warnings:
        facts.append(Fact(name="alarm bits set", value=", ".join(element.warnings)))
    facts += _reading_facts(element)
    if element.sas_address:
        facts.append(Fact(name="SAS address", value=element.sas_address))
    if enclosure.status_summary:
        facts.append(Fact(name="enclosure summary", value=", ".join(enclosure.status_summary)))
    if element.reported_by:
        facts.append(Fact(name="reported by", value=element.reported_by))
    facts += path_facts
    return Hit(
        entity=enclosure_ref(enclosure),
        key=f"{enclosure.id}/element/{element.type_index}/{element.index}",
        title=f"{name} {trouble.what}",
        severity=trouble.severity,
        remediation=_remediation(element),
        evidence=[
            Evidence(
                summary=f"{name} {trouble.what}{paths_text}",
                facts=facts,
            )
        ],
    )


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Every element that reports a failure, runs past its limits or is missing beside peers."""
    inventory = context.inventory
    for enclosure in inventory.sas.enclosures:
        for trouble in element_troubles(enclosure):
            yield _hit(enclosure, trouble, inventory)


_REMEDIATIONS = {
    "power supply": (
        "Check the power supply's cord, its PDU and circuit; reseat it; if it still reports a "
        "failure, replace it with the vendor's part (hot-swap, the other supply carries the "
        "enclosure meanwhile — do not pull the last working one). Then check again."
    ),
    "uninterruptible power supply": (
        "Check the UPS's input power and battery; replace the battery or the unit as its "
        "vendor says. Then check again."
    ),
    "cooling": (
        "Replace the fan module (hot-swap, one at a time); until then watch the enclosure's "
        "temperature sensors and keep the blanking panels in place. Then check again."
    ),
    "temperature sensor": (
        "Find the heat: check the enclosure's fans (a failed fan is often the cause), its "
        "airflow (blanking panels, cables in front of the vents, a hot aisle), and the room's "
        "inlet temperature; an enclosure shuts itself down at its critical limit. Then check "
        "again."
    ),
    "sas expander": (
        "Before touching it, make sure every disk listed is reachable through the enclosure's "
        "other I/O module (`pinchpoint inventory`); then reseat or replace the I/O module "
        "holding this expander, one I/O module at a time, and recheck its cables. Then check "
        "again."
    ),
    "enclosure services controller electronics": (
        "Before touching it, make sure every disk is reachable through the other I/O module "
        "(`pinchpoint inventory`); then reseat or replace this I/O module (ESM), one at a time, "
        "and recheck its cables. Then check again."
    ),
}
_DEFAULT_REMEDIATION = (
    "Look the element up in the enclosure vendor's manual (its status and alarm bits are in the "
    "evidence); reseat or replace the part as the manual says, one part at a time. Then check "
    "again."
)


def _remediation(element: EnclosureElement) -> str:
    kind = element_kind(element)
    if kind in ("voltage sensor", "current sensor"):
        return _REMEDIATIONS["power supply"]
    return _REMEDIATIONS.get(kind, _DEFAULT_REMEDIATION)


RULE = Rule(
    id="enclosure.element.failed",
    title="An enclosure's power supply, fan, sensor or I/O module reports a problem",
    severity=Severity.CRITICAL,
    needs=(Input.SAS, Input.ENCLOSURE_ELEMENTS),
    remediation=_DEFAULT_REMEDIATION,
    judge=judge,
    doc=(
        "Reads each enclosure's SES elements other than disk slots (`sg_ses --page=es`, with "
        "names from `--page=ed` and the sensors' own limits from the threshold page "
        "`--page=th`). It finds: an element reporting Critical or Unrecoverable (critical) or "
        "Noncritical (warning); a temperature at or over the sensor's own critical (critical) "
        "or warning (warning) limit, or under its low limits; a power supply, I/O module "
        "(ESM) or SAS expander Not installed while its peers are installed (warning: "
        "redundancy lost). Fans and sensors Not installed are left alone: boards declare "
        "headers nothing is plugged into. For an expander or I/O module it names the SAS "
        "paths — HBA port and disks — that run through it, daisy-chained enclosures included. "
        "An enclosure whose summary says CRIT without any element reporting it gets no "
        "finding: the real Areca 8028 capture sets CRIT=1 while every element is OK or Not "
        "installed (both PSU bays and 4 of 5 fan headers empty, sensors at 49 and 66 °C "
        "against limits of 60 and 90 °C). The judgement is shared with the inventory and the "
        "enclosure page (`stats/enclosure_elements.py`)."
    ),
)
