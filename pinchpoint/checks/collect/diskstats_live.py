"""The live diskstats sampler: `/proc/diskstats` read every second into a compact raw table.

Sampling 2,000 devices once a second must cost at most 2% of a core (20 ms), about 10 µs a
device on the project's VM: no pydantic object per device, no figures per device. So each tick
reads the file with one `os.read` loop, parses it in bulk into a `DiskstatsTable` (the names,
and one flat unsigned 64-bit array of 19 numbers per device: major, minor, then the 17 counters
in the kernel's order, those a layout lacks as 0) and keeps the previous table. What to show is
ranked over whole columns of two tables, and `iostat -x` figures are computed only for the
devices looked at (`pinchpoint.stats.iostat.busiest_devices` and `table_interval_figures`), as
node_exporter exports raw counters and leaves rates to query time. `table_sample` gives the
usual `DiskstatsSample` when a caller wants every device as models (to store it).

`check` and `stats show` read a snapshot's series of samples (`samples/<n>/proc/diskstats`) into
the same tables (`read_table_series`): seven samples of 5,760 devices as models were 40,000
pydantic objects, where the figures need only the whole devices' counters.

The bulk parse takes a file whose every line has the same 14, 18 or 20 fields, all numbers
but the name, ASCII names, no device twice (every real kernel since 2.6.25). Anything else goes
through `parse_diskstats` line by line, with its rules: a bad line is skipped and counted, the
rest stands. One rule is added: a counter beyond 64 bits (no kernel prints one) skips its line.
"""

from __future__ import annotations

import os
import time
from array import array
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from operator import itemgetter

from pinchpoint.checks.collect.diskstats import (
    DISKSTATS,
    PART,
    _counters,
    captured_at,
    parse_diskstats,
    read_or_note,
    read_uptime,
    sample_roots,
)
from pinchpoint.checks.source import Source
from pinchpoint.checks.source.sysfs import ProblemLog
from pinchpoint.model.problems import CollectionProblem, ProblemKind
from pinchpoint.model.stats import (
    DISKSTATS_COUNTER_FIELDS,
    DiskstatsCounters,
    DiskstatsSample,
    ParseSkips,
)

__all__ = [
    "COUNTERS",
    "ROW",
    "DiskstatsTable",
    "LiveSampler",
    "parse_diskstats_table",
    "read_diskstats_table",
    "read_table",
    "read_table_series",
    "table_sample",
]

COUNTERS = 17  # counters of a 20-field line; 14- and 18-field lines lack the last 6 or 2
ROW = 2 + COUNTERS  # numbers kept per device: major, minor, the counters
_LAYOUTS = (14, 18, 20)  # fields per line
_LINE_BREAKS_OF_STR = (b"\r", b"\x0b", b"\x0c")  # str.splitlines breaks there, bytes.split not
_SEPARATOR = b";"
_READ_SIZE = 262144
_COUNTER_FIELDS = DISKSTATS_COUNTER_FIELDS
_row_of = itemgetter("major", "minor", *_COUNTER_FIELDS)


@dataclass(frozen=True, slots=True)
class DiskstatsTable:
    """Every device's counters at one moment, kept raw: `numbers` holds `ROW` numbers per
    device in the order of `names` (major, minor, the 17 counters; absent ones 0), `layouts`
    each line's field count (14, 18 or 20), `index` a device's position. The clock is the
    monotonic one when read live, `/proc/uptime` (`uptime_s`) in a snapshot's series, where
    only the first sample carries a capture time (`taken_at`)."""

    monotonic_s: float | None
    taken_at: datetime | None
    names: list[str] = field(default_factory=list)
    numbers: array[int] = field(default_factory=lambda: array("Q"))
    layouts: bytes = b""
    index: dict[str, int] = field(default_factory=dict)
    skipped: ParseSkips = field(default_factory=ParseSkips)
    problems: list[CollectionProblem] = field(default_factory=list)
    uptime_s: float | None = None

    def column(self, counter: int) -> array[int]:
        """One counter (0 = reads … 16 = flush_ms) of every device, in the order of `names`."""
        return self.numbers[2 + counter :: ROW]

    def counters(self, position: int) -> tuple[int, ...]:
        """The 17 counters of the device at `position`, in the kernel's order."""
        start = position * ROW + 2
        return tuple(self.numbers[start : start + COUNTERS])


