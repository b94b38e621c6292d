"""`capture --record-seconds`: the snapshot carries the kernel's per-I/O latency of this host,
and `check`/`stats show` on the snapshot read it back as real distributions; where it cannot
record, the snapshot says why under "not collected" and the rest stands."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from loop_devices import fio_in_background, loop_device, recording_unavailable

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.checks.source.biolat import LOADER_ENV
from pinchpoint.checks.source.capture import capture
from pinchpoint.model.problems import ProblemKind
from pinchpoint.model.stats import HistogramKind, ImportKind
from pinchpoint.stats.gather import gather_statistics


@pytest.fixture(scope="module")
def busy_loop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if recording_unavailable() is not None:
        pytest.skip(recording_unavailable() or "")
    with (
        loop_device(tmp_path_factory.mktemp("loop")) as name,
        fio_in_background(name, rw="randread", iodepth=2, rate_iops=300, runtime_s=120),
    ):
        yield name


def test_a_snapshot_carries_the_recording(busy_loop: str, tmp_path: Path) -> None:
    out = tmp_path / "snap"
    result = capture(out, record_s=2)
    assert not [p for p in result.inventory.problems if p.part == "latency recording"]
    assert (out / "commands" / "biolat" / "recording.json").is_file()
    assert (out / "sys" / "class" / "block" / busy_loop / "dev").is_file()
    source = SnapshotSource(out)
    inventory = collect_inventory(source)
    statistics = gather_statistics(source, inventory, live=False)
    (recorded,) = [i for i in statistics.imported if i.kind is ImportKind.EBPF]
    loop = next(e for e in recorded.entities if e.name == busy_loop)
    reads = loop.histograms[HistogramKind.DISK_WAIT_READ]
    assert 200 <= reads.count <= 700  # 300 IOPS for the 2 s window, on a busy machine fewer
    assert not [n for n in statistics.notes if "biolat" in n]


def test_without_the_recorder_the_snapshot_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(LOADER_ENV, str(tmp_path / "nowhere"))
    out = tmp_path / "snap"
    result = capture(out, record_s=2)
    (problem,) = [p for p in result.inventory.problems if p.part == "latency recording"]
    assert problem.kind is ProblemKind.UNSUPPORTED
    assert "make bpf" in problem.reason or "needs root" in problem.reason
    assert not (out / "commands" / "biolat").exists()
    inventory = collect_inventory(SnapshotSource(out))  # the rest of the snapshot stands
    assert inventory.host.hostname
