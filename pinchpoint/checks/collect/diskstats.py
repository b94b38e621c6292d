"""Block device counters from `/proc/diskstats` (and `/sys/block/<dev>/stat`), one sample at a time.

A line is `major minor name` followed by 11, 15 or 17 counters since boot: 14 fields before
Linux 4.18, 18 with discards (4.18), 20 with flushes (5.5). Kernels before 2.6.25 printed
partitions with only 4 counters (7 fields): no times, so no iostat -x figures; such lines are
skipped with that reason. A line that does not read as numbers is skipped and counted, and the
rest of the sample stands.

A sample is the counters plus the clock to measure an interval with: `/proc/uptime` read with
it (files in a snapshot), or `time.monotonic()` (live). A snapshot may carry a series of samples
as `samples/<n>/proc/diskstats` and `samples/<n>/proc/uptime` (n = 0, 1, 2 …); see
docs/snapshot-format.md. The live sampler reads the file directly: it runs every second, for up
to thousands of devices, and must stay cheap (bench/sampler_bench.py).
"""

from __future__ import annotations

import math
import os
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pinchpoint.checks.source import LiveSource, Source, SourceError
from pinchpoint.checks.source.sysfs import ProblemLog
from pinchpoint.model.problems import CollectionProblem, ProblemKind
from pinchpoint.model.stats import (
    DISKSTATS_COUNTER_FIELDS,
    DiskstatsCounters,
    DiskstatsSample,
    ParseSkips,
)

__all__ = [
    "DISKSTATS",
    "NET_DEV",
    "SAMPLES",
    "UPTIME",
    "DiskstatsParseError",
    "captured_at",
    "live_sample",
    "parse_block_stat",
    "parse_diskstats",
    "parse_uptime",
    "read_or_note",
    "read_sample",
    "read_sample_series",
    "read_uptime",
    "record_samples",
    "sample_roots",
]

PART = "diskstats"
DISKSTATS = "/proc/diskstats"
UPTIME = "/proc/uptime"
NET_DEV = "/proc/net/dev"  # recorded with each sample; parsed by pinchpoint.checks.collect.netdev
SAMPLES = "/samples"

# Counter names in the kernel's order (Documentation/admin-guide/iostats.rst), after the
# major, minor and name columns of /proc/diskstats.
_COUNTERS = DISKSTATS_COUNTER_FIELDS
_LAYOUTS = (11, 15, 17)  # counters per line: 14-, 18- and 20-field /proc/diskstats
_FIELD_NAMES = frozenset(DiskstatsCounters.model_fields)
_OLD_PARTITION_FIELDS = 7  # pre-2.6.25: "major minor name reads sectors writes sectors"


class DiskstatsParseError(ValueError):
    """A stat file does not read as the kernel writes it; the message says what was found."""


# Per layout (number of counters): the field names of a line, and the fields it lacks.
_KEYS = {n: ("major", "minor", "device", *_COUNTERS[:n], "field_count") for n in _LAYOUTS}
_ABSENT = {n: dict.fromkeys(_COUNTERS[n:]) for n in _LAYOUTS}


def _counters(major: int, minor: int, device: str, numbers: list[int]) -> DiskstatsCounters:
    """A `DiskstatsCounters` from known-good non-negative ints, without per-field validation.

    This is `model_construct` done directly: 2,000 devices per second on the live sampler made
    validation (and even `model_construct`'s field loop) the largest cost of a sample.
    """
    layout = len(numbers)
    line = (major, minor, device, *numbers, layout + 3)
    values: dict[str, Any] = dict(zip(_KEYS[layout], line, strict=True))
    if layout != _LAYOUTS[-1]:
        values.update(_ABSENT[layout])
    counters = object.__new__(DiskstatsCounters)
    object.__setattr__(counters, "__dict__", values)
    object.__setattr__(counters, "__pydantic_fields_set__", _FIELD_NAMES)
    object.__setattr__(counters, "__pydantic_extra__", None)
    object.__setattr__(counters, "__pydantic_private__", None)
    return counters


