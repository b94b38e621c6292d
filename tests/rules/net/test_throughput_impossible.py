"""`net.throughput.impossible` on made-up /proc/net/dev samples (field case 5)."""

from __future__ import annotations

import pytest

from pinchpoint.model.stats import NetDevCounters, NetDevSample
from pinchpoint.rules import net
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.config import parse_config
from pinchpoint.rules.engine import evaluate
from pinchpoint.stats.netdev import link_speeds, net_dev_series
from tests.rules.net.conftest import by_rule


def _sample(uptime: float, traffic: dict[str, int]) -> NetDevSample:
    """Received bytes per interface (8 KB per packet); every other counter zero."""
    others = NetDevCounters.model_fields.keys() - {"interface", "rx_bytes", "rx_packets"}
    zeros = dict.fromkeys(others, 0)
    return NetDevSample(
        uptime_s=uptime,
        interfaces=[
            NetDevCounters(interface=name, rx_bytes=count, rx_packets=count // 8192, **zeros)
            for name, count in traffic.items()
        ],
    )


def test_field_case_5_impossible_throughput(hosts: dict[str, RuleContext]) -> None:
    """20,000 × 8 KB reads/s (≈ 164 MB/s) counted on a 1 GbE port: a measuring error. The
    series also holds a zero-length interval and counters going back; neither hides it."""
    inventory = hosts["nic_peer_outlier"].inventory
    samples = [
        _sample(100.0, {"enp2s0f0": 0, "enp2s0f1": 5_000_000}),
        _sample(110.0, {"enp2s0f0": 1_638_400_000, "enp2s0f1": 6_000_000}),
        _sample(110.0, {"enp2s0f0": 1_638_400_000, "enp2s0f1": 6_000_000}),
        _sample(120.0, {"enp2s0f0": 1_738_400_000, "enp2s0f1": 1_000}),
    ]
    intervals = net_dev_series(samples, link_speeds(inventory.network))
    assert any("not later" in p for i in intervals for p in i.problems)
    assert any("went backwards" in p for i in intervals for p in i.problems)
    context = RuleContext(inventory=inventory, net_intervals=intervals)
    found, skipped, _ = evaluate(context, net.RULES)
    assert [s.rule for s in skipped] == ["net.link.errors"]  # one sweep, nothing to compare
    impossible = [f for f in found if f.rule == "net.throughput.impossible"]
    (finding,) = impossible
    assert finding.entity.name == "enp2s0f0 on nic-peers-host"
    facts = {f.name: f.value for f in finding.evidence[0].facts}
    assert facts["peak utilisation"] == pytest.approx(131.1, abs=0.1)
    assert facts["most the link carries"] == 125
    assert "measuring error" in finding.evidence[0].summary


def test_throughput_within_the_link_is_fine(hosts: dict[str, RuleContext]) -> None:
    """Field case 3's traffic: the slow port is full (94 %) but never above its link."""
    found = by_rule(hosts["nic_peer_outlier"], "net.throughput.impossible")
    assert found == {}


def test_impossible_throughput_limit_is_configurable(hosts: dict[str, RuleContext]) -> None:
    inventory = hosts["nic_peer_outlier"].inventory
    samples = [_sample(0.0, {"enp2s0f0": 0}), _sample(10.0, {"enp2s0f0": 1_300_000_000})]
    context = RuleContext(
        inventory=inventory,
        net_intervals=net_dev_series(samples, link_speeds(inventory.network)),
    )
    rule = [r for r in net.RULES if r.id == "net.throughput.impossible"]
    assert len(evaluate(context, rule)[0]) == 0  # 104 % is under the default 110 %
    table = {"above_capacity_pct": 100}
    config = parse_config({"rules": {"net.throughput.impossible": table}}, net.RULES, "test")
    assert len(evaluate(context, rule, config)[0]) == 1


def test_throughput_rule_skipped_without_samples(hosts: dict[str, RuleContext]) -> None:
    _, skipped, _ = evaluate(RuleContext(inventory=hosts["demo"].inventory), net.RULES)
    assert [(s.rule, s.reason) for s in skipped] == [
        (
            "net.throughput.impossible",
            "no /proc/net/dev samples (capture --samples N, or a live check)",
        ),
        ("net.link.errors", "no earlier sweep of this host to compare with"),
    ]
