"""Simulated workloads: diskstats samples and ZFS histograms whose shape follows the topology."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

import pytest
from fixture_paths import SPECS

from pinchpoint.checks.collect.diskstats import read_sample_series
from pinchpoint.checks.parse.importers.zpool_iostat import parse_zpool_histograms
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.histogram import LatencyHistogram
from pinchpoint.model.stats import HistogramKind, StatsEntityKind
from pinchpoint.simulator import SpecError, demo_spec, load_spec, spec_from_data
from pinchpoint.simulator.fc import fc_view
from pinchpoint.simulator.snapshot_writer import kernel_view
from pinchpoint.simulator.spec import HostSpec
from pinchpoint.simulator.workload import ZFS_BUCKETS, WorkloadResult, run_workload
from pinchpoint.simulator.workload_diskstats import block_devices, diskstats_text
from pinchpoint.stats.iostat import interval_figures

Rows = dict[str, list[int]]


def _run(spec: HostSpec) -> WorkloadResult:
    view = kernel_view(spec)
    result = run_workload(spec, view, fc_view(spec, view))
    assert result is not None
    return result


def _sample(root: Path, n: int) -> Rows:
    """Device name -> its 17 counters, from samples/<n>/proc/diskstats."""
    rows: Rows = {}
    for line in (root / f"samples/{n}/proc/diskstats").read_text().splitlines():
        fields = line.split()
        assert len(fields) == 20, line
        rows[fields[2]] = [int(f) for f in fields[3:]]
    return rows


def _sd_by_jbod(spec: HostSpec) -> dict[str, list[str]]:
    view = kernel_view(spec)
    names: dict[str, list[str]] = {}
    for dev in view.disk_paths():
        if dev.disk_port is not None and dev.sd is not None:
            names.setdefault(dev.disk_port.disk.enclosure.name, []).append(dev.sd)
    return names


def _jbod_queue_and_await(root: Path, spec: HostSpec) -> dict[str, tuple[float, float]]:
    """Per JBOD: mean aqu-sz per disk (its paths summed) and mean await, with A's iostat."""
    series = read_sample_series(SnapshotSource(root, str(root)))
    assert len(series) == 13
    figures = interval_figures(series[0], series[-1])
    by_device = {f.device: f for f in figures.devices}
    out = {}
    for jbod, sds in _sd_by_jbod(spec).items():
        disks = len(sds) / (1 if jbod in ("JBOD-003", "JBOD-012") else 2)  # paths per disk
        queue = sum(by_device[sd].aqu_sz for sd in sds) / disks
        waits = [by_device[sd].w_await for sd in sds if by_device[sd].w_s > 0]
        out[jbod] = (queue, sum(waits) / len(waits))
    return out


def test_same_seed_same_files_other_seed_other_files() -> None:
    spec = load_spec(SPECS / "queue_too_deep.toml")
    view = kernel_view(spec)
    fc = fc_view(spec, view)
    devices = block_devices(spec, view, fc)
    first = diskstats_text(devices, _run(spec), 6)
    again = diskstats_text(devices, _run(spec), 6)
    assert first == again
    assert spec.workload is not None
    other = spec.model_copy(update={"workload": spec.workload.model_copy(update={"seed": 99})})
    assert diskstats_text(devices, _run(other), 6) != first


def test_counters_monotonic_and_consistent(demo_root: Path) -> None:
    samples = [_sample(demo_root, n) for n in range(13)]
    uptimes = [
        float((demo_root / f"samples/{n}/proc/uptime").read_text().split()[0]) for n in range(13)
    ]
    assert all(b - a == pytest.approx(10.0) for a, b in itertools.pairwise(uptimes))
    last = (demo_root / "samples/12/proc/diskstats").read_text()
    assert (demo_root / "proc/diskstats").read_text() == last
    assert (demo_root / "proc/uptime").read_text() == (
        demo_root / "samples/12/proc/uptime"
    ).read_text()
    assert {"sda", "sda1", "sda9"} <= set(samples[0])
    assert len(samples[0]) == 600 * 3  # every path of every pool disk, with partitions 1 and 9
    for before, after in itertools.pairwise(samples):
        for name, old in before.items():
            new = after[name]
            deltas = [b - a for a, b in zip(old, new, strict=True)]
            cumulative = deltas[:8] + deltas[9:]  # in_flight (field 9) is a gauge
            assert min(cumulative) >= 0, name
            assert deltas[9] <= 10_000, name  # io_ms within the interval
            assert new[10] == new[3] + new[7]  # weighted = read ms + write ms (Linux 5.0+)
            assert deltas[6] == deltas[4] * 2048  # 1 MiB writes: sectors = I/Os x size / 512
            assert 0 <= new[8] <= 10  # in flight: at most ZFS's async write max_active


