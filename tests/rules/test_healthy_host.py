"""The whole catalog on a healthy host finds nothing (the issue's "no false alarm" bar).

`tests/fixtures/specs/healthy_host.toml`: 6 JBODs in 3 dual-pathed chains of 2 on 3 HBAs, a
mirrored pool across JBODs, a bond of identical NICs, and a moderate streaming write on identical
disks, with diskstats, net/dev samples and zpool histograms. Every rule that can run must run
(statistics present, no rule failing) and none may find anything. This is the integration check
of the catalog: a rule firing here is a false alarm to fix in the rule, not in this test.
"""

from __future__ import annotations

import pytest
from fixture_paths import FIXTURES

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.findings import Report
from pinchpoint.rules.base import Input
from pinchpoint.rules.catalog import CATALOG
from pinchpoint.rules.engine import build_report, rule_context
from pinchpoint.simulator import load_spec, write_snapshot
from pinchpoint.stats.gather import gather_statistics

SPEC = FIXTURES / "specs" / "healthy_host.toml"
# What a healthy host of this kind has no use for: no FC, no sweep before this one, no fleet.
ABSENT = {Input.FC, Input.PREVIOUS, Input.MULTIPATH, Input.FLEET}
# … nor NVMe or iSCSI initiators (healthy ones: tests/rules/nvme and tests/rules/iscsi).
ABSENT |= {Input.NVME, Input.ISCSI}


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Report:
    snapshot = tmp_path_factory.mktemp("healthy") / "snapshot"
    write_snapshot(load_spec(SPEC), snapshot)
    source = SnapshotSource(snapshot)
    inventory = collect_inventory(source)
    statistics = gather_statistics(source, inventory, live=False)
    context = rule_context(inventory, statistics)
    for needed in (Input.DISK_STATS, Input.HISTOGRAMS, Input.NET_STATS, Input.SAS, Input.ZFS):
        assert context.missing(needed) is None, needed
    return build_report(context, CATALOG)


def test_no_rule_finds_anything_on_a_healthy_host(report: Report) -> None:
    found = [f"{f.rule} on {f.entity.name}: {f.title}" for f in report.findings]
    assert found == [], "false alarms on a healthy host:\n" + "\n".join(found)


def test_every_rule_that_can_run_here_ran(report: Report) -> None:
    allowed = {rule.id for rule in CATALOG if set(rule.needs) & ABSENT}
    wrongly = [f"{s.rule}: {s.reason}" for s in report.skipped if s.rule not in allowed]
    assert wrongly == [], "rules skipped on a host that has their inputs:\n" + "\n".join(wrongly)
    assert report.rules_evaluated == len(CATALOG) - len(report.skipped)
    assert report.rules_evaluated > 0