def _is_count(text: str) -> bool:
    """A non-negative decimal integer as the kernel prints it (no sign, no `_`, ASCII only)."""
    return text.isascii() and text.isdigit()


def parse_diskstats(text: str) -> tuple[list[DiskstatsCounters], ParseSkips]:
    """Every usable line of `/proc/diskstats`; the others counted with the first example.

    A device named twice keeps its first line (a garbled file, or two files concatenated).
    """
    devices: list[DiskstatsCounters] = []
    skips = ParseSkips()
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        count = len(fields)
        if count == 0:
            continue
        if count - 3 not in _LAYOUTS:
            if count == _OLD_PARTITION_FIELDS:
                reason = "partition line of a kernel before 2.6.25 (4 counters, no times)"
            else:
                reason = f"expected 14, 18 or 20 fields, found {count}"
            skips.add(number, line, reason)
            continue
        major, minor, name = fields[0], fields[1], fields[2]
        counters = fields[3:]
        if not _is_count(major + minor + "".join(counters)):
            skips.add(number, line, "a counter is not a non-negative whole number")
            continue
        if not name.isprintable():
            skips.add(number, line, "device name holds unprintable characters")
            continue
        if name in seen:
            skips.add(number, line, f"device {name} listed twice; the first line is kept")
            continue
        seen.add(name)
        devices.append(_counters(int(major), int(minor), name, list(map(int, counters))))
    return devices, skips


def parse_block_stat(device: str, text: str, major: int = 0, minor: int = 0) -> DiskstatsCounters:
    """The counters of `/sys/block/<device>/stat`: the same 11, 15 or 17 numbers as a
    /proc/diskstats line without its major, minor and name (which the caller may pass)."""
    numbers = text.split()
    if len(numbers) not in _LAYOUTS:
        raise DiskstatsParseError(
            f"{device}: expected 11, 15 or 17 counters in its stat file, found {len(numbers)}"
        )
    if not _is_count("".join(numbers)):
        raise DiskstatsParseError(
            f"{device}: a counter is not a non-negative whole number: {text.strip()[:80]!r}"
        )
    return _counters(major, minor, device, list(map(int, numbers)))


def parse_uptime(text: str) -> float | None:
    """Seconds since boot, the first number of `/proc/uptime`; None when it is not one."""
    words = text.split()
    if not words:
        return None
    try:
        value = float(words[0])
    except ValueError:
        return None
    if not math.isfinite(value) or value < 0:
        return None
    return value