def test_field_case_1_queues_follow_the_cabling(demo_root: Path) -> None:
    """Single-pathed JBOD-003/012 queue most; the chain of four more than the chain of two."""
    spec = demo_spec()
    figures = _jbod_queue_and_await(demo_root, spec)
    single = [figures[j] for j in ("JBOD-003", "JBOD-012")]
    chain_4 = [figures[j] for j in ("JBOD-001", "JBOD-007")]
    chain_2 = [figures[j] for j in ("JBOD-002", "JBOD-00B")]
    assert min(q for q, _ in single) > 2 * max(q for q, _ in chain_4)
    assert min(q for q, _ in chain_4) > max(q for q, _ in chain_2)
    assert min(w for _, w in single) > 300  # ms: the field's outliers beyond 500 ms
    assert max(w for _, w in chain_2) < min(w for _, w in chain_4)


def test_field_case_1_slow_share_is_larger_in_the_single_pathed_jbods(demo_root: Path) -> None:
    text = (demo_root / "commands/zpool/iostat-w.txt").read_text()
    imported = parse_zpool_histograms(text, "iostat-w.txt")
    leaves = {e.name: e for e in imported.entities if e.name.startswith("wwn-0x")}
    assert len(leaves) == 360
    view = kernel_view(demo_spec())
    jbod_of = {}
    for dev in view.disk_paths():
        if dev.disk_port is not None:
            disk = dev.disk_port.disk
            jbod_of[f"wwn-0x{disk.lu_name:016x}"] = disk.enclosure.name
    share: dict[str, list[float]] = {}
    for name, entity in leaves.items():
        histogram = entity.histograms[HistogramKind.DISK_WAIT_WRITE]
        above = histogram.share_above(0.220)
        assert above is not None
        share.setdefault(jbod_of[name], []).append(above)
    mean = {jbod: sum(v) / len(v) for jbod, v in share.items()}
    assert min(mean["JBOD-003"], mean["JBOD-012"]) > 2 * max(
        mean[j] for j in ("JBOD-001", "JBOD-002", "JBOD-007", "JBOD-00B")
    )


def test_zpool_iostat_w_layout(demo_root: Path) -> None:
    """Scripted, parsable: blank line, vdev name, 37 lines of bound + 11 counts."""
    text = (demo_root / "commands/zpool/iostat-w.txt").read_text()
    assert text.startswith("\n")
    blocks = text[1:].split("\n\n")
    names = []
    for block in blocks:
        lines = block.rstrip("\n").split("\n")
        names.append(lines[0])
        assert len(lines) == 1 + ZFS_BUCKETS
        for j, line in enumerate(lines[1:]):
            cells = line.split("\t")
            assert len(cells) == 12
            assert int(cells[0]) == (1 << (j + 1)) - 1
    assert names[0] == "tank"
    assert names[1] == "mirror-0"
    assert len(names) == 1 + 180 + 360
    imported = parse_zpool_histograms(text, "iostat-w.txt")
    pool = next(e for e in imported.entities if e.kind == StatsEntityKind.POOL)
    assert pool.histograms[HistogramKind.TOTAL_WAIT_WRITE].count > 0
    assert imported.skipped.count == 0


