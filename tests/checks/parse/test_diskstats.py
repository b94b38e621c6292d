"""Parsing /proc/diskstats: the real 14-, 18- and 20-field layouts field by field, a
`/sys/block/<dev>/stat` file, and every kind of bad input (skipped with a count and the first
example, the rest stands)."""

from __future__ import annotations

import pytest
from fixture_paths import FIXTURES as ALL_FIXTURES

from pinchpoint.checks.parse.diskstats import DiskstatsParseError, parse_block_stat, parse_diskstats
from pinchpoint.model.stats import DiskstatsCounters

FIXTURES = ALL_FIXTURES / "diskstats"
UBUNTU_20 = FIXTURES / "jc__proc_diskstats_ubuntu_20field.txt"
NODE_EXPORTER = FIXTURES / "node_exporter__proc_diskstats.txt"
PROCFS = FIXTURES / "procfs__proc_diskstats.txt"


def by_name(text: str) -> dict[str, DiskstatsCounters]:
    devices, skips = parse_diskstats(text)
    assert skips.count == 0, skips.summary()
    return {d.device: d for d in devices}


# --- the real layouts, field by field --------------------------------------------------------


def test_20_field_line_of_a_real_ubuntu_vm() -> None:
    devices = by_name(UBUNTU_20.read_text())
    assert len(devices) == 15
    assert devices["sda"].model_dump() == {
        "major": 8,
        "minor": 0,
        "device": "sda",
        "reads": 14200,
        "reads_merged": 3361,
        "sectors_read": 892828,
        "read_ms": 5058,
        "writes": 18736,
        "writes_merged": 13416,
        "sectors_written": 715384,
        "write_ms": 12604,
        "in_flight": 0,
        "io_ms": 24940,
        "weighted_ms": 17663,
        "discards": 0,
        "discards_merged": 0,
        "sectors_discarded": 0,
        "discard_ms": 0,
        "flushes": 0,
        "flush_ms": 0,
        "field_count": 20,
    }
    assert (devices["dm-0"].major, devices["dm-0"].minor, devices["dm-0"].writes) == (253, 0, 31994)


def test_14_field_line_has_no_discard_or_flush_counters() -> None:
    vda = by_name(NODE_EXPORTER.read_text())["vda"]
    assert vda.field_count == 14
    assert (vda.major, vda.minor) == (254, 0)
    assert (vda.reads, vda.reads_merged, vda.sectors_read, vda.read_ms) == (
        1775784,
        15386,
        32670882,
        8655768,
    )
    assert (vda.writes, vda.writes_merged, vda.sectors_written, vda.write_ms) == (
        6038856,
        20711856,
        213637440,
        2069221364,
    )
    assert (vda.in_flight, vda.io_ms, vda.weighted_ms) == (0, 41614592, 2077872228)
    assert vda.discards is None and vda.sectors_discarded is None and vda.flushes is None


def test_18_field_line_adds_discards() -> None:
    sdb = by_name(NODE_EXPORTER.read_text())["sdb"]
    assert sdb.field_count == 18
    assert (sdb.discards, sdb.discards_merged, sdb.sectors_discarded, sdb.discard_ms) == (
        68851,
        0,
        1925173784,
        11130,
    )
    assert sdb.flushes is None and sdb.flush_ms is None


def test_20_field_line_adds_flushes() -> None:
    sdc = by_name(NODE_EXPORTER.read_text())["sdc"]
    assert sdc.field_count == 20
    assert (sdc.reads, sdc.io_ms, sdc.weighted_ms) == (126552, 10730, 17070)
    assert (sdc.discards, sdc.sectors_discarded) == (18851, 125173784)
    assert (sdc.flushes, sdc.flush_ms) == (1555, 1944)
    procfs_sdc = by_name(PROCFS.read_text())["sdc"]
    assert (procfs_sdc.flushes, procfs_sdc.flush_ms) == (127, 182)


def test_every_line_of_the_mixed_captures_is_read() -> None:
    layouts = {d.field_count for d in by_name(NODE_EXPORTER.read_text()).values()}
    assert layouts == {14, 18, 20}
    assert len(by_name(NODE_EXPORTER.read_text())) == 51


def test_block_stat_file_is_a_line_without_its_names() -> None:
    line = UBUNTU_20.read_text().splitlines()[8]  # sda
    stat = " ".join(line.split()[3:])
    counters = parse_block_stat("sda", f"    {stat}\n", major=8, minor=0)
    assert counters == by_name(UBUNTU_20.read_text())["sda"]
    eleven = parse_block_stat(
        "vda",
        "1775784 15386 32670882 8655768 6038856 20711856 "
        "213637440 2069221364 0 41614592 2077872228",
    )
    assert eleven.field_count == 14 and eleven.weighted_ms == 2077872228


