"""A live check's statistics window with per-I/O latency recorded in the kernel (`check
--record`): over the same window as the two diskstats samples, the recorder counts the I/Os
diskstats counts on a loop device under fio; without the recorder the window is averages only
and says why."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from loop_devices import fio_in_background, loop_device, recording_unavailable
from typer.testing import CliRunner

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import LiveSource
from pinchpoint.checks.source.biolat import LOADER_ENV
from pinchpoint.cli import app
from pinchpoint.model.stats import HistogramKind, ImportKind
from pinchpoint.stats.gather import gather_statistics


@pytest.fixture(scope="module")
def busy_loop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if recording_unavailable() is not None:
        pytest.skip(recording_unavailable() or "")
    with (
        loop_device(tmp_path_factory.mktemp("loop")) as name,
        fio_in_background(name, rw="randread", iodepth=2, rate_iops=500, runtime_s=120),
    ):
        yield name


def test_the_recorded_window_counts_what_diskstats_counts(busy_loop: str) -> None:
    inventory = collect_inventory(LiveSource(), parallel=False)
    statistics = gather_statistics(
        LiveSource(), inventory, live=True, seconds=2.0, record_latency=True, network=False
    )
    assert not [n for n in statistics.notes if "averages only" in n], statistics.notes
    (recorded,) = [i for i in statistics.imported if i.kind is ImportKind.EBPF]
    entity = next(e for e in recorded.entities if e.name == busy_loop)
    reads = entity.histograms[HistogramKind.DISK_WAIT_READ].count
    (interval,) = statistics.intervals
    counted = next(d for d in interval.devices if d.device == busy_loop)
    recorded_s = entity.points[0].interval_s
    # the recorder is asked just before the first sample and stopped just after the second:
    # its window holds diskstats' one, longer by the time it takes to attach and to stop (a few
    # ms on a quiet machine, a tenth of a second on a loaded one), so the rates agree
    assert interval.interval_s * 0.99 <= recorded_s <= interval.interval_s + 1.0
    assert reads / recorded_s == pytest.approx(counted.r_s, rel=0.03, abs=5 / recorded_s)
    assert 500 <= reads <= 1100 * recorded_s / 2


def test_without_the_recorder_the_window_is_averages_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(LOADER_ENV, str(tmp_path / "missing"))
    inventory = collect_inventory(LiveSource(), parallel=False)
    statistics = gather_statistics(
        LiveSource(), inventory, live=True, seconds=0.2, record_latency=True, network=False
    )
    assert [i for i in statistics.imported if i.kind is ImportKind.EBPF] == []
    assert statistics.intervals  # the diskstats figures stand
    (note,) = [n for n in statistics.notes if n.startswith("averages only")]
    assert "make bpf" in note or "needs root" in note


def test_record_is_for_this_host_only(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["check", "--demo", "--record"])
    assert result.exit_code == 2
    assert "--record records this host" in result.output
