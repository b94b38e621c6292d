"""The groups' points go to the store one write per 10-second bucket (issue 17: batched writes),
and until then a query sees the bucket being filled as if it were stored."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

from fixture_paths import SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.service.sampling import MEMBER_LEVELS, StatsSampler, group_policy
from pinchpoint.service.settings import TargetKind
from pinchpoint.service.store import Store
from pinchpoint.service.target import HostTarget
from pinchpoint.simulator import load_spec, write_snapshot
from pinchpoint.stats.series import SeriesPoint

T0 = datetime(2026, 11, 26, 12, 0, 0, tzinfo=UTC)


def test_a_bucket_is_written_once_done_and_seen_before(tmp_path: Path) -> None:
    snapshot = tmp_path / "san"
    write_snapshot(load_spec(SPECS / "san_host.toml"), snapshot)
    inventory = collect_inventory(SnapshotSource(snapshot))
    store = Store.open(f"sqlite:///{tmp_path}/store.db")
    writes: list[int] = []
    add = store.add_series_points

    def counted(host: str, points: Sequence[tuple[str, SeriesPoint]]) -> None:
        writes.append(len(points))
        add(host, points)

    store.add_series_points = counted  # type: ignore[method-assign]
    sampler = StatsSampler(HostTarget(TargetKind.SNAPSHOT, snapshot), store, lambda: inventory)
    host = inventory.host.hostname or ""
    end = T0 + timedelta(minutes=1)
    for second in range(3):
        assert sampler.tick(T0 + timedelta(seconds=second)) > 0
    assert writes == []  # the bucket is still being filled
    groups = [e for e, (level, _) in sampler.names.items() if level not in MEMBER_LEVELS]
    assert groups
    seen = {}
    for entity in groups:
        pending = sampler.pending_point(host, entity)
        assert pending is not None and pending.covered_s > 0
        assert store.query_series(host, entity, T0, end, group_policy()).points == []
        seen[entity] = store.query_series(host, entity, T0, end, group_policy(), pending)
        assert len(seen[entity].points) == 1
    sampler.tick(T0 + timedelta(seconds=10))  # the next bucket: the first one written
    assert writes == [len(groups)]
    for entity in groups:
        stored = store.query_series(host, entity, T0, T0 + timedelta(seconds=10), group_policy())
        assert stored == seen[entity]
    sampler.close()  # the bucket being filled is written at exit
    assert writes == [len(groups), len(groups)]
    assert sampler.pending_point(host, groups[0]) is None
    both = store.query_series(host, groups[0], T0, end, group_policy())
    assert [p.start_s for p in both.points] == [int(T0.timestamp()), int(T0.timestamp()) + 10]