def read_or_note(
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


def _read(source: Source, path: str, problems: list[CollectionProblem], what: str) -> str | None:
    data = read_or_note(source, path, problems, what)
    return None if data is None else data.decode("utf-8", errors="replace")


def captured_at(source: Source) -> datetime | None:
    """When the snapshot was captured (its manifest), None for a live source or no manifest."""
    manifest = source.manifest()
    return None if manifest is None else manifest.captured_at


def read_sample(source: Source, root: str = "", log: ProblemLog | None = None) -> DiskstatsSample:
    """One sample from `<root>/proc/diskstats` and `<root>/proc/uptime` of a source (`root`
    is `""` for the host's own files, `/samples/3` for one of a series).

    What cannot be read or parsed is in the sample's `problems` (and `log`, when given).
    """
    problems: list[CollectionProblem] = []
    sample = DiskstatsSample(taken_at=captured_at(source) if not root else None)
    text = _read(source, f"{root}{DISKSTATS}", problems, "no block device counters")
    if text is not None:
        sample.devices, sample.skipped = parse_diskstats(text)
        if not text.strip():
            problems.append(
                CollectionProblem(
                    part=PART,
                    subject=f"{root}{DISKSTATS}",
                    kind=ProblemKind.GARBLED,
                    reason="empty file: no block device counters",
                )
            )
        elif sample.skipped.count:
            problems.append(
                CollectionProblem(
                    part=PART,
                    subject=f"{root}{DISKSTATS}",
                    kind=ProblemKind.GARBLED,
                    reason=sample.skipped.summary() or "",
                )
            )
    sample.uptime_s = read_uptime(source, root, problems)
    sample.problems = problems
    if log is not None:
        for problem in problems:
            log.add(problem.part, problem.subject, problem.kind, problem.reason)
    return sample


def read_uptime(source: Source, root: str, problems: list[CollectionProblem]) -> float | None:
    """The clock of one sample, `<root>/proc/uptime`; None (with the problem) when it cannot be
    read or is not seconds since boot."""
    uptime = _read(source, f"{root}{UPTIME}", problems, "no clock for this sample")
    if uptime is None:
        return None
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


def sample_roots(source: Source) -> list[str]:
    """`/samples/0`, `/samples/1` … in numeric order; empty when the source has no series."""
    if not source.is_dir(SAMPLES):
        return []
    try:
        names = source.list_dir(SAMPLES)
    except SourceError:
        return []
    numbered = sorted(int(name) for name in names if _is_count(name))
    return [f"{SAMPLES}/{n}" for n in numbered]


def read_sample_series(source: Source, log: ProblemLog | None = None) -> list[DiskstatsSample]:
    """Every sample a snapshot carries, in order: `samples/<n>/…` when present, else its
    top-level `proc/diskstats` as a single sample."""
    roots = sample_roots(source)
    if not roots:
        return [read_sample(source, log=log)]
    captured = captured_at(source)
    samples = [read_sample(source, root, log) for root in roots]
    if captured is not None and samples[0].taken_at is None:
        samples[0].taken_at = captured
    return samples


def live_sample(diskstats_path: str = DISKSTATS) -> DiskstatsSample:
    """This host's counters now, timed with the monotonic clock (the live sampler's read)."""
    problems: list[CollectionProblem] = []
    now = time.monotonic()
    taken_at = datetime.now(UTC)
    try:
        fd = os.open(diskstats_path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            chunks = []
            while chunk := os.read(fd, 262144):
                chunks.append(chunk)
        finally:
            os.close(fd)
    except OSError as err:
        problems.append(
            CollectionProblem(
                part=PART,
                subject=diskstats_path,
                kind=ProblemKind.UNREADABLE,
                reason=f"no block device counters: {err.strerror or err}",
            )
        )
        return DiskstatsSample(monotonic_s=now, taken_at=taken_at, problems=problems)
    devices, skipped = parse_diskstats(b"".join(chunks).decode("utf-8", errors="replace"))
    return DiskstatsSample.model_construct(
        uptime_s=None,
        monotonic_s=now,
        taken_at=taken_at,
        devices=devices,
        skipped=skipped,
        problems=problems,
    )


def record_samples(
    out_dir: str | Path, count: int, interval_s: float, root: str = "/"
) -> list[CollectionProblem]:
    """Write `count` samples, `interval_s` apart, as `samples/<n>/proc/diskstats`,
    `samples/<n>/proc/net/dev` and `samples/<n>/proc/uptime` below `out_dir` (what
    `pinchpoint capture --samples` keeps).

    The files of a sample are read back to back, so the uptime times the counters. Samples
    follow a fixed schedule, so a slow read does not stretch the series. Returns what could not
    be read; a sample whose diskstats could not be read is left out of the series' numbering
    gap-free (the next one takes its number).
    """
    source = LiveSource(root)
    problems: list[CollectionProblem] = []
    start = time.monotonic()
    written = 0
    for index in range(max(0, count)):
        if index:
            delay = start + index * interval_s - time.monotonic()
            if delay > 0:
                time.sleep(delay)
        diskstats = _read(source, DISKSTATS, problems, "sample not recorded")
        uptime = _read(source, UPTIME, problems, "sample recorded without its clock")
        if diskstats is None:
            continue
        net_dev = _read(source, NET_DEV, problems, "sample recorded without interface counters")
        target = Path(out_dir, "samples", str(written), "proc")
        target.mkdir(parents=True, exist_ok=True)
        (target / "diskstats").write_text(diskstats, encoding="utf-8")
        if uptime is not None:
            (target / "uptime").write_text(uptime, encoding="utf-8")
        if net_dev is not None:
            (target / "net").mkdir(exist_ok=True)
            (target / "net" / "dev").write_text(net_dev, encoding="utf-8")
        written += 1
    return problems
