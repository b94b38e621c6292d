"""Block device counters read from a source or from this host, one sample at a time.

A sample is `/proc/diskstats` parsed into a `DiskstatsTable` (`pinchpoint.checks.parse.
diskstats`) plus the clock to measure an interval with: `/proc/uptime` read with it (files of a
snapshot, `samples/<n>/proc/` for a series: `pinchpoint.checks.collect.samples`), or
`time.monotonic()` right after the read (live).

`check` and `stats show` read a snapshot's series as tables (`read_table_series`): seven
samples of 5,760 devices as models were 40,000 pydantic objects, where the figures need only
the whole devices' counters. The live sampler (`LiveSampler`, `stats watch`, the service)
reads the file with one `os.read` loop every second, for up to thousands of devices, and keeps
the previous table; `iostat -x` figures are computed only for the devices looked at
(`pinchpoint.stats.iostat`). Where models are wanted (`stats diff`, storing a sample), the
`DiskstatsSample` is derived from the table (`read_sample`, `read_sample_series`,
`live_sample`).
"""

from __future__ import annotations

import os
import time
from dataclasses import replace
from datetime import UTC, datetime

from pinchpoint.checks.collect.samples import captured_at, sample_roots
from pinchpoint.checks.parse.diskstats import (
    DISKSTATS,
    PART,
    DiskstatsTable,
    parse_diskstats_table,
    table_sample,
)
from pinchpoint.checks.parse.uptime import UPTIME, parse_uptime
from pinchpoint.checks.source import Source, SourceError
from pinchpoint.checks.source.sysfs import ProblemLog
from pinchpoint.model.problems import CollectionProblem, ProblemKind
from pinchpoint.model.stats import DiskstatsSample

__all__ = [
    "LiveSampler",
    "live_sample",
    "read_diskstats_table",
    "read_sample",
    "read_sample_series",
    "read_table",
    "read_table_series",
]

_READ_SIZE = 262144


# -- a snapshot's samples ---------------------------------------------------------------------


def _read_or_note(
    source: Source, path: str, problems: list[CollectionProblem], what: str
) -> bytes | None:
    """The file's bytes; None, with a problem saying `what` is lost, when it cannot be read."""
    try:
        return source.read_bytes(path)
    except SourceError as err:
        problems.append(
            CollectionProblem(
                part=PART, subject=path, kind=err.kind, reason=f"{what}: {err.reason}"
            )
        )
        return None


def _read_uptime(source: Source, root: str, problems: list[CollectionProblem]) -> float | None:
    """The clock of one sample, `<root>/proc/uptime`; None (with the problem) when it cannot be
    read or is not seconds since boot."""
    data = _read_or_note(source, f"{root}{UPTIME}", problems, "no clock for this sample")
    if data is None:
        return None
    uptime = data.decode("utf-8", errors="replace")
    seconds = parse_uptime(uptime)
    if seconds is None:
        problems.append(
            CollectionProblem(
                part=PART,
                subject=f"{root}{UPTIME}",
                kind=ProblemKind.GARBLED,
                reason=f"expected seconds since boot, found {uptime.strip()[:40]!r}",
            )
        )
    return seconds


def read_table(source: Source, root: str = "", log: ProblemLog | None = None) -> DiskstatsTable:
    """One sample of a source: `<root>/proc/diskstats` timed by `<root>/proc/uptime` (`root`
    is `""` for the host's own files, `/samples/3` for one of a series).

    What cannot be read or parsed is in the table's `problems` (and `log`, when given)."""
    problems: list[CollectionProblem] = []
    path = f"{root}{DISKSTATS}"
    taken_at = None if root else captured_at(source)
    data = _read_or_note(source, path, problems, "no block device counters")
    if data is None:
        table = DiskstatsTable(monotonic_s=None, taken_at=taken_at)
    else:
        table = parse_diskstats_table(data, None, taken_at, path)
        problems.extend(table.problems)
    uptime_s = _read_uptime(source, root, problems)
    if log is not None:
        for problem in problems:
            log.add(problem.part, problem.subject, problem.kind, problem.reason)
    return replace(table, problems=problems, uptime_s=uptime_s)


def read_table_series(source: Source, log: ProblemLog | None = None) -> list[DiskstatsTable]:
    """Every sample a snapshot carries, in order: `samples/<n>/…` when present, else its
    top-level `proc/diskstats` as a single sample. Only the first carries the capture time."""
    roots = sample_roots(source)
    if not roots:
        return [read_table(source, log=log)]
    tables = [read_table(source, root, log) for root in roots]
    captured = captured_at(source)
    if captured is not None and tables[0].taken_at is None:
        tables[0] = replace(tables[0], taken_at=captured)
    return tables


def read_sample(source: Source, root: str = "", log: ProblemLog | None = None) -> DiskstatsSample:
    """`read_table` as a `DiskstatsSample`: every device a model."""
    return table_sample(read_table(source, root, log))


def read_sample_series(source: Source, log: ProblemLog | None = None) -> list[DiskstatsSample]:
    """`read_table_series` as `DiskstatsSample`s: every device a model."""
    return [table_sample(table) for table in read_table_series(source, log)]


# -- this host, live ----------------------------------------------------------------------------


def _read_file(path: str) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        chunks = []
        while chunk := os.read(fd, _READ_SIZE):
            chunks.append(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)


def read_diskstats_table(
    path: str = DISKSTATS,
    leave_out: frozenset[str] = frozenset(),
    previous: DiskstatsTable | None = None,
) -> DiskstatsTable:
    """This host's counters now, timed with the monotonic clock right after the read, without
    the devices of `leave_out`. A file that cannot be read gives an empty table with the
    problem. `previous` is the table of the read before, if the caller keeps it: the lines
    that did not change since are not read again (`parse_diskstats_table`)."""
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
    return parse_diskstats_table(
        data, time.monotonic(), datetime.now(UTC), path, leave_out, previous, framed=True
    )


def live_sample(path: str = DISKSTATS) -> DiskstatsSample:
    """`read_diskstats_table` as a `DiskstatsSample`: every device a model."""
    return table_sample(read_diskstats_table(path))


class LiveSampler:
    """Reads `/proc/diskstats` (or another path: tests, benchmarks) once per `tick` and keeps
    the last two tables, the interval between them being what a caller shows."""

    def __init__(self, path: str = DISKSTATS) -> None:
        self.path = path
        self.previous: DiskstatsTable | None = None
        self.current: DiskstatsTable | None = None

    def tick(self) -> DiskstatsTable:
        """Read a new table; the one before becomes `previous`."""
        table = read_diskstats_table(self.path, previous=self.current)
        self.previous, self.current = self.current, table
        return table

    def sample(self) -> DiskstatsSample | None:
        """The latest table as a full `DiskstatsSample`; None before the first tick."""
        return None if self.current is None else table_sample(self.current)
