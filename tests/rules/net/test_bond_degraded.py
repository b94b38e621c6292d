"""`net.bond.degraded` on a simulated host, a real bonding file and the demo's healthy bond."""

from __future__ import annotations

import shutil
from pathlib import Path

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.findings import Severity
from pinchpoint.rules.base import RuleContext
from tests.rules.net.conftest import SNAPSHOTS, by_rule, findings


def test_degraded_bonds(hosts: dict[str, RuleContext]) -> None:
    found = by_rule(hosts["degraded_network"], "net.bond.degraded")
    assert set(found) == {"bond0", "bond1"}
    bond0 = found["bond0"].evidence[0]
    assert "ens2 down" in bond0.summary
    assert "ens3 listed but no longer present" in bond0.summary
    assert found["bond0"].title == "bond0: 2 of 4 members working"
    assert "ens4f1 at 1 Gb/s against 10 Gb/s" in found["bond1"].evidence[0].summary


def test_real_bonding_file_with_a_member_down(tmp_path: Path) -> None:
    """insights-core's /proc/net/bonding (802.3ad, enp0s8 MII down) on the veth capture."""
    root = tmp_path / "snapshot"
    shutil.copytree(SNAPSHOTS / "node-exporter-bonds", root, symlinks=True)
    context = RuleContext(inventory=collect_inventory(SnapshotSource(root)))
    found = by_rule(context, "net.bond.degraded")
    # dmz lists eth0 and eth4, int eth5 and eth1: only eth0 exists; bond0 has no member.
    assert set(found) == {"dmz", "int"}
    assert found["int"].severity is Severity.CRITICAL
    assert "eth4 listed but no longer present" in found["dmz"].evidence[0].summary


def test_healthy_bond_of_the_demo(hosts: dict[str, RuleContext]) -> None:
    assert findings(hosts["demo"]) == []
