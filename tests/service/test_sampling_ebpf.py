"""The service's live statistics with per-I/O latency recorded in the kernel: each tick's
histograms are exactly the I/Os since the tick before (fio on a loop device), `/metrics`
exposes them as a Prometheus histogram (parsed by prometheus_client and checked by promtool),
and where the recorder cannot run the sampler says "averages only" and why — in the API too."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from loop_devices import loop_device, recording_unavailable, run_fio
from prometheus_client.parser import text_string_to_metric_families

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import LiveSource
from pinchpoint.checks.source.biolat import LOADER_ENV
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.latency_recording import RecorderLayout
from pinchpoint.model.stats import HistogramKind, ImportKind
from pinchpoint.service.metrics import MetricsInput, metrics_exposition
from pinchpoint.service.sampling import IntervalSource
from pinchpoint.service.settings import Schedule, TargetKind
from pinchpoint.service.target import HostTarget
from tests.api.conftest import READ_TOKEN, demo_settings, start_server

needs_bpf = pytest.mark.skipif(
    recording_unavailable() is not None, reason=recording_unavailable() or ""
)


@pytest.fixture(scope="module")
def inventory() -> Inventory:
    return collect_inventory(LiveSource(), parallel=False)


@pytest.fixture(scope="module")
def loop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if recording_unavailable() is not None:
        pytest.skip(recording_unavailable() or "")
    with loop_device(tmp_path_factory.mktemp("loop")) as name:
        yield name


@needs_bpf
def test_each_tick_holds_the_ios_since_the_last(loop: str, inventory: Inventory) -> None:
    source = IntervalSource(HostTarget(TargetKind.LIVE), record_latency=True)
    try:
        assert source.next(inventory) is None  # the baseline: diskstats and the recorder's counts
        fio = run_fio(loop, "--rw=randread", "--io_size=4M")
        interval = source.next(inventory)
        assert interval is not None
        assert (source.latency_source, source.latency_note) == ("ebpf", None)
        (recorded,) = source.imports
        assert recorded.kind is ImportKind.EBPF
        entity = next(e for e in recorded.entities if e.name == loop)
        reads = entity.histograms[HistogramKind.DISK_WAIT_READ]
        assert reads.count == fio["read"]["total_ios"] == 1024
        assert entity.histograms[HistogramKind.READ].count == 1024
        diskstats = next(d for d in interval.devices if d.device == loop)
        assert diskstats.r_s * interval.interval_s == pytest.approx(1024, rel=0.01)
        quiet = source.next(inventory)  # no I/O on the loop device since
        assert quiet is not None
        assert all(loop not in {e.name for e in i.entities} for i in source.imports)
        recorder = source._recorder
        assert recorder is not None and recorder.running
    finally:
        source.close()
    assert not recorder.running  # stopped with the sampler


@needs_bpf
def test_the_recorders_map_budget_comes_from_the_service(loop: str, inventory: Inventory) -> None:
    """`record_map_budget_bytes` reaches the recorder: a budget the per-CPU layout exceeds on
    this host gets the shared one, within it, counting every I/O as before."""
    first = IntervalSource(HostTarget(TargetKind.LIVE), record_latency=True)
    try:
        first.next(inventory)
        counted = first.counted
        assert counted is not None and counted.memory is not None
        assert counted.memory.layout is RecorderLayout.PERCPU  # 64 MiB holds it here
        budget = counted.memory.needed_percpu_bytes - 1
    finally:
        first.close()
    source = IntervalSource(
        HostTarget(TargetKind.LIVE), record_latency=True, record_budget_bytes=budget
    )
    try:
        source.next(inventory)
        fio = run_fio(loop, "--rw=randread", "--io_size=4M")
        assert source.next(inventory) is not None
        counted = source.counted
        assert counted is not None and counted.memory is not None
        assert counted.memory.layout is RecorderLayout.SHARED
        assert counted.memory.bytes <= budget == counted.memory.budget_bytes
        (recorded,) = source.imports
        entity = next(e for e in recorded.entities if e.name == loop)
        assert entity.histograms[HistogramKind.DISK_WAIT_READ].count == fio["read"]["total_ios"]
    finally:
        source.close()


@needs_bpf
def test_metrics_expose_a_prometheus_histogram(loop: str, inventory: Inventory) -> None:
    source = IntervalSource(HostTarget(TargetKind.LIVE), record_latency=True)
    try:
        source.next(inventory)
        run_fio(loop, "--rw=randrw", "--io_size=4M")
        source.next(inventory)
        recorded = source.counted
    finally:
        source.close()
    assert recorded is not None
    body, _ = metrics_exposition(
        MetricsInput(host="test-host", inventory=inventory, recorded=recorded)
    )
    text = body.decode()
    families = {f.name: f for f in text_string_to_metric_families(text)}
    family = families["pinchpoint_disk_io_latency_seconds"]
    assert family.type == "histogram"
    samples = [s for s in family.samples if s.labels.get("disk") == loop]
    reads = [s for s in samples if s.labels["op"] == "read"]
    buckets = [s for s in reads if s.name.endswith("_bucket")]
    assert len(buckets) == 17 and buckets[-1].labels["le"] == "+Inf"
    values = [s.value for s in buckets]
    assert values == sorted(values)  # cumulative
    count = next(s.value for s in reads if s.name.endswith("_count"))
    assert values[-1] == count and 0 < count <= 1024
    if shutil.which("promtool"):
        checked = subprocess.run(
            ["promtool", "check", "metrics"], input=text, capture_output=True, text=True
        )
        problems = [
            line
            for line in (checked.stdout + checked.stderr).splitlines()
            if "pinchpoint_disk_io_latency_seconds" in line
        ]
        assert problems == [], problems


def test_without_the_recorder_the_latency_is_averages_and_says_why(
    inventory: Inventory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(LOADER_ENV, str(tmp_path / "missing"))
    source = IntervalSource(HostTarget(TargetKind.LIVE), record_latency=True)
    source.next(inventory)
    assert source.latency_source == "diskstats" and source.imports == []
    assert source.latency_note is not None
    assert source.latency_note.startswith("averages only: per-I/O latency is not recorded")
    assert "make bpf" in source.latency_note or "needs root" in source.latency_note
    off = IntervalSource(HostTarget(TargetKind.LIVE), record_latency=False)
    assert off.latency_note is not None and "turned off" in off.latency_note


def test_the_api_says_where_the_latency_comes_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(LOADER_ENV, str(tmp_path / "missing"))
    settings = demo_settings(
        tmp_path / "data",
        target=TargetKind.LIVE,
        schedule=Schedule(
            sweep="", smart="", daily_report="", prune="", compact_stats="", stats_interval_s=3600
        ),
    )
    handle = start_server(settings)
    try:
        handle.wait_for_report()
        handle.service.sampler.tick()
        handle.service.sampler.tick()
        stored = handle.service.store.latest_report()
        answer = httpx.get(
            f"{handle.url}/v1/stats",
            params={"by": "disk"},
            headers={"Authorization": f"Bearer {READ_TOKEN}"},
            timeout=30,
        )
    finally:
        handle.stop()
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["latency_source"] == "diskstats"
    assert body["latency_note"].startswith("averages only: per-I/O latency is not recorded")
    # the sweep's report says the same, in the same words
    assert stored is not None and stored.report.latency is not None
    assert stored.report.latency.kind == "diskstats"
    assert body["latency_note"] == stored.report.latency.summary