def _uniform_table(data: bytes) -> tuple[list[str], array[int], bytes] | None:
    """Names, numbers and layouts of a file whose lines all have one layout and read cleanly;
    None when any line does not (the caller then parses line by line)."""
    if not data.endswith(b"\n"):
        data += b"\n"
    lines = data.count(b"\n")
    if any(mark in data for mark in _LINE_BREAKS_OF_STR):
        return None
    # Each line break becomes a word of its own: every line has the same layout when these
    # words sit every (fields + 1) words and nowhere else (a number cannot be one, a name is
    # checked).
    words = data.replace(b"\n", b" ; ").split()
    fields = len(words) // lines - 1
    if (
        fields not in _LAYOUTS
        or len(words) != (fields + 1) * lines
        or words[fields :: fields + 1].count(_SEPARATOR) != lines
    ):
        return None
    del words[fields :: fields + 1]
    raw_names = words[2::fields]
    del words[2::fields]
    if _SEPARATOR in raw_names:
        return None
    joined = b" ".join(raw_names)
    if not (joined.isascii() and joined.decode().isprintable()):
        return None
    names = joined.decode().split(" ")
    if len(set(names)) != len(names):  # a device twice: the first line is kept, and said
        return None
    if not b"".join(words).isdigit():  # bytes: ASCII digits only, no sign
        return None
    try:
        numbers = array("Q", list(map(int, words)))
    except OverflowError:
        return None
    width = fields - 1  # numbers per line: major, minor and 11, 15 or 17 counters
    if width != ROW:
        padded = array("Q", bytes(numbers.itemsize * ROW * lines))
        for position in range(width):
            padded[position::ROW] = numbers[position::width]
        numbers = padded
    return names, numbers, bytes([fields]) * lines


def _packed(devices: list[DiskstatsCounters], skips: ParseSkips) -> tuple[list[str], array[int]]:
    """Names and numbers of parsed devices; a counter beyond 64 bits skips its device."""
    names: list[str] = []
    numbers = array("Q")
    for device in devices:
        row = [0 if value is None else value for value in _row_of(device.__dict__)]
        try:
            numbers.extend(row)
        except OverflowError:
            del numbers[len(names) * ROW :]
            skips.add(None, f"{device.device} …", "a counter is beyond 64 bits")
            continue
        names.append(device.device)
    return names, numbers


def parse_diskstats_table(
    data: bytes, monotonic_s: float | None, taken_at: datetime | None, path: str = DISKSTATS
) -> DiskstatsTable:
    """The table of one read of `path`; lines that cannot be used are skipped and counted,
    with a problem saying so (an empty file is a problem too)."""
    problems: list[CollectionProblem] = []
    skips = ParseSkips()
    uniform = _uniform_table(data) if data.strip() else None
    if uniform is not None:
        names, numbers, layouts = uniform
    else:
        devices, skips = parse_diskstats(data.decode("utf-8", errors="replace"))
        names, numbers = _packed(devices, skips)
        by_name = {d.device: d.field_count for d in devices}
        layouts = bytes(by_name[name] for name in names)
    if not data.strip():
        problems.append(_garbled(path, "empty file: no block device counters"))
    elif skips.count:
        problems.append(_garbled(path, skips.summary() or ""))
    return DiskstatsTable(
        monotonic_s=monotonic_s,
        taken_at=taken_at,
        names=names,
        numbers=numbers,
        layouts=layouts,
        index=dict(zip(names, range(len(names)), strict=True)),
        skipped=skips,
        problems=problems,
    )


