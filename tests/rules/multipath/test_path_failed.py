"""`multipath.path.failed` on real `multipath -ll` captures (insights-core's fixtures) and on
simulated SAN hosts (field case 2, with and without a path down)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_paths import SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.findings import Severity
from pinchpoint.model.inventory import Inventory
from pinchpoint.simulator import load_spec, write_snapshot
from pinchpoint.simulator.spec import spec_from_data
from tests.rules.multipath.conftest import (
    CLARIION,
    FAULTY,
    MD36XXI,
    TRIDENT_998,
    captured,
    multipath_findings,
)


def test_a_map_whose_eight_paths_are_all_faulty_is_critical() -> None:
    """mpathe on a Dell MD36xxi: device-mapper still calls its 8 paths active, the rdac
    checker says faulty on every one — nothing carries its I/O."""
    found = multipath_findings(captured(FAULTY))
    (finding,) = [f for f in found if f.entity.name.startswith("mpathe")]
    assert finding.severity is Severity.CRITICAL
    assert finding.title == "8 of 8 paths of mpathe (36f01faf000da3761000004323aa6fbce) down"
    facts = {f.name: f.value for f in finding.evidence[0].facts}
    assert (facts["paths"], facts["paths working"]) == (8, 0)
    assert "sdg (13:0:0:2 via host13): active faulty running" in finding.evidence[0].summary
    assert not [f for f in found if f.entity.name.startswith("mpathg")]  # its 8 are ready


def test_a_map_with_no_path_at_all_is_critical() -> None:
    """mpathc (`test_with_no_devs`) of the RHEL 6 capture: a map without a device."""
    found = multipath_findings(captured(MD36XXI))
    assert [f.title for f in found] == ["mpathc (test_with_no_devs) has no path at all"]
    assert found[0].severity is Severity.CRITICAL


def test_healthy_maps_give_nothing() -> None:
    assert multipath_findings(captured(CLARIION)) == []


def test_an_alua_map_with_its_one_path_non_optimized_trident_998() -> None:
    """NetApp trident#998 "Multipath Device Recognizes Only One Path": the ONTAP LUN's one
    path sits in a group of priority 10 (ALUA non-optimized) though the host has sessions to
    both nodes — no route reaches the node that owns the LUN."""
    inventory = captured(TRIDENT_998)
    (lun,) = inventory.multipath.maps
    assert (lun.vendor, lun.product, lun.hardware_handler) == ("NETAPP", "LUN C-Mode", "alua")
    assert [(g.priority, g.status, len(g.paths)) for g in lun.path_groups] == [(10, "active", 1)]
    (finding,) = multipath_findings(inventory)
    assert finding.title == "LUN 3600a0980383138452d2b55794670776d has 1 path, none optimized"
    assert finding.severity is Severity.CRITICAL  # one path working
    facts = {f.name: f.value for f in finding.evidence[0].facts}
    assert (facts["paths"], facts["paths working"]) == (1, 1)
    assert facts["best working path group's priority"] == 10
    assert "non-optimized (ALUA priority 10; optimized is 50)" in finding.evidence[0].summary
    assert "owns the LUN" in finding.remediation


def test_an_alua_map_with_an_optimized_group_is_fine() -> None:
    """The same map with a second path at priority 50 (the owner's): nothing; with the
    optimized path failed, its map is found for the path down and for no optimized path."""
    inventory = captured(TRIDENT_998)
    (lun,) = inventory.multipath.maps
    (group,) = lun.path_groups
    owner = group.model_copy(deep=True)
    owner.index, owner.priority = 1, 50
    owner.paths[0].hctl, owner.paths[0].device = "3:0:0:0", "sdb"
    group.index, group.status = 2, "enabled"
    lun.path_groups = [owner, group]
    assert multipath_findings(inventory) == []
    owner.paths[0].checker_state, owner.paths[0].dm_state = "faulty", "failed"
    (finding,) = multipath_findings(inventory)
    assert finding.title.startswith("1 of 2 paths of ")
    assert "non-optimized (ALUA priority 10" in finding.evidence[0].summary


def test_a_map_with_fewer_paths_than_its_arrays_other_maps() -> None:
    """Three MD36xxi maps, two with 8 paths: the third, with 6, lost two routes."""
    inventory = captured(MD36XXI)
    inventory.multipath.maps = [m for m in inventory.multipath.maps if m.vendor == "DELL"]
    third = inventory.multipath.maps[1].model_copy(deep=True)
    third.id, third.name = "mpath:third", "mpathz"
    third.path_groups[0].paths = third.path_groups[0].paths[:2]  # 4 of the group's 4 → 2
    inventory.multipath.maps.append(third)
    found = multipath_findings(inventory)
    assert [f.title for f in found] == [f"{found[0].entity.name} has 6 of 8 paths"]
    assert found[0].severity is Severity.WARNING


def test_one_path_down_of_two_leaves_one_working_critical() -> None:
    inventory = captured(CLARIION)
    (l004,) = inventory.multipath.maps
    kept = [p for g in l004.path_groups for p in g.paths][:2]
    for group in l004.path_groups:
        group.paths = [p for p in group.paths if p in kept]
    kept[0].checker_state = "faulty"
    (finding,) = multipath_findings(inventory)
    assert finding.severity is Severity.CRITICAL  # one path left working
    kept[0].checker_state = "ready"
    assert multipath_findings(inventory) == []


def test_the_simulated_failed_path_is_found_on_its_map(san_failed_path: Inventory) -> None:
    """mpathb's path through fc1 (host1, sde) is `failed faulty offline`: one path is left."""
    (finding,) = multipath_findings(san_failed_path)
    assert finding.rule == "multipath.path.failed"
    assert finding.severity is Severity.CRITICAL
    (mpathb,) = [m for m in san_failed_path.multipath.maps if m.name == "mpathb"]
    assert finding.entity.id == mpathb.id
    assert finding.title == f"1 of 2 paths of mpathb ({mpathb.wwid}) down"
    facts = {f.name: f.value for f in finding.evidence[0].facts}
    assert (facts["paths"], facts["paths working"]) == (2, 1)
    assert facts["paths of the array's other maps"] == 2
    assert facts["path down"] == "sde (1:0:0:2 via host1): failed faulty offline"
    assert finding.evidence[0].summary.endswith("; 1 path left working")
    # sysfs agrees with multipath -ll: the failed path's SCSI device is offline
    (down,) = [p for p in mpathb.paths if p.failed]
    assert (down.device, down.dm_state, down.checker_state, down.online_state) == (
        "sde",
        "failed",
        "faulty",
        "offline",
    )


def _with_path(tmp_path: Path, state: str, grouping: str = "multibus") -> tuple[Inventory, str]:
    """san_failed_path with mpathb's path through fc1 in `state`, its `multipath -ll`."""
    spec = load_spec(SPECS / "san_failed_path.toml")
    (failed,) = spec.multipath.failed_path
    changed = spec.multipath.model_copy(
        update={
            "path_grouping_policy": grouping,
            "failed_path": [failed.model_copy(update={"state": state})],
        }
    )
    out = tmp_path / "snapshot"
    write_snapshot(spec.model_copy(update={"multipath": changed}), out)
    listing = (out / "commands" / "multipath" / "ll.txt").read_text()
    return collect_inventory(SnapshotSource(out)), listing


def test_a_map_named_by_its_wwid_names_it_once(tmp_path: Path) -> None:
    """With `user_friendly_names no` the map's name is its WWID: the finding says the WWID
    once (`LUN 3624a…`), not `3624a… (3624a…)`."""
    spec = load_spec(SPECS / "san_failed_path.toml")
    changed = spec.multipath.model_copy(update={"user_friendly_names": False})
    out = tmp_path / "snapshot"
    write_snapshot(spec.model_copy(update={"multipath": changed}), out)
    inventory = collect_inventory(SnapshotSource(out))
    (finding,) = multipath_findings(inventory)
    (lun,) = [m for m in inventory.multipath.maps if m.id == finding.entity.id]
    assert lun.name == lun.wwid
    assert finding.entity.name == f"LUN {lun.wwid}"
    assert finding.title == f"1 of 2 paths of LUN {lun.wwid} down"
    assert finding.title.count(lun.wwid) == 1
    assert finding.evidence[0].summary.count(lun.wwid) == 1


@pytest.mark.parametrize(
    ("state", "checker"),
    [("failed shaky running", "shaky"), ("active ghost running", "ghost")],
)
def test_a_shaky_or_ghost_path_beside_a_ready_one_is_down(
    tmp_path: Path, state: str, checker: str
) -> None:
    """A flapping path multipathd keeps failed (`failed shaky running`), and a standby path
    in the group that carries the I/O beside a ready one (`active ghost running`, multibus):
    one path of mpathb works."""
    inventory, listing = _with_path(tmp_path, state)
    assert f"`- 1:0:0:2 sde 8:64 {state}\n" in listing
    (finding,) = multipath_findings(inventory)
    assert finding.severity is Severity.CRITICAL
    assert finding.title.startswith("1 of 2 paths of mpathb ")
    facts = {f.name: f.value for f in finding.evidence[0].facts}
    assert facts["path down"] == f"sde (1:0:0:2 via host1): {state}"
    (mpathb,) = [m for m in inventory.multipath.maps if m.name == "mpathb"]
    (down,) = [p for p in mpathb.paths if p.device == "sde"]
    assert (down.checker_state, down.online_state) == (checker, "running")


def test_a_ghost_path_in_a_standby_group_of_its_own_is_by_design(tmp_path: Path) -> None:
    """group_by_prio puts the standby path in a path group of its own (prio 1, enabled), as
    real `multipath -ll` outputs of ALUA and RDAC arrays show: not a path down."""
    inventory, listing = _with_path(tmp_path, "active ghost running", "group_by_prio")
    assert (
        "|-+- policy='service-time 0' prio=50 status=active\n"
        "| `- 0:0:0:2 sdb 8:16 active ready running\n"
        "`-+- policy='service-time 0' prio=1 status=enabled\n"
        "  `- 1:0:0:2 sde 8:64 active ghost running\n"
    ) in listing
    (mpathb,) = [m for m in inventory.multipath.maps if m.name == "mpathb"]
    assert [len(g.paths) for g in mpathb.path_groups] == [1, 1]
    assert multipath_findings(inventory) == []


def test_the_balanced_simulated_san_host_gives_nothing(san_balanced: Inventory) -> None:
    maps = san_balanced.multipath.maps
    assert [m.name for m in maps] == ["mpatha", "mpathb", "mpathc"]
    assert all(p.checker_state == "ready" and not p.failed for m in maps for p in m.paths)
    assert multipath_findings(san_balanced) == []


@pytest.mark.parametrize(
    ("failed_path", "error"),
    [
        ({"port": "fc9", "lun": 1}, "no fc_port 'fc9'"),
        ({"port": "fc0", "lun": 4}, "sees 3 LUNs"),
        ({"port": "fc0", "lun": 1, "remote_port": 1}, "has 1 remote ports"),
    ],
)
def test_a_failed_path_must_be_a_path_of_a_map(failed_path: dict[str, object], error: str) -> None:
    port = {"array": "a", "luns": 3}
    data = {
        "fc_port": [{"name": "fc0", **port}, {"name": "fc1", **port}],
        "multipath": {"enabled": True, "failed_path": [failed_path]},
    }
    with pytest.raises(ValueError, match=error):
        spec_from_data(data)


def test_a_failed_path_needs_a_second_path() -> None:
    data = {
        "fc_port": [{"name": "fc0", "array": "a"}, {"name": "fc1", "array": "b"}],
        "multipath": {"enabled": True, "failed_path": [{"port": "fc0", "lun": 1}]},
    }
    with pytest.raises(ValueError, match="LUN 1 has one path"):
        spec_from_data(data)
