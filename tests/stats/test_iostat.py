"""`interval_figures` by hand from sysstat's formulas, and every awkward interval: zero and
negative lengths, counters going backwards or wrapping, devices appearing and vanishing,
a sample without its clock. (The comparison with the real iostat is test_iostat_exact.py.)"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from pinchpoint.checks.parse.diskstats import parse_diskstats
from pinchpoint.model.stats import DiskstatsSample
from pinchpoint.stats.iostat import (
    had_io,
    interval_figures,
    is_partition,
    series_figures,
    whole_devices,
)

# sda: 20-field line; sdb: 14-field line
BEFORE = """\
   8       0 sda 1000 100 80000 4000 2000 500 160000 10000 1 30000 20000 10 2 2048 30 50 100
   8       1 sda1 1000 100 80000 4000 2000 500 160000 10000 1 30000 20000 0 0 0 0 0 0
   8      16 sdb 500 0 4000 100 0 0 0 0 0 200 100
"""
AFTER = """\
   8       0 sda 1600 160 128000 5800 2900 800 232000 14500 3 37500 29000 14 3 3072 38 62 130
   8       1 sda1 1600 160 128000 5800 2900 800 232000 14500 3 37500 29000 0 0 0 0 0 0
   8      16 sdb 500 0 4000 100 0 0 0 0 0 200 100
"""


def sample(text: str, uptime_s: float | None = None, **clock: float) -> DiskstatsSample:
    devices, _ = parse_diskstats(text)
    return DiskstatsSample(uptime_s=uptime_s, devices=devices, **clock)


def test_figures_by_hand_from_sysstats_formulas() -> None:
    figures = interval_figures(sample(BEFORE, 100.00), sample(AFTER, 110.00))
    assert figures.interval_s == 10.0 and figures.problems == []
    sda = next(f for f in figures.devices if f.device == "sda")
    # 600 reads, 60 merged, 48,000 sectors, 1,800 ms in 10 s
    assert sda.r_s == 60.0 and sda.rrqm_s == 6.0
    assert sda.rkb_s == 2400.0  # 48,000 sectors * 512 B / 1024 / 10 s
    assert sda.rrqm_pct == pytest.approx(60 / 660 * 100)
    assert sda.r_await == 3.0 and sda.rareq_sz == 40.0  # 80 sectors = 40 kB per read
    # 900 writes, 300 merged, 72,000 sectors, 4,500 ms
    assert sda.w_s == 90.0 and sda.wkb_s == 3600.0 and sda.w_await == 5.0 and sda.wareq_sz == 40.0
    assert sda.wrqm_pct == pytest.approx(25.0)
    # 4 discards of 1,024 sectors in 8 ms; 12 flushes in 30 ms
    assert sda.d_s == 0.4 and sda.dkb_s == 51.2 and sda.d_await == 2.0 and sda.dareq_sz == 128.0
    assert sda.drqm_pct == pytest.approx(20.0)
    assert sda.f_s == 1.2 and sda.f_await == 2.5  # flushes alone, not in w_await
    assert sda.aqu_sz == 0.9  # 9,000 weighted ms over 10,000 ms
    assert sda.util == 75.0 and sda.idle == 25.0  # 7,500 busy ms over 10,000 ms
    assert not sda.reset


def test_json_keys_are_sysstats() -> None:
    figures = interval_figures(sample(BEFORE, 100.0), sample(AFTER, 110.0))
    keys = set(figures.devices[0].model_dump(by_alias=True))
    assert {"r/s", "w/s", "d/s", "f/s", "rkB/s", "wkB/s", "dkB/s", "rrqm/s", "wrqm/s"} <= keys
    assert {"rrqm", "wrqm", "drqm", "r_await", "w_await", "d_await", "f_await"} <= keys
    assert {"rareq-sz", "wareq-sz", "dareq-sz", "aqu-sz", "util", "idle", "reset"} <= keys


def test_14_field_device_without_io_has_zero_figures() -> None:
    figures = interval_figures(sample(BEFORE, 100.0), sample(AFTER, 110.0))
    sdb = next(f for f in figures.devices if f.device == "sdb")
    assert not had_io(sdb) and sdb.r_await == 0.0 and sdb.util == 0.0 and sdb.idle == 100.0


def test_partitions_are_figured_and_told_apart() -> None:
    figures = interval_figures(sample(BEFORE, 100.0), sample(AFTER, 110.0))
    assert [f.device for f in figures.devices] == ["sda", "sda1", "sdb"]
    assert [f.device for f in whole_devices(figures)] == ["sda", "sdb"]
    names = {"sda", "sda1", "nvme0n1", "nvme0n1p2", "dm-1", "dm-10", "md0", "md0p1", "mmcblk0"}
    assert is_partition("sda1", names) and is_partition("nvme0n1p2", names)
    assert is_partition("md0p1", names)
    assert not is_partition("dm-10", names)  # a map of its own, not a partition of dm-1
    assert not is_partition("sda", names) and not is_partition("mmcblk0", names)
    assert not is_partition("sdb1", names)  # no sdb in the sample


def test_interval_from_monotonic_clock_when_live() -> None:
    figures = interval_figures(sample(BEFORE, monotonic_s=5.0), sample(AFTER, monotonic_s=15.0))
    assert figures.interval_s == 10.0 and figures.devices[0].r_s == 60.0


def test_uptime_is_read_in_hundredths_as_sysstat_does() -> None:
    figures = interval_figures(sample(BEFORE, 100.004), sample(AFTER, 110.006))
    assert figures.interval_s == 10.01


def test_missing_uptime_in_one_sample_falls_back_to_capture_times() -> None:
    start = datetime(2026, 11, 22, tzinfo=UTC)
    before = sample(BEFORE, 100.0)
    before.taken_at = start
    after = sample(AFTER, None)
    after.taken_at = start + timedelta(seconds=20)
    figures = interval_figures(before, after)
    assert figures.interval_s == 20.0 and figures.devices[0].r_s == 30.0


def test_missing_uptime_and_no_other_clock_is_a_problem() -> None:
    figures = interval_figures(sample(BEFORE, 100.0), sample(AFTER, None))
    assert figures.devices == [] and figures.interval_s == 0.0
    assert figures.problems == [
        "no interval: the second sample has no clock (no proc/uptime, no capture time)"
    ]


@pytest.mark.parametrize("later", [100.0, 90.0])
def test_zero_or_negative_interval_is_a_problem_not_a_division(later: float) -> None:
    figures = interval_figures(sample(BEFORE, 100.0), sample(AFTER, later))
    assert figures.devices == []
    assert len(figures.problems) == 1 and "not later than the first" in figures.problems[0]


def test_counters_going_backwards_are_a_reset_with_zero_figures() -> None:
    figures = interval_figures(sample(AFTER, 100.0), sample(BEFORE, 110.0))
    assert all(f.reset for f in figures.devices if f.device != "sdb")
    sda = figures.devices[0]
    assert sda.r_s == 0.0 and sda.util == 0.0 and sda.aqu_sz == 0.0
    assert any("counters went backwards" in p and "sda" in p for p in figures.problems)


def test_one_count_going_back_without_a_possible_wrap_is_a_reset() -> None:
    """64-bit reads far from 2^64 cannot wrap: never a negative or absurd rate."""
    before = "8 0 sda 5000000000 0 8000 10 0 0 0 0 0 10 10\n"
    after = "8 0 sda 4999999000 0 9000 20 0 0 0 0 0 20 20\n"
    figures = interval_figures(sample(before, 1.0), sample(after, 2.0))
    assert figures.devices[0].reset and figures.devices[0].r_s == 0.0


def test_32_bit_count_wrap() -> None:
    """A 32-bit kernel's reads passing 2^32: 96 + 10 reads, not a reset."""
    before = f"8 0 sda {2**32 - 96} 0 8000 10 0 0 0 0 0 10 10\n"
    after = "8 0 sda 10 0 8848 116 0 0 0 0 0 20 20\n"
    sda = interval_figures(sample(before, 1.0), sample(after, 2.0)).devices[0]
    assert not sda.reset and sda.r_s == 106.0 and sda.r_await == 1.0 and sda.rareq_sz == 4.0


