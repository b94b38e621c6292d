"""The raw tables of `parse_diskstats_table`: the same counters as the models, the same figures
as `interval_figures` (real 14-, 18- and 20-field files, wraps, resets, devices coming and going,
bad lines), and the ranking of `stats watch`.

Second samples are the real fixture files with stated deltas added (`grown`); bad input is
written here from their lines (see tests/fixtures/diskstats/SOURCES.md)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from fixture_paths import FIXTURES as ALL_FIXTURES

from pinchpoint.checks.parse.diskstats import (
    ROW,
    DiskstatsTable,
    parse_diskstats,
    parse_diskstats_table,
    table_sample,
)
from pinchpoint.model.problems import ProblemKind
from pinchpoint.model.stats import DeviceFigures, DiskstatsSample
from pinchpoint.stats.iostat import (
    busiest_devices,
    had_io,
    interval_figures,
    is_partition,
    table_interval_figures,
)

FIXTURES = ALL_FIXTURES / "diskstats"
UBUNTU_20 = (FIXTURES / "jc__proc_diskstats_ubuntu_20field.txt").read_text()
NODE_EXPORTER = (FIXTURES / "node_exporter__proc_diskstats.txt").read_text()  # 14, 18, 20
PROCFS = (FIXTURES / "procfs__proc_diskstats.txt").read_text()
SERIES = [
    (FIXTURES / "series" / "samples" / str(n) / "proc" / "diskstats").read_text() for n in range(3)
]
ONLY_14 = "".join(line + "\n" for line in NODE_EXPORTER.splitlines() if len(line.split()) == 14)
WHEN = datetime(2026, 11, 22, tzinfo=UTC)


def table(text: str, at: float = 100.0) -> DiskstatsTable:
    return parse_diskstats_table(text.encode(), at, WHEN)


def sample(text: str, at: float = 100.0) -> DiskstatsSample:
    devices, skipped = parse_diskstats(text)
    return DiskstatsSample(monotonic_s=at, taken_at=WHEN, devices=devices, skipped=skipped)


def grown(text: str, step: int = 1, only: set[str] | None = None) -> str:
    """The file with every counter of every device (or of `only`) grown by an amount of its
    own: position p of line n by step × (n + 1) × (p + 1); in-flight left as it was."""
    lines = []
    for number, line in enumerate(text.splitlines()):
        fields = line.split()
        if fields and (only is None or fields[2] in only):
            for p in range(3, len(fields)):
                if p != 3 + 8:
                    fields[p] = str(int(fields[p]) + step * (number + 1) * (p - 2))
        lines.append(" ".join(fields))
    return "\n".join(lines) + "\n"


def edited(text: str, device: str, **counters: int) -> str:
    """The file with some counters of one device set (by position name: c0 = reads …)."""
    lines = []
    for line in text.splitlines():
        fields = line.split()
        if fields and fields[2] == device:
            for key, value in counters.items():
                fields[3 + int(key[1:])] = str(value)
        lines.append(" ".join(fields))
    return "\n".join(lines) + "\n"


def assert_same_figures(before: str, after: str, seconds: float = 10.0) -> None:
    """The table path gives exactly what `interval_figures` gives on the same two files."""
    expected = interval_figures(sample(before, 100.0), sample(after, 100.0 + seconds))
    first, second = table(before, 100.0), table(after, 100.0 + seconds)
    got = table_interval_figures(first, second)
    assert got.model_dump(exclude={"problems"}) == expected.model_dump(exclude={"problems"})
    skips = [p.line() for p in (*first.problems, *second.problems)]  # a table says what it skipped
    assert got.problems == skips + expected.problems


# --- the same counters as parse_diskstats ----------------------------------------------------


@pytest.mark.parametrize("text", [UBUNTU_20, NODE_EXPORTER, PROCFS, ONLY_14, *SERIES])
def test_table_holds_what_parse_diskstats_reads(text: str) -> None:
    devices, skipped = parse_diskstats(text)
    whole = table_sample(table(text))
    assert [d.model_dump() for d in whole.devices] == [d.model_dump() for d in devices]
    assert whole.skipped == skipped and whole.monotonic_s == 100.0


def test_missing_fields_are_zero_and_the_layout_is_remembered() -> None:
    t = table(NODE_EXPORTER)
    sdb, sda = t.index["sdb"], t.index["sda"]
    assert t.layouts[sdb] == 18 and t.layouts[sda] == 14 and t.layouts[t.index["sdc"]] == 20
    assert t.counters(sda)[11:] == (0,) * 6 and t.counters(sdb)[15:] == (0, 0)
    assert len(t.numbers) == ROW * len(t.names)
    assert table_sample(t).devices[sdb].flushes is None  # absent again as a model


def test_bulk_and_line_by_line_parses_agree() -> None:
    """A blank line sends the file through `parse_diskstats`: same table, same order."""
    for text in (UBUNTU_20, ONLY_14):
        lines = text.splitlines(keepends=True)
        slow = table("".join([*lines[:3], "\n", *lines[3:]]))
        fast = table(text)
        assert (slow.names, slow.numbers, slow.layouts) == (fast.names, fast.numbers, fast.layouts)
        assert slow.problems == fast.problems == []


@pytest.mark.parametrize("text", [UBUNTU_20, NODE_EXPORTER, PROCFS, ONLY_14, *SERIES])
def test_devices_left_out_are_not_in_the_table(text: str) -> None:
    """The live sampler leaves partitions out: the table is the whole one without their rows,
    in bulk and line by line (a blank line sends the file there), and leaving out every
    device or none works too."""
    whole = table(text)
    partitions = frozenset(n for n in whole.names if is_partition(n, set(whole.names)))
    assert partitions  # every fixture has some
    lines = text.splitlines(keepends=True)
    for data in (text, "".join([*lines[:3], "\n", *lines[3:]])):
        kept = parse_diskstats_table(data.encode(), 1.0, WHEN, leave_out=partitions)
        assert kept.names == [n for n in whole.names if n not in partitions]
        assert kept.index == {n: at for at, n in enumerate(kept.names)}
        for name, at in kept.index.items():
            row = whole.index[name]
            assert (
                kept.numbers[at * ROW : (at + 1) * ROW]
                == whole.numbers[row * ROW : (row + 1) * ROW]
            )
            assert kept.layouts[at] == whole.layouts[row]
        assert kept.problems == whole.problems
    nothing = parse_diskstats_table(text.encode(), 1.0, WHEN, leave_out=frozenset(whole.names))
    assert (nothing.names, len(nothing.numbers), nothing.layouts) == ([], 0, b"")
    unknown = parse_diskstats_table(text.encode(), 1.0, WHEN, leave_out=frozenset({"nvme9n9"}))
    assert (unknown.names, unknown.numbers) == (whole.names, whole.numbers)


def test_a_bad_number_in_a_line_left_out_is_not_read() -> None:
    """Only the kept lines' numbers are read: a garbled partition line does not send the file
    line by line, and a garbled kept line still does."""
    lines = [line for line in UBUNTU_20.splitlines(keepends=True) if line.strip()]  # bulk
    name = lines[1].split()[2]
    bad = [lines[0], lines[1].replace(" 0 ", " -0 ", 1), *lines[2:]]
    t = parse_diskstats_table("".join(bad).encode(), 1.0, WHEN, leave_out=frozenset({name}))
    assert name not in t.names and t.problems == [] and len(t.names) == 14
    kept = parse_diskstats_table("".join(bad).encode(), 1.0, WHEN)
    assert kept.skipped.count == 1 and name not in kept.names


# --- the same figures as interval_figures ----------------------------------------------------


@pytest.mark.parametrize("text", [UBUNTU_20, NODE_EXPORTER, PROCFS, ONLY_14])
def test_figures_equal_interval_figures_for_real_layouts(text: str) -> None:
    assert_same_figures(text, grown(text))
    assert_same_figures(text, grown(text, 7, only={"sda", "sdb", "sdc", "dm-0"}), 0.37)


def test_figures_of_the_real_series_equal_interval_figures() -> None:
    assert_same_figures(SERIES[0], SERIES[1])
    assert_same_figures(SERIES[1], SERIES[2], 10.05)
    figures = table_interval_figures(table(SERIES[0], 0.0), table(SERIES[1], 10.0))
    sda = next(f for f in figures.devices if f.device == "sda")
    assert sda.r_s == 120.0 and sda.util == 95.0  # the deltas stated in SOURCES.md


def test_figures_across_wraps_and_resets_equal_interval_figures() -> None:
    after = grown(UBUNTU_20, 3)
    wrapped = edited(UBUNTU_20, "sda", c3=2**32 - 10, c9=2**32 - 5, c10=2**32 - 1)  # times
    wrapped = edited(wrapped, "sda1", c0=2**32 - 2)  # a 32-bit count
    reset = edited(after, "sda2", c0=1, c2=8, c4=1, c6=8, c11=0, c13=0, c15=0)  # all went down
    went_back = edited(reset, "sda3", c9=1)  # busy time back, not wrapped
    assert_same_figures(wrapped, went_back)
    figures = table_interval_figures(table(wrapped, 0.0), table(went_back, 10.0))
    by_name = {f.device: f for f in figures.devices}
    assert by_name["sda2"].reset and by_name["sda2"].r_s == 0.0
    assert not by_name["sda"].reset and by_name["sda"].util < 100
    assert by_name["sda3"].util == 0.0
    assert any("sda2" in p and "went backwards" in p for p in figures.problems)
    assert all(getattr(f, name) >= 0 for f in figures.devices for name in DeviceFigures.model_fields
               if name not in ("device", "reset"))  # fmt: skip


def test_devices_appearing_and_vanishing_equal_interval_figures() -> None:
    lines = UBUNTU_20.splitlines(keepends=True)
    before = "".join(line for line in lines if " dm-0 " not in line)
    after = "".join(
        line for line in grown(UBUNTU_20).splitlines(keepends=True) if " sr0 " not in line
    )
    assert_same_figures(before, after)
    figures = table_interval_figures(table(before, 0.0), table(after, 1.0))
    assert figures.appeared == ["dm-0"] and figures.vanished == ["sr0"]


def test_malformed_lines_equal_interval_figures() -> None:
    bad = "   8 0 sdz 1 2 3\n8 16 sdy 1 x 3 4 5 6 7 8 9 10 11\n\x00\xff garbage\n"
    before = UBUNTU_20 + bad
    after = bad + grown(UBUNTU_20) + "8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n"  # sda twice
    assert_same_figures(before, after)
    t = table(after)
    assert t.skipped.count == 4 and len(t.names) == 15
    assert t.problems[0].kind is ProblemKind.GARBLED and "4 lines skipped" in t.problems[0].reason


def test_figures_for_chosen_devices_in_their_order() -> None:
    figures = table_interval_figures(
        table(UBUNTU_20, 0.0), table(grown(UBUNTU_20), 2.0), ["sda", "nope", "loop0"]
    )
    assert [f.device for f in figures.devices] == ["sda", "loop0"]  # unknown names left out


@pytest.mark.parametrize("later", [100.0, 99.0])
def test_zero_or_negative_interval_gives_no_rates(later: float) -> None:
    before, after = table(UBUNTU_20, 100.0), table(grown(UBUNTU_20), later)
    figures = table_interval_figures(before, after)
    assert figures.devices == [] and "not later than the first" in figures.problems[0]
    assert busiest_devices(before, after) == []


# --- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "skipped", "reason"),
    [
        (b"", 0, "empty file"),
        (b"\n \n", 0, "empty file"),
        (b"\x00\x01\xff\xfe" * 40, 1, "expected 14, 18 or 20 fields"),
        (UBUNTU_20.encode()[:-30], 1, "1 line skipped"),  # cut mid-line
        (UBUNTU_20.encode() + b"8 0 sdq" + b" 1" * 16 + b" 18446744073709551616\n", 1, "64 bits"),
        (UBUNTU_20.encode() + b"8 0 sd\x01q" + b" 1" * 17 + b"\n", 1, "unprintable"),
        (UBUNTU_20.encode().replace(b" sr0 ", b" sda "), 1, "listed twice"),
        (UBUNTU_20.encode() + UBUNTU_20.encode()[: UBUNTU_20.index("\n") + 1], 1, "listed twice"),
        (UBUNTU_20.encode().replace(b" sr0 ", b" sr0 -"), 1, "non-negative whole"),
        (UBUNTU_20.encode().replace(b"\n", b"\r\n"), 0, None),  # CRLF: only blank lines between
    ],
)
def test_bad_input_is_skipped_with_a_message(data: bytes, skipped: int, reason: str | None) -> None:
    t = parse_diskstats_table(data, 1.0, WHEN)
    assert t.skipped.count == skipped
    if reason is None:
        assert t.problems == [] and len(t.names) == 15
    else:
        assert len(t.problems) == 1 and reason in t.problems[0].reason
        assert t.problems[0].subject == "/proc/diskstats"
    assert len(t.numbers) == ROW * len(t.names) == ROW * len(t.index)
    # the rest still works: figures against a good table, never negative
    figures = table_interval_figures(table(UBUNTU_20, 0.0), t)
    assert all(f.r_s >= 0 and f.util >= 0 for f in figures.devices)


def test_a_separator_like_name_does_not_fool_the_bulk_parse() -> None:
    """`;` is the bulk parse's line mark: a device named so goes line by line, and is kept."""
    t = table(UBUNTU_20.replace(" sr0 ", " ; "))
    assert ";" in t.names and t.problems == [] and len(t.names) == 15


