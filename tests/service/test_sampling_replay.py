"""A snapshot replayed by the service's sampler: its kernel latency recording, when it carries
one, counted once per tick as a recorder running since the start would count, so the
exported histogram grows; each disk's work counters grow with the replayed intervals."""

from __future__ import annotations

from pathlib import Path

from fixture_paths import SPECS
from prometheus_client.parser import text_string_to_metric_families

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.latency_recording import BlockOp
from pinchpoint.service.metrics import MetricsInput, metrics_exposition
from pinchpoint.service.sampling import IntervalSource
from pinchpoint.service.settings import TargetKind
from pinchpoint.service.target import HostTarget
from pinchpoint.simulator import load_spec, spec_from_data, write_snapshot
from pinchpoint.stats.disk_work import DiskWorkTotals


def _san(tmp_path: Path, record: bool) -> Path:
    data = load_spec(SPECS / "san_host.toml").model_dump(exclude_none=True)
    data["workload"]["record_latency"] = record
    snapshot = tmp_path / ("recorded" if record else "plain")
    write_snapshot(spec_from_data(data), snapshot)
    return snapshot


def test_the_recording_is_counted_once_per_tick(tmp_path: Path) -> None:
    snapshot = _san(tmp_path, record=True)
    inventory = collect_inventory(SnapshotSource(snapshot))
    source = IntervalSource(HostTarget(TargetKind.SNAPSHOT, snapshot))
    work = DiskWorkTotals()
    counted = []
    for _ in range(3):
        interval = source.next(inventory)
        assert interval is not None
        work.add_interval(inventory, interval)
        counted.append(source.counted)
    one, _, three = counted
    assert one is not None and three is not None
    assert three.seconds == 3 * one.seconds
    reads = [d.op(BlockOp.READ) for d in one.devices]
    reads_three = [d.op(BlockOp.READ) for d in three.devices]
    assert any(r is not None and r.device_time.count for r in reads)
    for once, thrice in zip(reads, reads_three, strict=True):
        assert (once is None) == (thrice is None)
        if once is not None and thrice is not None:
            assert thrice.device_time.count == 3 * once.device_time.count
            assert thrice.device_time.sum_ns == 3 * once.device_time.sum_ns
            assert thrice.bytes == 3 * once.bytes

    def histogram_count(recorded: object) -> float:
        body, _ = metrics_exposition(
            MetricsInput.model_validate(
                {"host": "h", "inventory": inventory, "recorded": recorded, "work": work.totals()}
            )
        )
        families = {f.name: f for f in text_string_to_metric_families(body.decode())}
        samples = families["pinchpoint_disk_io_latency_seconds"].samples
        return sum(s.value for s in samples if s.name.endswith("_count"))

    assert histogram_count(three) == 3 * histogram_count(one) > 0
    luns = {w.disk: w for w in work.totals()}
    assert len(luns) == 3 and all(w.reads > 0 and w.read_seconds > 0 for w in luns.values())


def test_a_snapshot_without_a_recording_counts_none(tmp_path: Path) -> None:
    snapshot = _san(tmp_path, record=False)
    inventory = collect_inventory(SnapshotSource(snapshot))
    source = IntervalSource(HostTarget(TargetKind.SNAPSHOT, snapshot))
    assert source.next(inventory) is not None
    assert source.counted is None
