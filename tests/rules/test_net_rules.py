"""Network rules on real ethtool captures, simulated hosts and this machine (field cases 3, 5)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from fixture_paths import FIXTURES, ROOT, SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import LiveSource, SnapshotSource
from pinchpoint.model.findings import Finding, Severity
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.network import Duplex
from pinchpoint.model.stats import NetDevCounters, NetDevSample
from pinchpoint.rules import net
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.catalog import CATALOG
from pinchpoint.rules.config import parse_config
from pinchpoint.rules.engine import evaluate
from pinchpoint.simulator.snapshot_writer import write_snapshot
from pinchpoint.simulator.spec import load_spec
from pinchpoint.stats.gather import gather_statistics
from pinchpoint.stats.netdev import link_speeds, net_dev_series

ETHTOOL = FIXTURES / "network" / "ethtool"
SNAPSHOTS = FIXTURES / "network" / "snapshots"
DEMO = ROOT / "pinchpoint" / "simulator" / "specs" / "demo.toml"


def simulated(spec: Path, out: Path) -> RuleContext:
    """The context `check` builds for a simulated host: inventory and /proc/net/dev figures."""
    write_snapshot(load_spec(spec), out)
    source = SnapshotSource(out)
    inventory = collect_inventory(source)
    stats = gather_statistics(source, inventory, live=False, disks=False)
    return RuleContext(inventory=inventory, net_intervals=stats.net_intervals)


@pytest.fixture(scope="module")
def hosts() -> Iterator[dict[str, RuleContext]]:
    """The simulated hosts, written to tmpfs where there is one (simulating is disk-bound)."""
    shm = Path("/dev/shm")
    scratch = tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None)
    root = Path(scratch.name)
    specs = {
        "downgraded_nic": SPECS / "downgraded_nic.toml",
        "nic_peer_outlier": SPECS / "nic_peer_outlier.toml",
        "degraded_network": SPECS / "degraded_network.toml",
        "all_dual_pathed": SPECS / "all_dual_pathed.toml",
        "demo": DEMO,
    }
    with scratch:
        yield {name: simulated(spec, root / name) for name, spec in specs.items()}


def findings(context: RuleContext) -> list[Finding]:
    found, _, _ = evaluate(context, net.RULES)
    return found


def by_rule(context: RuleContext, rule: str) -> dict[str, Finding]:
    """The findings of one rule (folded ones too) by entity name's first word."""
    found, _, _ = evaluate(context, [r for r in net.RULES if r.id == rule])
    return {f.entity.name.split()[0]: f for f in found}


def with_ethtool(tmp_path: Path, sample: str, speed: int) -> RuleContext:
    """The real procfs e1000e capture with a real `ethtool` sample as its eth0's and its speed
    in sysfs (the NIC's speed file made to agree with the sample, as the kernel's would). A
    sample taken of another interface gets its "Settings for" line renamed to eth0."""
    root = tmp_path / "snapshot"
    shutil.copytree(SNAPSHOTS / "procfs-e1000e", root, symlinks=True)
    text = (ETHTOOL / sample).read_text()
    (root / "commands/ethtool/eth0.txt").write_text(
        text.replace("Settings for eth1:", "Settings for eth0:")
    )
    (root / "sys/class/net/eth0/speed").write_text(f"{speed}\n")
    return RuleContext(inventory=collect_inventory(SnapshotSource(root)))


# --- net.link.downgraded -------------------------------------------------------------------


def test_real_1g_nic_at_100m_is_downgraded(tmp_path: Path) -> None:
    """The issue's real case: a 1 Gb/s NIC whose partner offers only 10/100 runs at 100."""
    context = with_ethtool(
        tmp_path, "jc__ethtool_eth0_1G_nic_DOWNGRADED_100M_link_partner_only_100.txt", 100
    )
    (finding,) = by_rule(context, "net.link.downgraded").values()
    assert finding.severity is Severity.WARNING
    assert finding.title == "eth0 runs at 100 Mb/s, it supports 1000 Mb/s"
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
    assert "it carried 11.75 MB/s, 94 %" in finding.evidence[0].summary
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
    assert "both ends advertise up to 1000 Mb/s" in finding.evidence[0].summary
    assert "cable" in finding.evidence[0].summary


def test_forced_speed_and_restricted_advertising(hosts: dict[str, RuleContext]) -> None:
    found = by_rule(hosts["degraded_network"], "net.link.downgraded")
    assert set(found) == {"eno1", "ens4f1"}
    assert "auto-negotiation is off" in found["eno1"].evidence[0].summary
    assert "advertises no more than 1000 Mb/s" in found["ens4f1"].evidence[0].summary


def test_locally_restricted_advertising_is_info(tmp_path: Path) -> None:
    """The node_exporter e1000e advertises up to 1000 of its 10000: the host chose it."""
    context = RuleContext(inventory=collect_inventory(SnapshotSource(SNAPSHOTS / "procfs-e1000e")))
    (finding,) = by_rule(context, "net.link.downgraded").values()
    assert finding.severity is Severity.INFO
    assert "this host advertises no more than 1000 Mb/s" in finding.evidence[0].summary


# --- net.link.peer_outlier -----------------------------------------------------------------


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
    assert finding.title == "eno1 runs at 100 Mb/s, its identical peers at 1000 Mb/s"


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


# --- net.link.half_duplex ------------------------------------------------------------------


def test_half_duplex(hosts: dict[str, RuleContext]) -> None:
    found = by_rule(hosts["degraded_network"], "net.link.half_duplex")
    assert set(found) == {"eno1"}
    assert "auto-negotiation is off" in found["eno1"].evidence[0].summary


def test_full_duplex_is_not_flagged(tmp_path: Path) -> None:
    context = with_ethtool(tmp_path, "insights-core_ethtool_eth1_1000Mb_full.txt", 1000)
    assert context.inventory.network.nics[0].duplex is Duplex.FULL
    assert by_rule(context, "net.link.half_duplex") == {}


# --- net.bond.degraded ---------------------------------------------------------------------


def test_degraded_bonds(hosts: dict[str, RuleContext]) -> None:
    found = by_rule(hosts["degraded_network"], "net.bond.degraded")
    assert set(found) == {"bond0", "bond1"}
    bond0 = found["bond0"].evidence[0]
    assert "ens2 down" in bond0.summary
    assert "ens3 listed but no longer present" in bond0.summary
    assert found["bond0"].title == "bond0: 2 of 4 members working"
    assert "ens4f1 at 1000 Mb/s against 10000 Mb/s" in found["bond1"].evidence[0].summary


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


# --- net.mtu.mismatch ----------------------------------------------------------------------


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


# --- net.throughput.impossible -------------------------------------------------------------


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
    assert skipped == []
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
        )
    ]


# --- healthy hosts and bad input -----------------------------------------------------------


def test_no_network_finding_on_healthy_hosts(hosts: dict[str, RuleContext]) -> None:
    for name in ("demo", "all_dual_pathed"):
        found, _, _ = evaluate(hosts[name], CATALOG)
        assert [f.rule for f in found if f.category in ("net", "pcie")] == [], name


def test_this_machine_gives_no_network_finding() -> None:
    """The live host (a VM: virtio NICs without link modes) must not raise a network finding."""
    inventory = collect_inventory(LiveSource())
    found, skipped, _ = evaluate(RuleContext(inventory=inventory), net.RULES)
    assert found == []
    assert all(s.rule == "net.throughput.impossible" or "network" in s.reason for s in skipped)


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