def test_field_case_2_lun_latency_high_while_mostly_idle(
    scenario: Callable[[str], Path],
) -> None:
    root = scenario("san_host")
    series = read_sample_series(SnapshotSource(root, str(root)))
    figures = interval_figures(series[0], series[-1])
    maps = [f for f in figures.devices if f.device.startswith("dm-")]
    assert len(maps) == 3
    for found in maps:
        assert found.w_await > 100  # ms: hundreds of ms per I/O
        assert found.util < 50  # yet busy less than half the time
        assert found.r_s + found.w_s > 500
    paths = [f for f in figures.devices if f.device.startswith("sd")]
    assert len(paths) == 6
    assert all(p.aqu_sz <= 30 for p in paths)  # each path holds at most the LUN queue depth


def _read_p90_ms(spec: HostSpec) -> float:
    """The median over the pool's disks of their disk_wait read p90, in ms."""
    result = _run(spec)
    values = []
    for histograms in result.leaf_histograms.values():
        histogram = LatencyHistogram()
        for j, count in enumerate(histograms.columns["disk_wait/read"]):
            histogram.record_range_ns(1 << j, 1 << (j + 1), count)
        p90 = histogram.percentile_s(90)
        assert p90 is not None
        values.append(p90 * 1000)
    return sorted(values)[len(values) // 2]


def test_field_case_4_deep_queue_slows_reads() -> None:
    deep = load_spec(SPECS / "queue_too_deep.toml")
    data = deep.model_dump(exclude_none=True)
    data["enclosure"][0]["disk"]["queue_depth"] = 2
    shallow = spec_from_data(data)
    deep_p90 = _read_p90_ms(deep)
    shallow_p90 = _read_p90_ms(shallow)
    assert deep_p90 > 100  # the field saw 148 ms at p90
    assert shallow_p90 < 35  # about 12 ms with one or two at a time
    assert deep_p90 > 4 * shallow_p90


@pytest.mark.parametrize(
    ("load", "message"),
    [
        ({"pool": "nope", "iops": 10}, "workload.load[0].pool: unknown pool 'nope'"),
        ({"pool": "tank", "iops": 10, "mbps": 5}, "exactly one of iops or mbps"),
        ({"iops": 10}, "exactly one of pool, enclosures or luns"),
        ({"pool": "tank", "iops": 10, "read_share": 1.5}, "read_share"),
        ({"luns": True, "iops": 10}, "the host has no [[fc_port]]"),
        ({"enclosures": ["JBOD-X"], "iops": 10}, "unknown enclosure 'JBOD-X'"),
    ],
)
def test_spec_rejects_bad_loads(load: dict[str, object], message: str) -> None:
    data = load_spec(SPECS / "zfs_mirror.toml").model_dump(exclude_none=True)
    data["workload"] = {"load": [load]}
    with pytest.raises(SpecError, match=message.replace("[", r"\[").replace("]", r"\]")):
        spec_from_data(data)


@pytest.mark.parametrize(
    ("workload", "message"),
    [
        ({"samples": 1}, "workload.samples"),
        ({"interval_s": 0}, "workload.interval_s"),
        ({"max_utilisation": 1.0}, "workload.max_utilisation"),
        ({"path_policy": "random"}, "workload.path_policy"),
    ],
)
def test_spec_rejects_bad_workload_settings(workload: dict[str, object], message: str) -> None:
    data = load_spec(SPECS / "zfs_mirror.toml").model_dump(exclude_none=True)
    data["workload"] = workload
    with pytest.raises(SpecError, match=message):
        spec_from_data(data)


def test_first_path_policy_leaves_the_second_path_idle() -> None:
    spec = load_spec(SPECS / "zfs_mirror.toml")
    data = spec.model_dump(exclude_none=True)
    data["workload"] = {
        "samples": 3,
        "path_policy": "first",
        "load": [{"pool": "tank", "iops": 50, "io_kib": 64}],
    }
    result = _run(spec_from_data(data))
    loaded = set(result.series)
    view = kernel_view(spec)
    second_paths = {
        d.sd for d in view.disk_paths() if d.disk_port is not None and d.disk_port.io_module == "B"
    }
    assert loaded and not (loaded & second_paths)
