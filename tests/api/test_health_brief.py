"""The bay view's SMART brief (`api/views/topology.health_brief`) carries issue 15's facts —
the drive's temperature limit, endurance used and last self-test — read from real captures,
and the bays of the simulated smart_faults.toml host show them."""

from __future__ import annotations

from pathlib import Path

from fixture_paths import FIXTURES, SPECS

from pinchpoint.api.views.topology import health_brief
from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.parse.smart_json import parse_smartctl_json
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.health import DiskHealth
from pinchpoint.simulator import load_spec, write_snapshot

SMARTCTL = FIXTURES / "smartctl"


def parsed(name: str) -> DiskHealth:
    return parse_smartctl_json((SMARTCTL / name).read_text(), "sda")


def test_a_failed_self_test_and_no_wear_on_a_hard_disk() -> None:
    brief = health_brief(
        parsed("smart-prom-next__sata_wd3200bevt_usbjmicron_-a_when_failed_now_exit216.json")
    )
    assert brief is not None
    assert brief.last_self_test == "Short offline: Completed: read failure"
    assert brief.last_self_test_passed is False
    assert brief.endurance_used_pct is None


def test_an_ssd_with_its_limit_wear_and_passed_tests() -> None:
    brief = health_brief(parsed("scrutiny__sata_ssd_Samsung860EVO_-x-j_full.json"))
    assert brief is not None
    assert (brief.temperature_c, brief.temperature_limit_c) == (36, 70)
    assert brief.endurance_used_pct == 19
    assert brief.last_self_test == "Short offline: Completed without error"
    assert brief.last_self_test_passed is True


def test_the_simulated_bays_show_heat_wear_and_self_tests(tmp_path: Path) -> None:
    write_snapshot(load_spec(SPECS / "smart_faults.toml"), tmp_path / "host")
    inventory = collect_inventory(SnapshotSource(tmp_path / "host"))
    names = {e.id: e.name for e in inventory.sas.enclosures}
    reports = {h.id: h for h in inventory.health.disks}
    bays = {
        (names[d.enclosure_id or ""], d.slot): health_brief(reports.get(d.id))
        for d in inventory.sas.disks
    }
    hot = bays["JBOD-H", 7]
    assert hot is not None and (hot.temperature_c, hot.temperature_limit_c) == (88, 85)
    failed = bays["JBOD-H", 9]
    assert failed is not None and failed.last_self_test == "Background long: Failed in segment -->"
    worn = bays["JBOD-S", 2]
    assert worn is not None and worn.endurance_used_pct == 97
    healthy = bays["JBOD-S", 0]
    assert healthy is not None and healthy.last_self_test_passed is True
    assert healthy.endurance_used_pct is not None and healthy.endurance_used_pct < 5
