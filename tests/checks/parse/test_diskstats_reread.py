"""A live reader's next read of /proc/diskstats parsed against the read before
(`parse_diskstats_table` with `previous`): the table is the one the whole parse gives, and the
whole parse is the line-by-line one, on generated files and their next reads — counters
moving or not, going back or past 64 bits, devices appearing and vanishing, lines garbled or
cut, mixed layouts, devices left out; and the fast path is taken where it should be."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from pinchpoint.checks.parse.diskstats import (
    ROW,
    DiskstatsTable,
    _table_line_by_line,
    parse_diskstats_table,
)
from pinchpoint.model.stats import ParseSkips

WHEN = datetime(2026, 11, 27, tzinfo=UTC)
NAMES = ["sda", "sda1", "sda2", "sdb", "sdb1", "nvme0n1", "nvme0n1p1", "dm-0", "sr0", "md0"]


def line(major: int, minor: int, name: str, counters: list[int]) -> str:
    """A line as the kernel prints it (`%4d %7d %s %lu …`)."""
    return f"{major:4d} {minor:7d} {name} " + " ".join(map(str, counters))


def parse(
    text: str,
    leave_out: frozenset[str] = frozenset(),
    previous: DiskstatsTable | None = None,
) -> DiskstatsTable:
    return parse_diskstats_table(text.encode(), 1.0, WHEN, leave_out=leave_out, previous=previous,
                                 framed=True)  # fmt: skip


def facts(table: DiskstatsTable) -> tuple[object, ...]:
    return (
        table.names,
        table.numbers,
        table.layouts,
        table.index,
        table.skipped,
        [p.line() for p in table.problems],
    )


def assert_as_whole(
    text: str, leave_out: frozenset[str], previous: DiskstatsTable
) -> DiskstatsTable:
    """The read against `previous` is the whole parse of the same text (its frame too), and
    the whole parse holds what the line-by-line parse reads."""
    again = parse(text, leave_out, previous)
    whole = parse(text, leave_out)
    assert facts(again) == facts(whole)
    assert again.frame == whole.frame
    skips = ParseSkips()
    names, numbers, layouts = _table_line_by_line(text, skips, leave_out)
    assert (whole.names, whole.numbers, whole.layouts) == (names, numbers, layouts)
    assert whole.skipped.count == skips.count
    return again


# --- generated files and their next reads ------------------------------------------------------

COUNTER = st.one_of(
    st.integers(min_value=0, max_value=9), st.integers(min_value=0, max_value=2**64 - 1)
)


ANY_CHANGE = ("same", "same", "moved", "moved", "back", "wide", "bad", "cut", "gone")


@st.composite
def files(
    draw: st.DrawFn, changes: tuple[str, ...] = ANY_CHANGE, appear: bool = True
) -> tuple[list[str], list[str], frozenset[str]]:
    """Two reads of one host: the first a clean file (one layout, or some lines of another),
    the second the same devices with some counters moved, some lines changed otherwise."""
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=len(NAMES), unique=True))
    layout = draw(st.sampled_from([14, 18, 20]))
    mixed = draw(st.booleans())
    first = []
    rows = []
    for number, name in enumerate(names):
        fields = draw(st.sampled_from([14, 18, 20])) if mixed else layout
        counters = draw(st.lists(COUNTER, min_size=fields - 3, max_size=fields - 3))
        rows.append((8, number, name, counters))
        first.append(line(8, number, name, counters))
    second = []
    for major, minor, name, counters in rows:
        change = draw(st.sampled_from(changes))
        moved = [min(c + draw(st.integers(0, 1000)), 2**64 - 1) for c in counters]
        if change == "same":
            second.append(line(major, minor, name, counters))
        elif change == "moved":
            second.append(line(major, minor, name, moved))
        elif change == "back":  # a reset or a wrap: a counter lower than before
            second.append(line(major, minor, name, [0, *counters[1:]]))
        elif change == "wide":  # beyond 64 bits: no kernel prints it
            second.append(line(major, minor, name, [2**64, *counters[1:]]))
        elif change == "bad":
            second.append(line(major, minor, name, moved).replace(" ", " x", 1)[:-1] + "-1")
        elif change == "cut":
            second.append(line(major, minor, name, moved)[: draw(st.integers(0, 30))])
    if appear and draw(st.booleans()):  # a device appears
        at = draw(st.integers(0, len(second)))
        second.insert(at, line(259, 99, "nvme9n1", [5] * (layout - 3)))
    leave_out = frozenset(draw(st.lists(st.sampled_from([*NAMES, "nvme9n1"]), max_size=4)))
    return first, second, leave_out


@settings(max_examples=300, deadline=None)
@given(files())
def test_a_next_read_is_parsed_as_the_whole_file_would_be(
    reads: tuple[list[str], list[str], frozenset[str]],
) -> None:
    first, second, leave_out = reads
    text = "".join(f"{row}\n" for row in first)
    before = parse(text, leave_out)
    after = assert_as_whole("".join(f"{row}\n" for row in second), leave_out, before)
    assert_as_whole(text, leave_out, after)  # and back


@settings(max_examples=200, deadline=None)
@given(files(changes=("same", "moved", "back"), appear=False))
def test_counters_moving_take_the_fast_path(
    reads: tuple[list[str], list[str], frozenset[str]],
) -> None:
    """Where only counters moved (within 64 bits) and the devices kept share one layout, the
    read before is used: its names are the new table's."""
    first, second, leave_out = reads
    before = parse("".join(f"{row}\n" for row in first), leave_out)
    after = assert_as_whole("".join(f"{row}\n" for row in second), leave_out, before)
    if before.frame is not None:
        assert after.names is before.names
    else:  # no frame: the devices kept are of more than one layout
        assert len(set(before.layouts)) > 1


