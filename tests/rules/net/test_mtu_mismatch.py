"""`net.mtu.mismatch`: bond members and identical ports on different MTUs."""

from __future__ import annotations

from pinchpoint.model.findings import Severity
from pinchpoint.rules import net
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.engine import evaluate
from tests.rules.net.conftest import by_rule


def test_mtu_mismatches(hosts: dict[str, RuleContext]) -> None:
    found = by_rule(hosts["degraded_network"], "net.mtu.mismatch")
    assert set(found) == {"bond1", "ens6f2"}
    assert found["bond1"].severity is Severity.WARNING
    assert "ens4f0 9000" in found["bond1"].evidence[0].summary
    assert found["ens6f2"].severity is Severity.INFO
    assert len(found["ens6f2"].evidence[0].peers) == 2


def test_two_identical_ports_on_different_mtus_are_not_flagged(
    hosts: dict[str, RuleContext],
) -> None:
    """Without a clear majority the ports may serve two networks on purpose."""
    inventory = hosts["degraded_network"].inventory.model_copy(deep=True)
    inventory.network.nics = [n for n in inventory.network.nics if n.name != "ens6f1"]
    found, _, _ = evaluate(
        RuleContext(inventory=inventory), [r for r in net.RULES if r.id == "net.mtu.mismatch"]
    )
    assert [f.entity.name.split()[0] for f in found] == ["bond1"]
