"""The network rules together (`pinchpoint.rules.net.RULES`): no finding on healthy hosts or this
machine, no failure on NICs whose facts are unknown."""

from __future__ import annotations

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import LiveSource
from pinchpoint.model.inventory import Inventory
from pinchpoint.rules import net
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.catalog import CATALOG
from pinchpoint.rules.engine import evaluate


def test_no_network_finding_on_healthy_hosts(hosts: dict[str, RuleContext]) -> None:
    for name in ("demo", "all_dual_pathed"):
        found, _, _ = evaluate(hosts[name], CATALOG)
        assert [f.rule for f in found if f.category in ("net", "pcie")] == [], name


def test_this_machine_gives_no_network_finding() -> None:
    """The live host (a VM: virtio NICs without link modes) must not raise a network finding."""
    inventory = collect_inventory(LiveSource())
    found, skipped, _ = evaluate(RuleContext(inventory=inventory), net.RULES)
    assert found == []
    assert all(
        s.rule in ("net.throughput.impossible", "net.link.errors") or "network" in s.reason
        for s in skipped
    )
    # A second sweep moments later: its counters compared with the first's say nothing.
    later = collect_inventory(LiveSource())
    found, skipped, _ = evaluate(RuleContext(inventory=later, previous=inventory), net.RULES)
    assert found == []
    assert "net.link.errors" not in {s.rule for s in skipped}


def test_nics_with_unknown_facts_do_not_crash(hosts: dict[str, RuleContext]) -> None:
    """Speeds, duplex, MTU, driver and settings all unknown: no finding, no failure."""
    inventory: Inventory = hosts["degraded_network"].inventory.model_copy(deep=True)
    for nic in inventory.network.nics:
        nic.speed_mbps = None
        nic.duplex = None
        nic.mtu = None
        nic.driver = None
        nic.settings = None
        nic.carrier = None
        nic.operstate = None
    for bond in inventory.network.bonds:
        bond.mtu = None
        for member in bond.members:
            member.mii_status = None
            member.speed_mbps = None
    found, skipped, _ = evaluate(RuleContext(inventory=inventory), net.RULES)
    assert [f.rule for f in found] == ["net.bond.degraded"]  # ens3 still vanished
    assert all("failed" not in s.reason for s in skipped)