# --- ranking -----------------------------------------------------------------------------------


def reference_order(before: str, after: str, *, partitions: bool = False) -> list[str]:
    """The order `stats watch` used to show, from every device's figures."""
    figures = interval_figures(sample(before, 0.0), sample(after, 10.0))
    names = {f.device for f in figures.devices}
    devices = [
        f
        for f in figures.devices
        if (partitions or not is_partition(f.device, names)) and (had_io(f) or f.reset)
    ]
    devices.sort(key=lambda d: (d.util, d.r_s + d.w_s + d.d_s + d.f_s), reverse=True)
    return [d.device for d in devices]


@pytest.mark.parametrize("text", [UBUNTU_20, NODE_EXPORTER, PROCFS])
def test_ranking_is_the_order_of_the_figures(text: str) -> None:
    after = grown(text, 5, only={"sda", "sda1", "sdb", "sdc", "dm-0", "loop1", "nvme0n1"})
    after = edited(after, "dm-0", c9=int(next(
        line.split()[12] for line in after.splitlines() if " dm-0 " in line)) + 9000)  # fmt: skip
    for partitions in (False, True):
        expected = reference_order(text, after, partitions=partitions)
        got = busiest_devices(table(text, 0.0), table(after, 10.0), partitions=partitions)
        assert got == expected and got
    expected = reference_order(text, after)
    assert busiest_devices(table(text, 0.0), table(after, 10.0), 2) == expected[:2]


def test_wraps_and_resets_rank_sanely() -> None:
    before = edited(UBUNTU_20, "sda", c9=2**32 - 100)  # busy wraps: 100 + 2,000 ms
    after = edited(grown(UBUNTU_20, only={"loop0"}), "sda", c0=14300, c9=2000)
    after = edited(after, "sr0", c0=0, c2=0)  # reads reset
    after = edited(after, "dm-0", c9=1, c0=20000)  # busy back, not wrapped: 0 busy
    got = busiest_devices(table(before, 0.0), table(after, 10.0))
    assert got == reference_order(before, after)
    assert got == ["sda", "loop0", "dm-0", "sr0"]  # sr0, reset, last


def test_ranking_with_devices_appearing_and_vanishing() -> None:
    before = "".join(UBUNTU_20.splitlines(keepends=True)[1:])  # loop0 appears
    after = grown(UBUNTU_20, only={"sda", "loop0", "dm-0"}).replace(" sr0 ", " sr1 ")
    got = busiest_devices(table(before, 0.0), table(after, 10.0))
    assert got == reference_order(before, after) and set(got) == {"sda", "dm-0"}
