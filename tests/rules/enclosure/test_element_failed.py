"""`enclosure.element.failed` on a simulated host whose enclosures report a failed PSU, a failed
fan, a hot sensor, a failed and a missing I/O module (simulator/specs/enclosure_faults.toml),
and on the real Areca 8028 SES capture, which it leaves alone."""

from __future__ import annotations

import pytest
from ses_capture import stored

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.collect.sas.enclosure_class import SesFacts
from pinchpoint.checks.collect.sas.ses_apply import SES_PAGES, SesPages, apply_pages, parse_page
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.findings import Finding, Severity
from pinchpoint.model.inventory import HostInfo, Inventory, SourceKind
from pinchpoint.model.sas import ElementLimits, Enclosure, EnclosureElement, Hba, SasFabric
from pinchpoint.rules import enclosure
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.engine import evaluate
from pinchpoint.simulator import DEMO_SPEC_PATH, load_spec, write_snapshot

FAULTS_SPEC = DEMO_SPEC_PATH.parent / "enclosure_faults.toml"


def judged(inventory: Inventory) -> list[Finding]:
    found, skipped, ran = evaluate(RuleContext(inventory=inventory), enclosure.RULES)
    assert (skipped, ran) == ([], 1)
    return found


@pytest.fixture(scope="module")
def faults(tmp_path_factory: pytest.TempPathFactory) -> list[Finding]:
    out = tmp_path_factory.mktemp("enclosure") / "faults"
    write_snapshot(load_spec(FAULTS_SPEC), out)
    return judged(collect_inventory(SnapshotSource(out)))


def one(findings: list[Finding], title_part: str) -> Finding:
    (found,) = [f for f in findings if title_part in f.title]
    return found


def facts(finding: Finding) -> dict[str, object]:
    return {f.name: f.value for f in finding.evidence[0].facts}


def test_every_fault_of_the_spec_and_nothing_else(faults: list[Finding]) -> None:
    assert sorted((f.severity, f.title) for f in faults) == sorted(
        [
            (Severity.CRITICAL, "JBOD-A power supply 1 (PSU 2) reports Critical"),
            (Severity.CRITICAL, "JBOD-A cooling 2 (FAN 3) reports Critical"),
            (Severity.CRITICAL, "JBOD-B SAS expander 1 (EXPANDER B0) reports Critical"),
            (
                Severity.WARNING,
                "JBOD-A temperature sensor 0 (TEMP IOM A) reports Noncritical; "
                "at 64 °C, over its 60 °C warning limit",
            ),
            (
                Severity.WARNING,
                "JBOD-C SAS expander 1 (EXPANDER B0) is not installed; "
                "1 of 2 SAS expander elements are installed",
            ),
        ],
        key=str,
    )
    assert {f.entity.name for f in faults} == {"JBOD-A", "JBOD-B", "JBOD-C"}


def test_the_failed_psu_carries_its_bits_and_a_fix(faults: list[Finding]) -> None:
    psu = one(faults, "PSU 2")
    assert facts(psu)["Fail bit"] is True
    assert facts(psu)["alarm bits set"] == "DC fail"
    assert facts(psu)["enclosure summary"] == "CRIT, NON-CRIT"
    assert "power supply" in psu.remediation and "last working one" in psu.remediation


def test_the_stopped_fan_shows_its_speed(faults: list[Finding]) -> None:
    fan = one(faults, "FAN 3")
    assert facts(fan)["fan speed"] == 0
    assert "fan module" in fan.remediation


def test_the_hot_sensor_shows_its_reading_and_own_limits(faults: list[Finding]) -> None:
    hot = one(faults, "TEMP IOM A")
    got = facts(hot)
    assert (got["temperature"], got["high warning limit"], got["high critical limit"]) == (
        64.0,
        60.0,
        70.0,
    )
    assert got["alarm bits set"] == "OT warning"
    assert "fans" in hot.remediation


def test_the_failed_io_module_names_the_paths_through_it(faults: list[Finding]) -> None:
    """JBOD-B's I/O module B carries hba2's chain B: JBOD-B's 12 disks and the 12 of JBOD-A,
    cabled behind it on that side."""
    iom = one(faults, "JBOD-B SAS expander 1")
    summary = iom.evidence[0].summary
    assert summary.endswith(
        "24 disk paths run through it: 24 from 0000:81:00.0 SAS9300-8e connector 0 "
        "(12 in JBOD-B, 12 in JBOD-A)"
    )
    port = "0000:81:00.0 SAS9300-8e connector 0"
    assert facts(iom)[f"disk paths from {port} to JBOD-B"] == "12: slots 0–11"
    assert facts(iom)[f"disk paths from {port} to JBOD-A"] == "12: slots 0–11"
    assert facts(iom)["SES element"] == "sg_ses --index=5,1"  # type header 5, its element 1
    assert "other I/O module" in iom.remediation


