"""`net.link.errors` between two sweeps: simulated sweeps of a host with a failing 25 GbE link,
the real procfs e1000e capture (its carrier counts, node_exporter's `ethtool -S` and the real
procfs statistics files), the demo host, and snapshots from before the counters were read."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fixture_paths import FIXTURES, ROOT

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.findings import Finding, SkippedRule
from pinchpoint.model.inventory import Inventory
from pinchpoint.rules import net
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.engine import evaluate
from pinchpoint.simulator import load_spec, write_snapshot

EXAMPLES = ROOT / "pinchpoint" / "simulator" / "specs"
SNAPSHOTS = FIXTURES / "network" / "snapshots"
PROCFS_STATISTICS = (
    FIXTURES
    / "snapshots/procfs-mpt3sas/sys/devices/pci0000:a2/0000:a2:00.0/net/enp162s0f0np0/statistics"
)
RULE = [r for r in net.RULES if r.id == "net.link.errors"]
NO_EARLIER = "no earlier sweep of this host to compare with"


def run(after: Inventory, before: Inventory | None) -> tuple[list[Finding], list[SkippedRule]]:
    found, skipped, _ = evaluate(RuleContext(inventory=after, previous=before), RULE)
    return found, skipped


def facts(finding: Finding) -> dict[str, object]:
    return {f.name: f.value for f in finding.evidence[0].facts}


def simulated(tmp_path_factory: pytest.TempPathFactory, spec: Path) -> Inventory:
    out = tmp_path_factory.mktemp(spec.stem) / "snapshot"
    write_snapshot(load_spec(spec), out)
    return collect_inventory(SnapshotSource(out))


@pytest.fixture(scope="module")
def sweeps(tmp_path_factory: pytest.TempPathFactory) -> tuple[Inventory, Inventory]:
    """counters_rising_1.toml then counters_rising_2.toml, 900 s apart."""
    return (
        simulated(tmp_path_factory, EXAMPLES / "counters_rising_1.toml"),
        simulated(tmp_path_factory, EXAMPLES / "counters_rising_2.toml"),
    )


def test_rising_crc_errors_and_carrier_changes_between_two_simulated_sweeps(
    sweeps: tuple[Inventory, Inventory],
) -> None:
    """ens2f0's CRC errors (kernel and driver) and carrier changes rose; ens2f1's receive
    errors went back to 0 (driver reloaded) and eno1 stayed: neither says anything."""
    before, after = sweeps
    found, skipped = run(after, before)
    assert skipped == []
    (finding,) = found
    assert finding.entity.name == "ens2f0 on db-san-02"
    assert finding.title == (
        "ens2f0 on db-san-02: rx crc errors +457, rx errors +457 since the last sweep"
    )
    got = facts(finding)
    assert got["rx crc errors"] == 457
    assert got["rx crc errors before → now"] == "3 → 460"
    assert got["rx crc errors per hour"] == 1828.0
    assert got["carrier changes"] == 4
    assert got["port.rx crc errors (ethtool -S)"] == 457
    assert got["interval between sweeps"] == 900.0
    assert got["running speed"] == 25000
    assert finding.evidence[0].summary.endswith("in 15 min")


def test_flat_counters_are_quiet_and_a_reset_is_no_error(
    sweeps: tuple[Inventory, Inventory],
) -> None:
    before, after = sweeps
    assert run(after, after)[0] == []
    assert run(before, before)[0] == []  # old totals alone say nothing
    # The sweeps the other way round: ens2f0 went down (reset), ens2f1's receive errors
    # rose 0 → 25, the only finding.
    (backwards,) = run(before, after)[0]
    assert backwards.entity.name == "ens2f1 on db-san-02"
    assert facts(backwards)["rx errors"] == 25


def test_without_an_earlier_sweep_the_rule_is_skipped_with_the_reason(
    sweeps: tuple[Inventory, Inventory],
) -> None:
    assert run(sweeps[1], None) == ([], [SkippedRule(rule="net.link.errors", reason=NO_EARLIER)])


def test_an_earlier_sweep_from_before_the_counters_were_read_skips_with_the_reason(
    sweeps: tuple[Inventory, Inventory],
) -> None:
    before, after = sweeps
    older = before.model_copy(deep=True)
    for nic in older.network.nics:
        nic.counters = None  # what a snapshot taken before pinchpoint read them gives
    found, skipped = run(after, older)
    assert found == []
    (skip,) = skipped
    assert skip.reason.startswith("no NIC error counters in this sweep or the one before")


def test_the_balanced_demo_host_twice_is_quiet(tmp_path_factory: pytest.TempPathFactory) -> None:
    demo = simulated(tmp_path_factory, EXAMPLES / "demo.toml")
    assert all(nic.counters is not None for nic in demo.network.nics)
    assert run(demo, demo) == ([], [])


@pytest.fixture
def e1000e(tmp_path: Path) -> Path:
    """The real procfs e1000e capture, with the real procfs statistics/ files under its eth0."""
    target = tmp_path / "before"
    shutil.copytree(SNAPSHOTS / "procfs-e1000e", target, symlinks=True)
    shutil.copytree(PROCFS_STATISTICS, (target / "sys/class/net/eth0").resolve() / "statistics")
    return target


def test_the_real_e1000e_capture_twice_is_quiet(e1000e: Path) -> None:
    inventory = collect_inventory(SnapshotSource(e1000e))
    counters = inventory.network.nics[0].counters
    assert counters is not None and counters.driver and counters.statistics
    assert run(inventory, inventory) == ([], [])


def test_the_real_e1000e_then_the_robots_real_crc_figures(e1000e: Path, tmp_path: Path) -> None:
    """The later sweep carries the real figures of jsk_robot issue #1671 (rx_errors 460752 =
    rx_crc_errors 230412 + rx_frame_errors 230340) on the same NIC, and two more carrier
    changes; the snapshots carry the same capture time, so no rate is given."""
    later = tmp_path / "after"
    shutil.copytree(e1000e, later, symlinks=True)
    eth0 = (later / "sys/class/net/eth0").resolve()
    for name, value in {
        "statistics/rx_errors": 460752,
        "statistics/rx_crc_errors": 230412,
        "statistics/rx_frame_errors": 230340,
        "carrier_changes": 4,
    }.items():
        (eth0 / name).write_text(f"{value}\n")
    before = collect_inventory(SnapshotSource(e1000e))
    after = collect_inventory(SnapshotSource(later))
    (finding,) = run(after, before)[0]
    assert finding.title.endswith(
        "rx crc errors +230412, rx frame errors +230340 since the last sweep"
    )
    got = facts(finding)
    assert got["rx errors"] == 460752 and got["carrier changes"] == 2
    assert got["interval between sweeps"] is None
    assert "rx crc errors per hour" not in got
    assert finding.evidence[0].summary.endswith("since the previous sweep")