def test_32_bit_time_wrap_of_a_deep_queue() -> None:
    before = f"8 0 sda 0 0 0 0 0 0 0 0 0 0 {2**32 - 500}\n"
    after = "8 0 sda 0 0 0 0 1 0 8 0 0 0 1500\n"
    sda = interval_figures(sample(before, 1.0), sample(after, 2.0)).devices[0]
    assert sda.aqu_sz == 2.0 and not sda.reset


def test_busy_counter_back_but_not_wrapped_gives_zero_util() -> None:
    before = "8 0 sda 10 0 80 10 0 0 0 0 0 9000 10\n"
    after = "8 0 sda 20 0 160 20 0 0 0 0 0 8000 20\n"
    sda = interval_figures(sample(before, 1.0), sample(after, 2.0)).devices[0]
    assert sda.util == 0.0 and sda.idle == 100.0 and sda.r_s == 10.0


def test_devices_appearing_and_vanishing() -> None:
    before = BEFORE + "   8      32 sdc 1 0 8 1 0 0 0 0 0 1 1\n"
    after = AFTER + "   8      48 sdd 1 0 8 1 0 0 0 0 0 1 1\n"
    figures = interval_figures(sample(before, 1.0), sample(after, 11.0))
    assert figures.appeared == ["sdd"] and figures.vanished == ["sdc"]
    assert {f.device for f in figures.devices} == {"sda", "sda1", "sdb"}


def test_sample_problems_travel_with_the_interval() -> None:
    before = sample(BEFORE, 1.0)
    after = DiskstatsSample(uptime_s=2.0)  # its diskstats could not be read
    from pinchpoint.model.problems import CollectionProblem, ProblemKind

    after.problems.append(
        CollectionProblem(
            part="diskstats", subject="/proc/diskstats", kind=ProblemKind.MISSING, reason="gone"
        )
    )
    figures = interval_figures(before, after)
    assert figures.devices == [] and figures.vanished == ["sda", "sda1", "sdb"]
    assert figures.problems == ["diskstats: /proc/diskstats: gone"]


def test_series_figures_pairs_consecutive_samples() -> None:
    samples = [sample(BEFORE, 1.0), sample(AFTER, 11.0), sample(AFTER, 21.0)]
    intervals = series_figures(samples)
    assert len(intervals) == 2
    assert intervals[0].devices[0].r_s == 60.0 and intervals[1].devices[0].r_s == 0.0
    assert series_figures(samples[:1]) == []