def test_the_missing_io_module_says_what_reaches_the_enclosure(faults: list[Finding]) -> None:
    missing = one(faults, "JBOD-C")
    assert missing.evidence[0].summary.endswith(
        "JBOD-C is reached through 1 of 2 HBA ports expected"
    )


def _areca() -> Inventory:
    """The real Areca 8028 pages folded as the collector folds them, in one enclosure."""
    pages = SesPages()
    for page in SES_PAGES:
        assert parse_page(pages, page, stored(page)) is None, page
    found = SesFacts(hctl="0:0:0:0")
    apply_pages(found, pages)
    assert found.elements is not None
    box = Enclosure(
        id=f"enclosure:{found.logical_id}",
        logical_id=found.logical_id or "",
        product=found.product,
        elements=found.elements,
        status_summary=found.status_summary,
    )
    hba = Hba(id="hba:0000:01:00.0", pci_address="0000:01:00.0", scsi_host="host0")
    return Inventory(
        host=HostInfo(hostname="areca", source=SourceKind.SNAPSHOT),
        sas=SasFabric(hbas=[hba], enclosures=[box]),
    )


def test_the_real_areca_capture_is_quiet() -> None:
    """Its summary says CRIT=1, yet every element is OK or Not installed: both PSU bays and 4 of
    5 fan headers are empty on this expander board, the fan that is there runs at 7,500 rpm, the
    sensors read 49 °C (limits 60/79) and 66 °C (limits 90/95). Nothing there is a fault to fix."""
    inventory = _areca()
    box = inventory.sas.enclosures[0]
    assert box.status_summary == ["CRIT"]
    assert box.elements is not None
    temps = [e for e in box.elements if e.temperature_c is not None]
    assert [(e.temperature_c, e.limits.high_warning if e.limits else None) for e in temps] == [
        (49.0, 60.0),
        (66.0, 90.0),
    ]
    psus = [e.status for e in box.elements if e.element_type == "Power supply"]
    assert psus == ["Not installed", "Not installed"]
    volts = [e.voltage_v for e in box.elements if e.element_type == "Voltage sensor"]
    assert volts == [0.94, 1.80]
    assert judged(inventory) == []


def test_a_real_sensor_past_its_own_limit_fires_even_when_its_status_says_ok() -> None:
    """The Areca's chip sensor (66 °C, limits 90/95) read at 92 °C: over its warning limit."""
    inventory = _areca()
    box = inventory.sas.enclosures[0]
    assert box.elements is not None
    chip = next(e for e in box.elements if e.temperature_c == 66.0)
    chip.temperature_c = 92.0
    (hot,) = judged(inventory)
    assert hot.severity is Severity.WARNING
    assert hot.title.endswith(
        "temperature sensor 1 (Chip Temp) at 92 °C, over its 90 °C warning limit"
    )
    chip.temperature_c = 95.0
    (hot,) = judged(inventory)
    assert hot.severity is Severity.CRITICAL


def test_a_psu_pulled_beside_an_installed_one_is_a_warning() -> None:
    psus = [
        EnclosureElement(element_type="Power supply", type_index=1, index=i, status=s)
        for i, s in enumerate(["OK", "Not installed"])
    ]
    sensor = EnclosureElement(
        element_type="Temperature sensor",
        type_index=2,
        index=0,
        status="OK",
        temperature_c=20.0,
        limits=ElementLimits(high_critical=None, high_warning=None, low_warning=5, low_critical=0),
    )
    box = Enclosure(id="enclosure:0x1", logical_id="0x1", nickname="J1", elements=[*psus, sensor])
    inventory = Inventory(
        host=HostInfo(hostname="h", source=SourceKind.SNAPSHOT),
        sas=SasFabric(
            hbas=[Hba(id="hba:x", pci_address="0000:01:00.0", scsi_host="host0")],
            enclosures=[box],
        ),
    )
    (pulled,) = judged(inventory)
    assert pulled.severity is Severity.WARNING
    assert pulled.title == (
        "J1 power supply 1 is not installed; 1 of 2 Power supply elements are installed"
    )


def test_a_snapshot_without_element_status_skips_the_rule() -> None:
    inventory = _areca()
    inventory.sas.enclosures[0].elements = None
    found, skipped, ran = evaluate(RuleContext(inventory=inventory), enclosure.RULES)
    assert (found, ran) == ([], 0)
    (skip,) = skipped
    assert skip.reason.startswith("no SES element status read")
