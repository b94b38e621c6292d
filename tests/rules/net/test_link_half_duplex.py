"""`net.link.half_duplex` on a simulated host and a real full-duplex ethtool capture."""

from __future__ import annotations

from pathlib import Path

from pinchpoint.model.network import Duplex
from pinchpoint.rules.base import RuleContext
from tests.rules.net.conftest import by_rule, with_ethtool


def test_half_duplex(hosts: dict[str, RuleContext]) -> None:
    found = by_rule(hosts["degraded_network"], "net.link.half_duplex")
    assert set(found) == {"eno1"}
    assert "auto-negotiation is off" in found["eno1"].evidence[0].summary


def test_full_duplex_is_not_flagged(tmp_path: Path) -> None:
    context = with_ethtool(tmp_path, "insights-core_ethtool_eth1_1000Mb_full.txt", 1000)
    assert context.inventory.network.nics[0].duplex is Duplex.FULL
    assert by_rule(context, "net.link.half_duplex") == {}
