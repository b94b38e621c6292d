"""Network interface counters from `/proc/net/dev`, one sample at a time.

The kernel's table (net/core/net-procfs.c): two header lines, then per interface
`name: ` and 16 counters — receive bytes, packets, errs, drop, fifo, frame, compressed,
multicast; transmit bytes, packets, errs, drop, fifo, colls, carrier, compressed. Names are
right-aligned in six columns, so a long name touches its colon (`vethf345468:     648`) and
kernels of the 2.4 era let the first number touch it too (`eth0:1234`). A line that does not
read as 16 whole numbers is skipped and counted, and the rest of the sample stands.

A sample is the counters plus a clock: `/proc/uptime` read with them (files of a snapshot's
`samples/<n>/proc/`, written by `record_samples` next to the diskstats), or `time.monotonic()`
live. See docs/snapshot-format.md, section `samples/`.
"""

from __future__ import annotations

import time

from pinchpoint.checks.collect.diskstats import NET_DEV, UPTIME, parse_uptime, sample_roots
from pinchpoint.checks.source import LiveSource, Source, SourceError
from pinchpoint.model.problems import CollectionProblem, ProblemKind
from pinchpoint.model.stats import NetDevCounters, NetDevSample, ParseSkips

__all__ = [
    "NET_DEV",
    "live_net_dev_sample",
    "parse_net_dev",
    "read_net_dev_sample",
    "read_net_dev_series",
]

PART = "netdev"

# Counter names in the kernel's column order, after the interface name.
COUNTERS = (
    "rx_bytes",
    "rx_packets",
    "rx_errs",
    "rx_drop",
    "rx_fifo",
    "rx_frame",
    "rx_compressed",
    "rx_multicast",
    "tx_bytes",
    "tx_packets",
    "tx_errs",
    "tx_drop",
    "tx_fifo",
    "tx_colls",
    "tx_carrier",
    "tx_compressed",
)


def _is_header(line: str) -> bool:
    """The two title lines: `Inter-|   Receive …` and ` face |bytes    packets …`."""
    return "|" in line and ":" not in line


def parse_net_dev(text: str) -> tuple[list[NetDevCounters], ParseSkips]:
    """Every usable interface line of `/proc/net/dev`; the others counted with the first example.

    An interface named twice keeps its first line (a garbled file, or two files concatenated).
    """
    interfaces: list[NetDevCounters] = []
    skips = ParseSkips()
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or _is_header(line):
            continue
        name, colon, rest = line.partition(":")
        name = name.strip()
        if not colon or not name:
            skips.add(number, line, "expected `name: counters`")
            continue
        if not name.isprintable() or " " in name:
            skips.add(number, line, "interface name holds spaces or unprintable characters")
            continue
        numbers = rest.split()
        if len(numbers) != len(COUNTERS):
            skips.add(number, line, f"expected {len(COUNTERS)} counters, found {len(numbers)}")
            continue
        if not all(n.isascii() and n.isdigit() for n in numbers):
            skips.add(number, line, "a counter is not a non-negative whole number")
            continue
        if name in seen:
            skips.add(number, line, f"interface {name} listed twice; the first line is kept")
            continue
        seen.add(name)
        values = dict(zip(COUNTERS, map(int, numbers), strict=True))
        interfaces.append(NetDevCounters(interface=name, **values))
    return interfaces, skips


def _problem(subject: str, kind: ProblemKind, reason: str) -> CollectionProblem:
    return CollectionProblem(part=PART, subject=subject, kind=kind, reason=reason)


def _counters_or_problems(
    text: str, subject: str, problems: list[CollectionProblem]
) -> tuple[list[NetDevCounters], ParseSkips]:
    """Parse a read file; an empty or partly unusable one is reported, the rest kept."""
    interfaces, skipped = parse_net_dev(text)
    if not text.strip():
        problems.append(
            _problem(subject, ProblemKind.GARBLED, "empty file: no network interface counters")
        )
    elif skipped.count:
        problems.append(_problem(subject, ProblemKind.GARBLED, skipped.summary() or ""))
    return interfaces, skipped


def read_net_dev_sample(source: Source, root: str = "") -> NetDevSample:
    """One sample from `<root>/proc/net/dev` and `<root>/proc/uptime` of a source (`root` is
    `""` for the host's own files, `/samples/3` for one of a series)."""
    problems: list[CollectionProblem] = []
    sample = NetDevSample()
    path = f"{root}{NET_DEV}"
    try:
        text = source.read_text(path)
    except SourceError as err:
        problems.append(_problem(path, err.kind, f"no network interface counters: {err.reason}"))
    else:
        sample.interfaces, sample.skipped = _counters_or_problems(text, path, problems)
    clock = f"{root}{UPTIME}"
    try:
        uptime = source.read_text(clock)
    except SourceError as err:
        problems.append(_problem(clock, err.kind, f"no clock for this sample: {err.reason}"))
    else:
        sample.uptime_s = parse_uptime(uptime)
        if sample.uptime_s is None:
            reason = f"expected seconds since boot, found {uptime.strip()[:40]!r}"
            problems.append(_problem(clock, ProblemKind.GARBLED, reason))
    sample.problems = problems
    return sample


def read_net_dev_series(source: Source) -> list[NetDevSample]:
    """Every sample a snapshot carries, in order: `samples/<n>/…` when present, else its
    top-level `proc/net/dev` as a single sample."""
    roots = sample_roots(source)
    if not roots:
        return [read_net_dev_sample(source)]
    return [read_net_dev_sample(source, root) for root in roots]


def live_net_dev_sample(path: str = NET_DEV) -> NetDevSample:
    """This host's interface counters now, timed with the monotonic clock."""
    now = time.monotonic()
    problems: list[CollectionProblem] = []
    try:
        text = LiveSource().read_text(path)
    except SourceError as err:
        problems.append(_problem(path, err.kind, f"no network interface counters: {err.reason}"))
        return NetDevSample(monotonic_s=now, problems=problems)
    interfaces, skipped = _counters_or_problems(text, path, problems)
    return NetDevSample(monotonic_s=now, interfaces=interfaces, skipped=skipped, problems=problems)
