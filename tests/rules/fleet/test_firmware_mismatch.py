"""`fleet.firmware.mismatch` through the engine on a fleet of four simulated storage hosts
(a small spec written per host): store-03's disks all run an older level
(uniform on the host, so `firmware.mismatch` is quiet there) and store-04's HBA another
firmware than the other three; on one host the rule is skipped with the reason."""

from __future__ import annotations

import pytest

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.findings import Severity
from pinchpoint.model.inventory import Inventory
from pinchpoint.rules import firmware
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.derived.fleet_facts import fleet_facts
from pinchpoint.rules.engine import evaluate, fleet_context
from pinchpoint.rules.fleet import firmware_mismatch
from pinchpoint.simulator import load_spec, write_snapshot

RULE = "fleet.firmware.mismatch"
RULES = [firmware_mismatch.RULE]
BASE = """
[host]
hostname = "{name}"

[[hba]]
name = "hba1"
firmware = "{hba_firmware}"

[[enclosure]]
name = "JBOD-A"
bays = 6

[enclosure.disk]
revision = "{disk_firmware}"

[[chain]]
hba = "hba1"
enclosures = ["JBOD-A"]
"""


def _host(tmp: pytest.TempPathFactory, name: str, hba: str, disk: str) -> Inventory:
    spec = tmp.mktemp(name) / "spec.toml"
    text = BASE.format(name=name, hba_firmware=hba, disk_firmware=disk)
    spec.write_text(text, encoding="utf-8")
    write_snapshot(load_spec(spec), spec.parent / "snapshot")
    return collect_inventory(SnapshotSource(spec.parent / "snapshot"))


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Inventory]:
    levels = {
        "store-01": ("16.00.12.00", "A3D0"),
        "store-02": ("16.00.12.00", "A3D0"),
        "store-03": ("16.00.12.00", "A1G0"),
        "store-04": ("16.00.10.00", "A3D0"),
    }
    return {n: _host(tmp_path_factory, n, h, d) for n, (h, d) in levels.items()}


def test_a_host_uniform_on_its_own_is_behind_the_fleet(fleet: dict[str, Inventory]) -> None:
    found, _, _ = evaluate(RuleContext(inventory=fleet["store-03"]), firmware.RULES)
    assert found == []  # on its own, store-03's six disks agree with each other
    findings, skipped, ran = evaluate(fleet_context(fleet_facts(fleet)), RULES)
    assert (skipped, ran) == ([], 1)
    (disks,) = [f for f in findings if "disks" in f.title]
    assert disks.id == f"{RULE}@store-03/disk/HGST HUH721212AL5200/12000138625024"
    assert disks.entity.name == "store-03" and disks.severity is Severity.INFO
    assert disks.title == (
        "6 of 6 disks HGST HUH721212AL5200 10.9 TiB on store-03 are not at A3D0, "
        "the level most of the fleet's hosts holding the model run"
    )
    (evidence,) = disks.evidence
    assert evidence.rule == RULE
    facts = {f.name: f.value for f in evidence.facts}
    assert facts["firmware levels on this host"] == "A1G0 on 6"
    assert facts["the fleet's usual level"] == "A3D0"
    behind = [f for f in evidence.facts if f.entity is not None]
    assert len(behind) == 6 and all(f.value == "A1G0" for f in behind)
    assert all(f.entity is not None and f.entity.name.startswith("JBOD-A slot ") for f in behind)


def test_an_hba_behind_the_fleet_is_a_warning(fleet: dict[str, Inventory]) -> None:
    findings, _, _ = evaluate(fleet_context(fleet_facts(fleet)), RULES)
    (hba,) = [f for f in findings if "HBAs" in f.title]
    assert hba.entity.name == "store-04" and hba.severity is Severity.WARNING
    assert "16.00.10.00 on 1" in hba.evidence[0].summary
    assert "16.00.12.00 on most other hosts that hold it (among them store-01, store-02, " in (
        hba.evidence[0].summary
    )


def test_three_hosts_are_enough_two_are_not(fleet: dict[str, Inventory]) -> None:
    three = {n: fleet[n] for n in ("store-01", "store-03", "store-04")}
    # disks: A3D0 on 01 and 04 names 03; HBAs: 16.00.12.00 on 01 and 03 names 04
    found = {f.entity.name for f in evaluate(fleet_context(fleet_facts(three)), RULES)[0]}
    assert found == {"store-03", "store-04"}
    two = {n: fleet[n] for n in ("store-01", "store-03")}
    assert (
        evaluate(fleet_context(fleet_facts(two)), RULES)[0] == []
    )  # fewer than 3 hosts hold the model


def test_as_many_hosts_at_each_level_name_no_usual_level(fleet: dict[str, Inventory]) -> None:
    tied = {n: fleet[n] for n in ("store-01", "store-02", "store-03")}
    tied["store-06"] = fleet["store-03"]  # disks: A3D0 on two hosts, A1G0 on two
    assert [
        f for f in evaluate(fleet_context(fleet_facts(tied)), RULES)[0] if "disks" in f.title
    ] == []


def test_a_fleet_at_one_level_is_quiet(fleet: dict[str, Inventory]) -> None:
    same = {n: fleet[n] for n in ("store-01", "store-02")}
    same["store-05"] = fleet["store-01"]
    assert evaluate(fleet_context(fleet_facts(same)), RULES)[0] == []


def test_on_one_host_the_rule_is_skipped_with_the_reason(fleet: dict[str, Inventory]) -> None:
    findings, skipped, _ = evaluate(RuleContext(inventory=fleet["store-01"]), RULES)
    assert findings == []
    (skip,) = skipped
    assert skip.rule == RULE and "runs on a central service across hosts" in skip.reason
