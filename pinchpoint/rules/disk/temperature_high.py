"""`disk.temperature.high`: a drive at or over its own temperature limits, or much hotter than
the other drives of its enclosure."""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from collections.abc import Iterator
from statistics import median

from pinchpoint.model.findings import EntityRef, Evidence, Fact, Severity
from pinchpoint.model.health import DiskHealth
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.sas import Enclosure
from pinchpoint.naming import enclosure_ref, health_disk_ref, sas_disks_by_id
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext, Threshold


def _enclosures(inventory: Inventory) -> dict[str, str]:
    """Disk id -> its enclosure's id, for the disks the SAS inventory places in a bay."""
    return {d.id: d.enclosure_id for d in inventory.sas.disks if d.enclosure_id is not None}


def _peer_temperatures(inventory: Inventory, where: dict[str, str]) -> dict[str, list[DiskHealth]]:
    """Enclosure id -> the reports of its disks with a reading."""
    peers: dict[str, list[DiskHealth]] = {}
    for health in inventory.health.disks:
        enclosure = where.get(health.id)
        if health.collected and health.temperature_c is not None and enclosure is not None:
            peers.setdefault(enclosure, []).append(health)
    return peers


class _Enclosure:
    """One enclosure's drives with a reading: their temperatures sorted, and how many reports
    each disk id has among them."""

    def __init__(self, reports: list[DiskHealth]) -> None:
        self.reports = reports
        self.sorted = sorted(p.temperature_c for p in reports if p.temperature_c is not None)
        self.ids = Counter(p.id for p in reports)

    def others(self, health: DiskHealth) -> list[int]:
        """The temperatures of the other drives' reports, sorted (the median is the same
        as of the reports in their order): the sorted list less the drive's own reading, or,
        when the drive has more than one report here, the reports searched."""
        now = health.temperature_c
        if self.ids[health.id] == 1 and now is not None:
            place = bisect_left(self.sorted, now)
            return self.sorted[:place] + self.sorted[place + 1 :]
        mine = [p.temperature_c for p in self.reports if p.id != health.id]
        return sorted(t for t in mine if t is not None)

    def peers(self, health: DiskHealth) -> list[DiskHealth]:
        return [p for p in self.reports if p.id != health.id]


def _limit_facts(health: DiskHealth) -> list[Fact]:
    facts = []
    if health.temperature_warning_c is not None:
        facts.append(
            Fact(name="drive's warning limit", value=health.temperature_warning_c, unit="°C")
        )
    if health.temperature_critical_c is not None:
        facts.append(
            Fact(name="drive's critical limit", value=health.temperature_critical_c, unit="°C")
        )
    return facts


