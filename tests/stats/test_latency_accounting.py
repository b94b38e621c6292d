"""The latency accounting the latency and queue rules share (`pinchpoint.stats.latency`,
`pinchpoint.stats.queue_samples`, `pinchpoint.stats.disk_names`): a disk is the sum of its
paths, a figure that is not a number is left out, a write-back disk counts its reads alone."""

from __future__ import annotations

import pytest

from pinchpoint.model.inventory import HostInfo, Inventory, SourceKind
from pinchpoint.model.sas import Disk, DiskPath, SasFabric
from pinchpoint.model.stats import DeviceFigures, IntervalFigures, Metric, StatPoint
from pinchpoint.stats.disk_names import DiskNames
from pinchpoint.stats.latency import (
    DeviceLatency,
    add_series,
    device_latencies,
    disk_latencies,
)
from pinchpoint.stats.queue_samples import disk_queue_samples, series_samples

NAN = float("nan")


def two_path_disk() -> Disk:
    paths = [
        DiskPath(id=f"path:{dev}", hba_id="hba:1", hctl=f"0:0:{n}:0", block_device=dev)
        for n, dev in enumerate(("sdb", "sdc"))
    ]
    return Disk(id="disk:1", wwid="naa.5000cca2aabbccdd", paths=paths, hba_ports=2)


def figures(device: str, **values: float) -> DeviceFigures:
    return DeviceFigures.model_validate({"device": device, **values})


def test_a_disk_is_the_sum_of_its_paths() -> None:
    interval = IntervalFigures(
        interval_s=10.0,
        devices=[
            figures("sdb", r_s=10.0, r_await=4.0, rkb_s=80.0),
            figures("sdc", r_s=30.0, r_await=8.0, rkb_s=240.0, w_s=5.0, w_await=2.0),
        ],
    )
    (latency,) = disk_latencies([two_path_disk()], [interval]).values()
    assert (latency.reads, latency.writes, latency.seconds) == (400.0, 50.0, 10.0)
    assert latency.mean("read") == pytest.approx((7.0, 40.0))  # I/O-weighted
    assert latency.totals("read")[2] == 3200.0


def test_a_direction_that_is_not_a_number_is_left_out() -> None:
    interval = IntervalFigures(
        interval_s=10.0, devices=[figures("dm-0", r_s=5.0, r_await=NAN, w_s=2.0, w_await=3.0)]
    )
    (latency,) = device_latencies({"dm-0": "lun:1"}, [interval]).values()
    assert latency.mean("read") is None
    assert latency.mean("write") == pytest.approx((3.0, 2.0))


def test_an_imported_series_adds_up_per_interval() -> None:
    points = [
        StatPoint(interval_s=60.0, values={Metric.READ_IOPS: 10.0, Metric.READ_LATENCY_MS: 5.0}),
        StatPoint(interval_s=60.0, values={Metric.READ_IOPS: 30.0, Metric.READ_LATENCY_MS: 9.0}),
    ]
    mean = DeviceLatency()
    add_series(mean, points)
    assert mean.mean("read") == pytest.approx((8.0, 20.0))


def test_a_write_back_disk_is_sampled_on_its_reads() -> None:
    interval = IntervalFigures(
        interval_s=5.0,
        devices=[
            figures("sdb", r_s=10.0, r_await=20.0, w_s=90.0, w_await=200.0, aqu_sz=4.0),
            figures("sdc", r_s=10.0, r_await=20.0, w_s=90.0, w_await=200.0, aqu_sz=4.0),
        ],
    )
    disk = two_path_disk()
    (everything,) = disk_queue_samples([disk], [interval], frozenset())[disk.id]
    (reads,) = disk_queue_samples([disk], [interval], frozenset({disk.id}))[disk.id]
    assert (everything.iops, everything.latency_ms, everything.queue) == (200.0, 182.0, 8.0)
    assert (reads.iops, reads.latency_ms, reads.queue) == (20.0, 20.0, 8.0)


def test_an_imported_volume_needs_a_queue_to_be_sampled() -> None:
    with_queue = StatPoint(
        interval_s=1.0,
        values={Metric.READ_IOPS: 100.0, Metric.READ_LATENCY_MS: 30.0, Metric.QUEUE: 3.0},
    )
    without = StatPoint(interval_s=1.0, values={Metric.READ_IOPS: 100.0})
    (sample,) = series_samples([with_queue, without])
    assert (sample.iops, sample.latency_ms, sample.queue, sample.io_kb) == (100.0, 30.0, 3.0, None)


def test_disk_names_find_a_disk_by_path_partition_and_wwn() -> None:
    inventory = Inventory(
        host=HostInfo(source=SourceKind.SNAPSHOT), sas=SasFabric(disks=[two_path_disk()])
    )
    names = DiskNames(inventory)
    for name in ("sdb", "sdc1", "/dev/sdb1", "wwn-0x5000cca2aabbccdd-part1"):
        assert names.disk_id(name) == "disk:1", name
    assert names.disk_id("sdz") is None