# --- the fast path and its fallbacks -------------------------------------------------------------


def host(reads: int = 0, **seconds: int) -> str:
    """A host of three disks with partitions, after `reads` seconds of work on sda and sdb
    (or as many as `seconds` says for a disk, sdc idle by default)."""
    rows = []
    for minor, name in enumerate(["sda", "sda1", "sdb", "sdb1", "sdc", "sdc1"]):
        grown = seconds.get(name, reads if name in ("sda", "sdb") else 0)
        rows.append(line(8, minor * 16, name, [100 + 7 * grown, 0, 800 + 56 * grown, 30 + grown,
                                                 50, 0, 400, 20, grown % 3, 40 + grown, 60,
                                                 0, 0, 0, 0, 9, 1]))  # fmt: skip
    return "".join(f"{row}\n" for row in rows)


PARTITIONS = frozenset({"sda1", "sdb1", "sdc1"})


def test_the_read_before_is_used_when_the_lines_begin_as_they_did() -> None:
    """The same devices: the table before's names and index are kept (nothing of them parsed
    again), an idle disk keeps its numbers, a busy one's are read."""
    first = parse(host(0), PARTITIONS)
    assert first.frame is not None and first.names == ["sda", "sdb", "sdc"]
    second = assert_as_whole(host(1), PARTITIONS, first)
    assert second.names is first.names and second.index is first.index
    assert second.counters(second.index["sda"])[0] == 107
    idle = second.index["sdc"]
    assert (
        second.numbers[idle * ROW : (idle + 1) * ROW]
        == first.numbers[idle * ROW : (idle + 1) * ROW]
    )
    only_one = assert_as_whole(host(2, sda=1), PARTITIONS, second)
    assert only_one.names is first.names
    assert only_one.counters(only_one.index["sda"])[0] == 107  # as it was, not read again
    assert only_one.counters(only_one.index["sdb"])[0] == 114
    nothing = assert_as_whole(host(2, sda=1), PARTITIONS, only_one)
    assert nothing.names is first.names and nothing.numbers == only_one.numbers