def _garbled(path: str, reason: str) -> CollectionProblem:
    return CollectionProblem(part=PART, subject=path, kind=ProblemKind.GARBLED, reason=reason)


def _read_file(path: str) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        chunks = []
        while chunk := os.read(fd, _READ_SIZE):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)


def read_diskstats_table(path: str = DISKSTATS) -> DiskstatsTable:
    """This host's counters now, timed with the monotonic clock right after the read. A file
    that cannot be read gives an empty table with the problem."""
    try:
        data = _read_file(path)
    except OSError as err:
        problem = CollectionProblem(
            part=PART,
            subject=path,
            kind=ProblemKind.UNREADABLE,
            reason=f"no block device counters: {err.strerror or err}",
        )
        return DiskstatsTable(
            monotonic_s=time.monotonic(), taken_at=datetime.now(UTC), problems=[problem]
        )
    return parse_diskstats_table(data, time.monotonic(), datetime.now(UTC), path)


def read_table(source: Source, root: str = "", log: ProblemLog | None = None) -> DiskstatsTable:
    """One sample of a source as a table: `<root>/proc/diskstats` timed by `<root>/proc/uptime`
    (`root` is `""` for the host's own files, `/samples/3` for one of a series). The same
    problems as `read_sample` (in `problems`, and in `log` when given), in the same order."""
    problems: list[CollectionProblem] = []
    path = f"{root}{DISKSTATS}"
    taken_at = None if root else captured_at(source)
    data = read_or_note(source, path, problems, "no block device counters")
    if data is None:
        table = DiskstatsTable(monotonic_s=None, taken_at=taken_at)
    else:
        table = parse_diskstats_table(data, None, taken_at, path)
        problems.extend(table.problems)
    uptime_s = read_uptime(source, root, problems)
    if log is not None:
        for problem in problems:
            log.add(problem.part, problem.subject, problem.kind, problem.reason)
    return replace(table, problems=problems, uptime_s=uptime_s)


def read_table_series(source: Source, log: ProblemLog | None = None) -> list[DiskstatsTable]:
    """Every sample a snapshot carries, as tables, in order: what `read_sample_series` reads
    (`samples/<n>/…` when present, else the top-level `proc/diskstats`), without a model per
    device."""
    roots = sample_roots(source)
    if not roots:
        return [read_table(source, log=log)]
    tables = [read_table(source, root, log) for root in roots]
    captured = captured_at(source)
    if captured is not None and tables[0].taken_at is None:
        tables[0] = replace(tables[0], taken_at=captured)
    return tables


def table_sample(table: DiskstatsTable) -> DiskstatsSample:
    """The table as a `DiskstatsSample` (every device a `DiskstatsCounters`), for a caller
    that wants to store or compare whole samples; costs what the table saves, so only on demand."""
    devices = []
    numbers = table.numbers
    for position, (name, layout) in enumerate(zip(table.names, table.layouts, strict=True)):
        start = position * ROW
        row = numbers[start : start + 2 + layout - 3].tolist()
        devices.append(_counters(row[0], row[1], name, row[2:]))
    return DiskstatsSample.model_construct(
        uptime_s=table.uptime_s,
        monotonic_s=table.monotonic_s,
        taken_at=table.taken_at,
        devices=devices,
        skipped=table.skipped.model_copy(),
        problems=list(table.problems),
    )


class LiveSampler:
    """Reads `/proc/diskstats` (or another path: tests, benchmarks) once per `tick` and keeps
    the last two tables, the interval between them being what a caller shows."""

    def __init__(self, path: str = DISKSTATS) -> None:
        self.path = path
        self.previous: DiskstatsTable | None = None
        self.current: DiskstatsTable | None = None

    def tick(self) -> DiskstatsTable:
        """Read a new table; the one before becomes `previous`."""
        table = read_diskstats_table(self.path)
        self.previous, self.current = self.current, table
        return table

    def sample(self) -> DiskstatsSample | None:
        """The latest table as a full `DiskstatsSample`; None before the first tick."""
        return None if self.current is None else table_sample(self.current)
