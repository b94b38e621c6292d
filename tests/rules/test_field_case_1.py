"""Field case 1 (miscabled JBODs) on the demo host with its statistics, before and after
recabling (`tests/fixtures/specs/field_case_1_recabled.toml`: the same host and workload with
every JBOD dual-pathed, chains still 4 + 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_paths import ROOT

from pinchpoint.checks.collect.diskstats import read_sample_series
from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.parse.importers import parse_stats
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.findings import Finding
from pinchpoint.model.stats import ImportKind
from pinchpoint.rules import disk, sas
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.engine import evaluate
from pinchpoint.simulator import load_spec, write_snapshot
from pinchpoint.stats.iostat import series_figures

DEMO = ROOT / "pinchpoint" / "simulator" / "specs" / "demo.toml"
RECABLED = ROOT / "tests" / "fixtures" / "specs" / "field_case_1_recabled.toml"


def _findings(spec: Path, out: Path) -> list[Finding]:
    """The SAS and disk findings of a simulated host with its diskstats and histograms."""
    write_snapshot(load_spec(spec), out)
    source = SnapshotSource(out)
    histograms = (out / "commands" / "zpool" / "iostat-w.txt").read_text()
    context = RuleContext(
        inventory=collect_inventory(source),
        intervals=series_figures(read_sample_series(source)),
        imported=[parse_stats(histograms, ImportKind.ZPOOL_IOSTAT_W)],
    )
    findings, _, _ = evaluate(context, (*sas.RULES, *disk.RULES))
    return findings


@pytest.fixture(scope="module")
def before(tmp_path_factory: pytest.TempPathFactory) -> list[Finding]:
    return _findings(DEMO, tmp_path_factory.mktemp("demo"))


@pytest.fixture(scope="module")
def after(tmp_path_factory: pytest.TempPathFactory) -> list[Finding]:
    return _findings(RECABLED, tmp_path_factory.mktemp("recabled"))


def _facts(finding: Finding, index: int) -> dict[str, object]:
    return {f.name: f.value for f in finding.evidence[index].facts}


def test_before_exactly_jbods_003_and_012_are_single_pathed_plus_the_imbalance(
    before: list[Finding],
) -> None:
    assert sorted((f.rule, f.entity.name) for f in before) == [
        (
            "sas.chain.imbalance",
            "0000:03:00.0 SAS9300-8e connector 0: JBOD-001 → JBOD-003 → JBOD-007 → JBOD-012",
        ),
        ("sas.enclosure.single_path", "JBOD-003"),
        ("sas.enclosure.single_path", "JBOD-012"),
    ]


def test_before_the_single_pathed_jbods_queue_more_than_their_peers(
    before: list[Finding],
) -> None:
    single = [f for f in before if f.rule == "sas.enclosure.single_path"]
    for finding in single:
        assert len(finding.evidence) == 2  # the missing cable, proven by the queue
        topology = _facts(finding, 0)
        assert topology["paths present"] == 1
        assert topology["paths expected"] == 2
        assert topology["not reached through"] == "0000:81:00.0 SAS9300-8e connector 0"
        queue = _facts(finding, 1)
        own = queue["queue per disk"]
        peers = queue["peers' median queue per disk"]
        assert isinstance(own, float) and isinstance(peers, float)
        assert own > 2 * peers
        slow = queue["I/Os slower than 220 ms"]
        peers_slow = queue["peers' median share slower than 220 ms"]
        assert isinstance(slow, float) and isinstance(peers_slow, float)
        assert slow > peers_slow
        assert len(finding.evidence[1].peers) == 5


def test_before_the_imbalance_recommends_three_chains_of_two(before: list[Finding]) -> None:
    (imbalance,) = [f for f in before if f.rule == "sas.chain.imbalance"]
    assert imbalance.title == "Chains of 4 + 2 enclosures; balanced: 2 + 2 + 2"
    assert "move JBOD-007 and JBOD-012 to a new chain" in imbalance.remediation


def test_after_recabling_only_the_imbalance_remains(after: list[Finding]) -> None:
    assert [f.rule for f in after] == ["sas.chain.imbalance"]


def test_after_recabling_the_jbods_of_the_chain_of_two_are_the_faster_ones(
    after: list[Finding],
) -> None:
    (imbalance,) = after
    measured = imbalance.evidence[1]
    assert "JBOD-002 and JBOD-00B in the chain of 2" in measured.summary
    assert "they are the faster ones" in measured.summary
    facts = _facts(imbalance, 1)
    long_chain = facts["queue per disk in this chain"]
    short_chain = facts["queue per disk in the chain of 2"]
    assert isinstance(long_chain, float) and isinstance(short_chain, float)
    assert short_chain < long_chain
