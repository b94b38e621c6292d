"""`fc.port.errors` between two sweeps: simulated sweeps of a SAN host, the real fc_host
statistics of node_exporter issue #570 and the real Emulex port of prometheus/procfs."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_paths import FIXTURES, ROOT

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.findings import Finding, SkippedRule
from pinchpoint.model.inventory import Inventory
from pinchpoint.rules import fc
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.engine import evaluate
from pinchpoint.simulator import load_spec, write_snapshot

EXAMPLES = ROOT / "pinchpoint" / "simulator" / "specs"
ISSUE_570 = (
    FIXTURES
    / "fc"
    / "node_exporter_issue570__sys_class_fc_host_host3_statistics_grep_link_failure_1.txt"
)
EMULEX = FIXTURES / "snapshots" / "procfs-mpt3sas"
RULE = [r for r in fc.RULES if r.id == "fc.port.errors"]


def run(after: Inventory, before: Inventory | None) -> tuple[list[Finding], list[SkippedRule]]:
    found, skipped, _ = evaluate(RuleContext(inventory=after, previous=before), RULE)
    return found, skipped


def facts(finding: Finding) -> dict[str, object]:
    return {f.name: f.value for f in finding.evidence[0].facts}


@pytest.fixture(scope="module")
def sweeps(tmp_path_factory: pytest.TempPathFactory) -> tuple[Inventory, Inventory]:
    """counters_rising_1.toml then counters_rising_2.toml, 900 s apart."""
    found = []
    for name in ("counters_rising_1", "counters_rising_2"):
        out = tmp_path_factory.mktemp(name) / "snapshot"
        write_snapshot(load_spec(EXAMPLES / f"{name}.toml"), out)
        found.append(collect_inventory(SnapshotSource(out)))
    return found[0], found[1]


def test_rising_link_errors_between_two_simulated_sweeps(
    sweeps: tuple[Inventory, Inventory],
) -> None:
    """fc0's link failures, losses of sync and invalid CRCs rose; fc1's invalid CRCs went back
    to 0 (statistics reset) and say nothing."""
    before, after = sweeps
    found, skipped = run(after, before)
    assert skipped == []
    (finding,) = found
    assert finding.entity.name.startswith("host0 ")
    assert finding.title == (
        "FC port host0: link failure count +3, loss of sync count +7 since the last sweep"
    )
    got = facts(finding)
    assert got["link failure count"] == 3
    assert got["link failure count before → now"] == "1 → 4"
    assert got["invalid crc count"] == 57
    assert got["invalid crc count per hour"] == 228.0
    assert got["interval between sweeps"] == 900.0
    assert "loss of signal count" not in got
    assert "in 15 min" in finding.evidence[0].summary


def test_flat_counters_are_quiet_and_a_reset_is_no_error(
    sweeps: tuple[Inventory, Inventory],
) -> None:
    before, after = sweeps
    assert run(after, after)[0] == []
    assert run(before, before)[0] == []  # old totals alone say nothing
    # The sweeps the other way round: fc0's counters went down (reset, nothing to say), and
    # fc1's invalid CRCs rose 0 → 7, the only finding.
    (backwards,) = run(before, after)[0]
    assert backwards.entity.name.startswith("host1 ")
    assert facts(backwards)["invalid crc count"] == 7


def test_without_an_earlier_sweep_the_rule_is_skipped_with_the_reason(
    sweeps: tuple[Inventory, Inventory],
) -> None:
    found, skipped = run(sweeps[1], None)
    assert found == []
    assert skipped == [
        SkippedRule(rule="fc.port.errors", reason="no earlier sweep of this host to compare with")
    ]


def issue_570_snapshot(root: Path, link_failures: int = 1, seconds_later: int = 0) -> Path:
    """The real fc_host/host3 of node_exporter issue #570 as a snapshot (its grep lines as
    files); a later sweep moves its statistics clock on and may count more link failures."""
    for line in ISSUE_570.read_text().splitlines():
        if not line.startswith("/sys/"):
            continue
        path, _, value = line.partition(":")
        name = path.rsplit("/", 1)[-1]
        if name == "seconds_since_last_reset":
            value = hex(int(value, 16) + seconds_later)
        if name == "link_failure_count":
            value = hex(link_failures)
        target = root / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(value + "\n")
    return root


def test_the_real_issue_570_port_alone_and_unchanged_is_quiet(tmp_path: Path) -> None:
    """One link failure in 25 days of statistics is history, not a finding."""
    inventory = collect_inventory(SnapshotSource(issue_570_snapshot(tmp_path)))
    (port,) = inventory.fc.ports
    assert port.statistics.link_failure_count == 1
    assert port.statistics.seconds_since_last_reset == 0x20F4FB
    assert run(inventory, inventory)[0] == []


def test_the_real_issue_570_port_with_two_more_link_failures_ten_minutes_later(
    tmp_path: Path,
) -> None:
    """The snapshots carry no capture time: the port's own statistics clock gives the interval."""
    before = collect_inventory(SnapshotSource(issue_570_snapshot(tmp_path / "a")))
    after = collect_inventory(
        SnapshotSource(issue_570_snapshot(tmp_path / "b", link_failures=3, seconds_later=600))
    )
    (finding,) = run(after, before)[0]
    got = facts(finding)
    assert got["link failure count"] == 2
    assert got["link failure count before → now"] == "1 → 3"
    assert got["interval between sweeps"] == 600.0
    assert got["link failure count per hour"] == 12.0
    assert got["speed"] == 8.0


def test_the_real_emulex_port_twice_is_quiet() -> None:
    inventory = collect_inventory(SnapshotSource(EMULEX))
    assert inventory.fc.ports and inventory.fc.ports[0].statistics.rx_frames is not None
    assert run(inventory, inventory) == ([], [])