def _enclosure_sensors(enclosure: Enclosure | None) -> list[Fact]:
    """The enclosure's own temperature sensors (SES), as context: a hot enclosure makes hot
    drives; a cool one points at the drive or its bay."""
    if enclosure is None or not enclosure.elements:
        return []
    return [
        Fact(
            name=f"enclosure sensor {e.descriptor or f'{e.element_type} {e.index}'}",
            value=e.temperature_c,
            unit="°C",
        )
        for e in enclosure.elements
        if e.element_type.lower().startswith("temperature") and e.temperature_c is not None
    ]


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Drives at or over their own critical (trip) limit (critical), their warning limit or a
    site-wide maximum (warning), or `above_peers_c` hotter than the median of the other drives
    in their enclosure (warning)."""
    inventory = context.inventory
    disks = sas_disks_by_id(inventory)
    where = _enclosures(inventory)
    # each drive against the others of its enclosure: their temperatures sorted once per
    # enclosure, not gathered and sorted again for each of its 60 drives
    peers = {e: _Enclosure(r) for e, r in _peer_temperatures(inventory, where).items()}
    nowhere = _Enclosure([])
    enclosures = {e.id: e for e in inventory.sas.enclosures}
    for health in inventory.health.disks:
        now = health.temperature_c
        if not health.collected or now is None:
            continue
        reasons: list[str] = []
        severity = Severity.WARNING
        facts = [Fact(name="temperature", value=now, unit="°C")]
        critical, warning = health.temperature_critical_c, health.temperature_warning_c
        site_max = limits.number("max_c", health.id)
        if critical is not None and now >= critical:
            severity = Severity.CRITICAL
            reasons.append(
                f"{now} °C is at or over the drive's critical (trip) limit {critical} °C"
            )
        elif warning is not None and now >= warning:
            reasons.append(f"{now} °C is at or over the drive's warning limit {warning} °C")
        if site_max > 0 and now >= site_max and not reasons:
            reasons.append(f"{now} °C is at or over the configured maximum {site_max:g} °C")
            facts.append(Fact(name="configured maximum", value=site_max, unit="°C"))
        facts += _limit_facts(health)
        enclosure_id = where.get(health.id)
        shelf = peers.get(enclosure_id or "", nowhere)
        others = shelf.others(health)
        compared: list[EntityRef] = []
        if others and len(others) >= limits.number("min_peers", health.id):
            middle = median(others)
            above = now - middle
            facts += [
                Fact(name="median of enclosure peers", value=round(middle, 1), unit="°C"),
                Fact(name="above the peers' median", value=round(above, 1), unit="°C"),
                Fact(name="peers with a reading", value=len(others), unit="drives"),
            ]
            margin = limits.number("above_peers_c", health.id)
            if above >= margin:
                enclosure = enclosures.get(enclosure_id or "")
                place = enclosure_ref(enclosure).name if enclosure else "its enclosure"
                reasons.append(
                    f"{now} °C is {above:g} °C above the median {middle:g} °C of the "
                    f"{len(others)} other drives in {place} (limit {margin:g} °C)"
                )
                compared = [health_disk_ref(p, inventory, disks) for p in shelf.peers(health)]
        if not reasons:
            continue
        ref = health_disk_ref(health, inventory, disks)
        facts += _enclosure_sensors(enclosures.get(enclosure_id or ""))
        remediation = None
        if severity is Severity.CRITICAL:
            remediation = (
                "Act now: the drive is at its shutdown limit. Check the enclosure's fans and "
                "power supplies (its SES status) and the room's cooling; move the workload off "
                "the drive or spin it down until it cools, then replace it if it stays hot."
            )
        yield Hit(
            entity=ref,
            title=f"{ref.name}: drive at {now} °C",
            severity=severity,
            remediation=remediation,
            evidence=[
                Evidence(summary=f"{ref.name}: {'; '.join(reasons)}", facts=facts, peers=compared)
            ],
        )


RULE = Rule(
    id="disk.temperature.high",
    title="A drive over its own temperature limits, or much hotter than its enclosure peers",
    severity=Severity.WARNING,
    needs=(Input.HEALTH,),
    remediation=(
        "Check the airflow at the drive's bay: a blanking panel or drive carrier missing "
        "beside it, a failed or slow fan in the enclosure (its SES cooling elements), dust, a "
        "blocked vent; reseat the drive. If the drive alone stays hot among cool peers, plan "
        "to replace it."
    ),
    judge=judge,
    doc=(
        "Each drive reports its temperature and, where it knows them, its own limits: SAS "
        "drives a trip temperature (`drive_trip`), SATA drives the SCT status's recommended "
        "operating maximum and absolute limit, NVMe drives their warning and critical "
        "composite temperatures (WCTEMP, CCTEMP). A drive at or over its critical limit is "
        "critical, over its warning limit a warning. Drives of one enclosure share its fans, "
        "so a drive 10 °C (`above_peers_c`) above the median of its enclosure peers points "
        "at its bay's airflow or the drive itself even below any limit. Heat shortens a "
        "drive's life and makes it throttle."
    ),
    thresholds={
        "above_peers_c": Threshold(
            10, "How far above the median of its enclosure peers a drive may run.", "°C"
        ),
        "min_peers": Threshold(
            3, "Fewest other drives with a reading in the enclosure to compare with.", "drives"
        ),
        "max_c": Threshold(
            0, "A site-wide maximum for every drive (0: only the drives' own limits).", "°C"
        ),
    },
)
