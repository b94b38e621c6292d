"""`net.link.peer_outlier`: a NIC slower than its identical peers on the host (field case 3)."""

from __future__ import annotations

import pytest

from pinchpoint.rules import net
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.engine import evaluate
from tests.rules.net.conftest import by_rule, findings


def test_peer_outlier_joins_the_downgrade(hosts: dict[str, RuleContext]) -> None:
    """Four identical igb ports: the slow one is one finding with both pieces of evidence."""
    found = findings(hosts["nic_peer_outlier"])
    (finding,) = found
    assert finding.rule == "net.link.downgraded"
    assert finding.entity.name == "enp2s0f3 on nic-peers-host"
    assert [e.rule for e in finding.evidence] == ["net.link.downgraded", "net.link.peer_outlier"]
    peer_evidence = finding.evidence[1]
    assert sorted(p.name.split()[0] for p in peer_evidence.peers) == [
        "enp2s0f0",
        "enp2s0f1",
        "enp2s0f2",
    ]
    facts = {f.name: f.value for f in peer_evidence.facts}
    assert facts["peers' speed"] == 1000
    assert facts["peers' median traffic (busier direction)"] == pytest.approx(40.0, abs=0.5)
    assert finding.related == [f"net.link.peer_outlier@{finding.entity.id}"]


def test_peer_outlier_alone_without_link_modes(hosts: dict[str, RuleContext]) -> None:
    """A driver that reports no link modes: only the comparison with peers can tell."""
    inventory = hosts["nic_peer_outlier"].inventory.model_copy(deep=True)
    for nic in inventory.network.nics:
        nic.settings = None
    found, _, _ = evaluate(RuleContext(inventory=inventory), net.RULES)
    assert [(f.rule, f.entity.name.split()[0]) for f in found] == [
        ("net.link.peer_outlier", "enp2s0f3")
    ]


def test_field_case_3_peers_are_identical_nics(hosts: dict[str, RuleContext]) -> None:
    """downgraded_nic.toml: eno1 (igb, I350) is compared with the three I350 ports."""
    (finding,) = by_rule(hosts["downgraded_nic"], "net.link.peer_outlier").values()
    assert finding.entity.name == "eno1 on downgraded-nic-host"
    assert finding.title == "eno1 runs at 100 Mb/s, its identical peers at 1 Gb/s"


@pytest.mark.parametrize(
    ("field", "value"),
    [("device_id", "0x1533"), ("driver", "e1000e")],
    ids=["same driver, another model (I210)", "another driver"],
)
def test_nics_of_different_models_are_not_peers(
    hosts: dict[str, RuleContext], field: str, value: str
) -> None:
    """The same host with eno1 made another model (its PCI device id, or its driver and the
    driver ethtool reports): nothing to compare it with, so no peer finding; its own link
    modes still say it is downgraded."""
    inventory = hosts["downgraded_nic"].inventory.model_copy(deep=True)
    eno1 = inventory.network.nic("eno1")
    assert eno1 is not None and eno1.pci_address is not None and eno1.driver is not None
    function = inventory.pcie.by_address(eno1.pci_address)
    assert function is not None
    setattr(function, field, value)
    if field == "driver":
        eno1.driver.driver = value
    context = RuleContext(inventory=inventory)
    assert by_rule(context, "net.link.peer_outlier") == {}
    assert list(by_rule(context, "net.link.downgraded")) == ["eno1"]
