"""The latency rules together (`pinchpoint.rules.latency.RULES`): nothing on a balanced host
with the same work on every disk; an import without latencies is no latency series."""

from __future__ import annotations

from fixture_paths import FIXTURES

from pinchpoint.checks.collect.imports import import_stats
from pinchpoint.model.inventory import HostInfo, Inventory, SourceKind
from pinchpoint.model.stats import ImportKind
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.engine import evaluate
from pinchpoint.rules.latency import RULES

PERFMON = FIXTURES / "imports" / "synthetic__perfmon_relog_DBSRV01_LogicalDisk_H.csv"


def test_no_latency_finding_on_a_balanced_host_with_the_same_work(balanced: RuleContext) -> None:
    found, skipped, _ = evaluate(balanced, RULES)
    assert found == []
    assert not skipped


def test_an_import_without_latencies_is_no_latency_series() -> None:
    imported = import_stats(PERFMON, ImportKind.PERFMON_CSV)
    for entity in imported.entities:
        for point in entity.points:
            point.values = {m: v for m, v in point.values.items() if "latency" not in m.value}
    host = HostInfo(hostname="DBSRV01", source=SourceKind.SNAPSHOT)
    context = RuleContext(inventory=Inventory(host=host), imported=[imported])
    _, skipped, _ = evaluate(context, RULES)
    assert {s.rule for s in skipped} >= {"latency.threshold", "latency.disk.overwhelmed"}
