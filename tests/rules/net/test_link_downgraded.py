"""`net.link.downgraded` on real ethtool captures and simulated hosts (field case 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.findings import Severity
from pinchpoint.rules.base import RuleContext
from tests.rules.net.conftest import SNAPSHOTS, by_rule, findings, with_ethtool


def test_real_1g_nic_at_100m_is_downgraded(tmp_path: Path) -> None:
    """The issue's real case: a 1 Gb/s NIC whose partner offers only 10/100 runs at 100."""
    context = with_ethtool(
        tmp_path, "jc__ethtool_eth0_1G_nic_DOWNGRADED_100M_link_partner_only_100.txt", 100
    )
    (finding,) = by_rule(context, "net.link.downgraded").values()
    assert finding.severity is Severity.WARNING
    assert finding.title == "eth0 runs at 100 Mb/s, it supports 1 Gb/s"
    (evidence,) = finding.evidence
    assert "link partner advertises no more than 100 Mb/s" in evidence.summary
    facts = {f.name: f.value for f in evidence.facts}
    assert facts["running speed"] == 100
    assert facts["fastest supported"] == 1000
    assert facts["fastest both ends advertise"] == 100


def test_real_nic_that_supports_only_100m_is_not_downgraded(tmp_path: Path) -> None:
    context = with_ethtool(tmp_path, "insights-core_ethtool_eth0_100Mb_only_docs.txt", 100)
    nic = context.inventory.network.nics[0]
    assert (nic.speed_mbps, nic.max_supported_speed_mbps) == (100, 100)
    assert findings(context) == []


def test_real_1g_nic_at_1000_is_healthy(tmp_path: Path) -> None:
    context = with_ethtool(tmp_path, "insights-core_ethtool_eth1_1000Mb_full.txt", 1000)
    assert context.inventory.network.nics[0].max_supported_speed_mbps == 1000
    assert findings(context) == []


def test_field_case_3_with_its_traffic(hosts: dict[str, RuleContext]) -> None:
    """downgraded_nic.toml: eno1 at 100 of 1000 Mb/s carries ≈ 11.75 MB/s, 94 % of its link,
    while its three identical peers run at 1000: one finding, both pieces of evidence."""
    found = findings(hosts["downgraded_nic"])
    assert [(f.rule, f.entity.name) for f in found] == [
        ("net.link.downgraded", "eno1 on downgraded-nic-host")
    ]
    (finding,) = found
    assert [e.rule for e in finding.evidence] == ["net.link.downgraded", "net.link.peer_outlier"]
    facts = {f.name: f.value for f in finding.evidence[0].facts}
    assert facts["sent"] == pytest.approx(11.75, abs=0.1)
    assert facts["utilisation (busier direction)"] == pytest.approx(94, abs=1)
    assert "it carried 11.8 MB/s, 94 %" in finding.evidence[0].summary
    peers = finding.evidence[1]
    assert sorted(p.name.split()[0] for p in peers.peers) == ["enp2s0f0", "enp2s0f1", "enp2s0f2"]
    assert {f.name: f.value for f in peers.facts}["peers' speed"] == 1000


def test_cable_suspected_when_both_ends_advertise_more(tmp_path: Path) -> None:
    """Both ends offer 1000 yet the link runs at 100: the evidence names the cable."""
    context = with_ethtool(tmp_path, "insights-core_ethtool_eth1_1000Mb_full.txt", 100)
    nic = context.inventory.network.nics[0]
    assert nic.settings is not None
    nic.settings.partner_link_modes = list(nic.settings.advertised_link_modes)
    nic.speed_mbps = 100
    (finding,) = by_rule(context, "net.link.downgraded").values()
    assert "both ends advertise up to 1 Gb/s" in finding.evidence[0].summary
    assert "cable" in finding.evidence[0].summary


def test_forced_speed_and_restricted_advertising(hosts: dict[str, RuleContext]) -> None:
    found = by_rule(hosts["degraded_network"], "net.link.downgraded")
    assert set(found) == {"eno1", "ens4f1"}
    assert "auto-negotiation is off" in found["eno1"].evidence[0].summary
    assert "advertises no more than 1 Gb/s" in found["ens4f1"].evidence[0].summary


def test_locally_restricted_advertising_is_info(tmp_path: Path) -> None:
    """The node_exporter e1000e advertises up to 1000 of its 10000: the host chose it."""
    context = RuleContext(inventory=collect_inventory(SnapshotSource(SNAPSHOTS / "procfs-e1000e")))
    (finding,) = by_rule(context, "net.link.downgraded").values()
    assert finding.severity is Severity.INFO
    assert "this host advertises no more than 1 Gb/s" in finding.evidence[0].summary