@pytest.mark.parametrize(
    "text",
    [
        "",
        "1 2 3",
        "1 2 3 4 5 6 7 8 9 10 11 12",
        "1 2 x 4 5 6 7 8 9 10 11",
        "1 -2 3 4 5 6 7 8 9 10 11",
    ],
)
def test_block_stat_that_does_not_read_says_why(text: str) -> None:
    with pytest.raises(DiskstatsParseError, match="sdq"):
        parse_block_stat("sdq", text)


# --- bad input: skipped with a count and the first example, the rest stands ------------------


def test_truncated_line_is_skipped_and_the_rest_kept() -> None:
    lines = UBUNTU_20.read_text().splitlines()
    lines[8] = lines[8][:50]  # sda cut short, as by a truncated copy
    devices, skips = parse_diskstats("\n".join(lines))
    assert "sda" not in {d.device for d in devices}
    assert len(devices) == 14
    assert skips.count == 1 and skips.first_line_number == 9
    assert skips.first_reason is not None and "expected 14, 18 or 20 fields" in skips.first_reason
    assert skips.summary() is not None and "sda 14200" in skips.summary()  # type: ignore[operator]


def test_garbled_numbers_are_skipped() -> None:
    lines = UBUNTU_20.read_text().splitlines()
    lines[0] = lines[0].replace(" 718 ", " 7l8 ")  # a letter in a counter
    lines[1] = lines[1].replace(" 688 ", " -688 ")  # a sign
    lines[2] = lines[2].replace(" 2956 ", " 2_956 ")  # what int() would accept
    devices, skips = parse_diskstats("\n".join(lines))
    assert skips.count == 3
    assert skips.first_reason == "a counter is not a non-negative whole number"
    assert {"loop0", "loop1", "loop2"}.isdisjoint(d.device for d in devices)
    assert "sda" in {d.device for d in devices}


def test_binary_junk_is_skipped() -> None:
    junk = b"\x00\x01\x02\xff\xfe garbage \x89PNG\r\n\x1a\n".decode("utf-8", errors="replace")
    text = junk + "\n" + UBUNTU_20.read_text() + "\x00" * 40 + "\n"
    devices, skips = parse_diskstats(text)
    assert len(devices) == 15
    assert skips.count >= 2


def test_unprintable_device_name_is_skipped() -> None:
    devices, skips = parse_diskstats("8 0 sd\x07a 1 2 3 4 5 6 7 8 9 10 11\n")
    assert devices == [] and skips.first_reason == "device name holds unprintable characters"


def test_empty_file_gives_no_devices_and_no_skips() -> None:
    assert parse_diskstats("") == ([], parse_diskstats("")[1])
    devices, skips = parse_diskstats("\n\n  \n")
    assert devices == [] and skips.count == 0


def test_old_kernel_partition_line_is_skipped_with_its_reason() -> None:
    devices, skips = parse_diskstats(
        "   3    1 hda1 35486 38030 38030 38030\n" + UBUNTU_20.read_text()
    )
    assert len(devices) == 15
    assert skips.first_reason is not None and "before 2.6.25" in skips.first_reason


def test_device_listed_twice_keeps_the_first() -> None:
    text = UBUNTU_20.read_text()
    devices, skips = parse_diskstats(text + text.splitlines()[8].replace("14200", "1") + "\n")
    assert next(d for d in devices if d.device == "sda").reads == 14200
    assert skips.count == 1 and "listed twice" in (skips.first_reason or "")


def test_a_line_between_the_layouts_is_read_as_sysstat_reads_it() -> None:
    """17 fields (3 + 14 counters), as some older kernels write for some devices: sysstat reads
    the 11 counters of the 14-field layout and ignores the rest; so does pinchpoint (it used to
    skip the line)."""
    text = "   8       0 sdz 100 2 800 40 50 1 400 30 0 60 70 9 9 9\n"
    devices, skips = parse_diskstats(text)
    assert skips.count == 0
    (sdz,) = devices
    assert (sdz.reads, sdz.sectors_read, sdz.writes, sdz.io_ms, sdz.weighted_ms) == (
        100,
        800,
        50,
        60,
        70,
    )
    assert sdz.discards is None and sdz.flushes is None  # the 14-field layout has none
