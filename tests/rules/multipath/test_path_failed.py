"""`multipath.path.failed` on real `multipath -ll` captures (insights-core's fixtures)."""

from __future__ import annotations

from pinchpoint.model.findings import Severity
from tests.rules.multipath.conftest import (
    CLARIION,
    FAULTY,
    MD36XXI,
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
