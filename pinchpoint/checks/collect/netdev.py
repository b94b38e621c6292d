"""Network interface counters read from a source or from this host, one sample at a time.

A sample is `/proc/net/dev` parsed (`pinchpoint.checks.parse.netdev`) plus a clock:
`/proc/uptime` read with it (files of a snapshot's `samples/<n>/proc/`, written by
`record_samples` next to the diskstats: `pinchpoint.checks.collect.samples`), or
`time.monotonic()` live. See docs/snapshot-format.md, section `samples/`.
"""

from __future__ import annotations

import time

from pinchpoint.checks.collect.samples import sample_roots
from pinchpoint.checks.parse.netdev import NET_DEV, parse_net_dev
from pinchpoint.checks.parse.uptime import UPTIME, parse_uptime
from pinchpoint.checks.source import LiveSource, Source, SourceError
from pinchpoint.model.problems import CollectionProblem, ProblemKind
from pinchpoint.model.stats import NetDevCounters, NetDevSample, ParseSkips

__all__ = ["live_net_dev_sample", "read_net_dev_sample", "read_net_dev_series"]

PART = "netdev"


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
