"""`pcie.link.downgraded` on the real node_exporter capture and a simulated NVMe drive trained
narrow."""

from __future__ import annotations

import pytest
from fixture_paths import FIXTURES

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.findings import Severity
from pinchpoint.rules.base import RuleContext
from tests.rules.pcie.conftest import findings

NODE_EXPORTER = FIXTURES / "pcie" / "node_exporter"


def test_real_gen4_drive_in_gen3_slot_is_not_downgraded() -> None:
    """node_exporter: an NVMe drive at 8 of its 16 GT/s below a root port whose maximum is
    8 GT/s, and an I350 at its full 5 GT/s x4: nothing trained below what both ends do."""
    inventory = collect_inventory(SnapshotSource(NODE_EXPORTER))
    drive = inventory.pcie.by_address("0000:01:00.0")
    assert drive is not None and drive.upstream_link is not None
    assert (drive.link.current_speed_gts, drive.link.max_speed_gts) == (8.0, 16.0)
    assert drive.upstream_link.max_speed_gts == 8.0
    assert findings(RuleContext(inventory=inventory)) == []


def test_real_drive_is_downgraded_when_its_slot_could_do_more() -> None:
    """The same capture with the slot's capability raised to 16 GT/s (a hand change of the
    model, not the file): the drive then runs below what both ends support — speed only, so
    `info` (it may be idle power saving)."""
    inventory = collect_inventory(SnapshotSource(NODE_EXPORTER))
    drive = inventory.pcie.by_address("0000:01:00.0")
    assert drive is not None and drive.upstream_link is not None
    drive.upstream_link.max_speed_gts = 16.0
    (finding,) = findings(RuleContext(inventory=inventory))
    assert finding.rule == "pcie.link.downgraded"
    assert finding.severity is Severity.INFO
    assert finding.entity.name == "0000:01:00.0 NVMe drive"
    assert "check again under load" in finding.evidence[0].summary


def test_nvme_trained_at_x2_of_x4(hosts: dict[str, RuleContext]) -> None:
    (finding,) = findings(hosts["nvme_ssds"])
    assert finding.rule == "pcie.link.downgraded"
    assert finding.severity is Severity.WARNING
    assert finding.title == "0000:62:00.0 NVMe drive runs at 8 GT/s x2 of 8 GT/s x4"
    facts = {f.name: f.value for f in finding.evidence[0].facts}
    assert (facts["current width"], facts["slot's maximum width"]) == (2, 4)
    assert facts["data rate now"] == pytest.approx(15.8, abs=0.1)
