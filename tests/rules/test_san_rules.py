"""SAN and FC rules on simulated SAN hosts (field case 2) and the real FC captures."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_paths import FIXTURES, SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.fc import FcLun
from pinchpoint.model.findings import Finding
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.config import Config, parse_config
from pinchpoint.rules.engine import evaluate
from pinchpoint.rules.san import RULES
from pinchpoint.simulator import load_spec, write_snapshot
from pinchpoint.stats.gather import gather_statistics


def host_context(snapshot: Path, statistics: bool = True) -> RuleContext:
    """The inventory of a snapshot and, when asked, its statistics: what `check` evaluates."""
    source = SnapshotSource(snapshot)
    inventory = collect_inventory(source)
    if not statistics:
        return RuleContext(inventory=inventory)
    gathered = gather_statistics(source, inventory, live=False, network=False)
    return RuleContext(
        inventory=inventory, intervals=gathered.intervals, imported=gathered.imported
    )


def findings(context: RuleContext, rule: str, config: Config | None = None) -> list[Finding]:
    found, skipped, _ = evaluate(context, RULES, config)
    assert not [s for s in skipped if s.reason.startswith("rule failed")], skipped
    return [f for f in found if f.rule == rule]


@pytest.fixture(scope="module")
def san_host(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("san") / "san_host"
    write_snapshot(load_spec(SPECS / "san_host.toml"), out)
    return out


@pytest.fixture(scope="module")
def port_down(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("san") / "san_port_down"
    write_snapshot(load_spec(SPECS / "san_port_down.toml"), out)
    return out


CLARIION = FIXTURES / "fc" / "ucs-qla2432-clariion"
EMULEX = FIXTURES / "snapshots" / "procfs-mpt3sas"


# -- field case 2 ---------------------------------------------------------------------------


def test_field_case_2_is_an_oversubscribed_san(san_host: Path) -> None:
    found = findings(host_context(san_host), "san.oversubscribed")
    assert len(found) == 1
    finding = found[0]
    assert finding.entity.name == "db-san-01"
    facts = {f.name: f.value for f in finding.evidence[0].facts if f.entity is None}
    assert facts["LUNs slow while idle"] == 3
    assert facts["FC adapters"] == 2
    assert facts["recommended FC adapters"] == 4
    assert facts["aggregate FC bandwidth"] == 3200
    assert "2 → 4" in finding.remediation
    assert "mpatha" in finding.evidence[0].summary


def test_field_case_2_lun_queue_depth_of_30_is_full(san_host: Path) -> None:
    found = findings(host_context(san_host), "fc.queue_depth.low")
    assert sorted(f.entity.name.split()[0] for f in found) == ["mpatha", "mpathb", "mpathc"]
    facts = {f.name: f.value for f in found[0].evidence[0].facts}
    assert facts["queue depth per path"] == 30
    assert facts["lpfc_lun_queue_depth"] == 30
    assert isinstance(facts["queue reached"], float) and facts["queue reached"] >= 48


def test_field_case_2_has_no_fc_configuration_finding(san_host: Path) -> None:
    context = host_context(san_host)
    for rule in ("fc.port.not_online", "fc.port.downgraded", "fc.lun.single_path"):
        assert findings(context, rule) == []


def test_san_rules_without_statistics_are_skipped_not_passed(san_host: Path) -> None:
    _, skipped, _ = evaluate(host_context(san_host, statistics=False), RULES)
    reasons = {s.rule: s.reason for s in skipped}
    assert "no diskstats samples" in reasons["san.oversubscribed"]
    assert "no diskstats samples" in reasons["fc.queue_depth.low"]


def test_a_latency_limit_raised_above_the_wait_silences_oversubscribed(san_host: Path) -> None:
    config = parse_config(
        {"rules": {"san.oversubscribed": {"latency_ms": 1000}}}, RULES, "test.toml"
    )
    assert findings(host_context(san_host), "san.oversubscribed", config) == []


def test_queue_depth_64_is_not_low(san_host: Path) -> None:
    context = host_context(san_host)
    for port in context.inventory.fc.ports:
        port.luns = [lun.model_copy(update={"queue_depth": 64}) for lun in port.luns]
    assert findings(context, "fc.queue_depth.low") == []


# -- ports and paths ------------------------------------------------------------------------


def test_a_port_down_and_the_luns_it_leaves_on_one_path(port_down: Path) -> None:
    context = host_context(port_down, statistics=False)
    down = findings(context, "fc.port.not_online")
    assert [f.entity.name.split()[0] for f in down] == ["host1"]
    assert "Linkdown" in down[0].title
    single = findings(context, "fc.lun.single_path")
    assert len(single) == 3
    assert all("single FC path" in f.title for f in single)


def test_a_port_at_8_of_16_gbit_is_downgraded(port_down: Path) -> None:
    found = findings(host_context(port_down, statistics=False), "fc.port.downgraded")
    assert len(found) == 1
    assert found[0].title == "FC port host0 at 8 Gbit/s of 16"


def test_real_emulex_at_16_of_16_gbit_is_not_downgraded() -> None:
    context = host_context(EMULEX, statistics=False)
    assert context.inventory.fc.ports[0].speed_gbps == 16
    assert findings(context, "fc.port.downgraded") == []
    assert findings(context, "fc.port.not_online") == []


def test_clariion_port_at_2_of_4_gbit_is_downgraded_below_its_peer() -> None:
    found = findings(host_context(CLARIION, statistics=False), "fc.port.downgraded")
    assert [f.entity.name.split()[0] for f in found] == ["host5"]
    facts = {f.name: f.value for f in found[0].evidence[0].facts}
    assert facts["negotiated speed"] == 2.0
    assert facts["peer speed"] == 4.0


def test_clariion_luns_have_paths_through_two_adapters() -> None:
    assert findings(host_context(CLARIION, statistics=False), "fc.lun.single_path") == []


def test_luns_with_both_paths_on_one_adapter() -> None:
    context = host_context(CLARIION, statistics=False)
    first, second = context.inventory.fc.ports
    second.adapter_id = first.adapter_id
    found = findings(context, "fc.lun.single_path")
    assert found and all("one FC adapter" in f.title for f in found)
    assert {f.entity.name for f in found} >= {"L004 (naa.60060160ade32800f2e3baf47665e211)"}


def test_controller_luns_are_not_counted() -> None:
    context = host_context(CLARIION, statistics=False)
    first, second = context.inventory.fc.ports
    second.luns = []
    first.luns = [
        lun.model_copy(update={"scsi_type": 12}) if isinstance(lun, FcLun) else lun
        for lun in first.luns
    ]
    assert findings(context, "fc.lun.single_path") == []