def test_partitions_of_another_layout_still_take_the_fast_path() -> None:
    """Mixed widths: the disks' lines of one layout, their partitions' of another (left out,
    not read past the name) — the table is the line-by-line one, and read against."""
    shorter = "".join(
        row if row.split()[2] not in PARTITIONS else " ".join(row.split()[:14]) + "\n"
        for row in host(0).splitlines(keepends=True)
    )
    first = parse(shorter, PARTITIONS)
    assert first.frame is not None and first.skipped.count == 0
    moved = shorter.replace(" sda 100 0 800 30", " sda 101 0 808 31")
    again = assert_as_whole(moved, PARTITIONS, first)
    assert again.names is first.names and again.counters(0)[:4] == (101, 0, 808, 31)
    # kept, the partitions are read line by line, and no frame is kept for mixed layouts
    assert parse(shorter).frame is None and parse(shorter).layouts == bytes([20, 14] * 3)


def test_a_device_appearing_or_vanishing_reads_the_whole_file() -> None:
    first = parse(host(0), PARTITIONS)
    appeared = host(1) + line(8, 96, "sdd", [1] * 17) + "\n"
    again = assert_as_whole(appeared, PARTITIONS, first)
    assert again.names == ["sda", "sdb", "sdc", "sdd"] and again.names is not first.names
    vanished = "".join(row for row in host(2).splitlines(keepends=True) if " sdb " not in row)
    assert assert_as_whole(vanished, PARTITIONS, again).names == ["sda", "sdc"]
    renamed = host(3).replace(" sdc ", " sdz ")
    assert assert_as_whole(renamed, PARTITIONS, again).names == ["sda", "sdb", "sdz"]


def test_counters_going_back_or_wrapping_are_read_as_they_are() -> None:
    """A counter lower than before (a reset, a 32-bit wrap) is a number like any other: the
    figures judge it, not the parse; one beyond 64 bits is skipped, as the whole parse skips it."""
    first = parse(host(5), PARTITIONS)
    back = assert_as_whole(host(0), PARTITIONS, first)
    assert back.names is first.names and back.counters(0)[0] == 100
    wide = host(6).replace(" sda 142 ", f" sda {2**64} ")
    skipped = assert_as_whole(wide, PARTITIONS, back)
    assert skipped.names == ["sdb", "sdc"] and "64 bits" in skipped.problems[0].reason


def test_garbled_or_cut_lines_read_the_whole_file() -> None:
    first = parse(host(0), PARTITIONS)
    garbled = host(1).replace(" sda 107 0 ", " sda 107 x ")
    bad = assert_as_whole(garbled, PARTITIONS, first)
    assert bad.skipped.count == 1 and bad.names == ["sdb", "sdc"]
    cut = host(1)[:-20]  # a read cut mid-line (a partition's: not read)
    assert assert_as_whole(cut, PARTITIONS, first).problems == []
    cut = host(1)[: host(1).index(" sdc1 ") - 30]  # a disk's line cut: skipped
    assert assert_as_whole(cut, PARTITIONS, first).skipped.count == 1
    longer = host(1).replace(" sdb 107 ", " sdb 107 7 ")  # a field more
    assert assert_as_whole(longer, PARTITIONS, first).names == ["sda", "sdb", "sdc"]
    for mark in (";", "\r", "\x1c"):  # a line mark of either parse: the whole file
        marked = host(1).replace(" sdc1 ", f" sdc1{mark} ")
        assert_as_whole(marked, PARTITIONS, first)


def test_a_garbled_partition_line_is_not_read() -> None:
    """A line left out is not read past its name, by the whole parse (in bulk or line by
    line) as by the read against the one before."""
    first = parse(host(0), PARTITIONS)
    garbled = host(1).replace(" sda1 100 0 800", " sda1 1OO")
    again = assert_as_whole(garbled, PARTITIONS, first)
    assert again.names is first.names and again.problems == []


def test_other_devices_left_out_read_the_whole_file() -> None:
    first = parse(host(0), PARTITIONS)
    fewer = assert_as_whole(host(1), frozenset({"sda1"}), first)
    assert fewer.names == ["sda", "sdb", "sdb1", "sdc", "sdc1"]
