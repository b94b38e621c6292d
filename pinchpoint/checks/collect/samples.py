"""A snapshot's series of samples: `samples/<n>/proc/{diskstats,net/dev,uptime}`, found and
recorded.

A snapshot may carry a series of samples as `samples/<n>/proc/diskstats`,
`samples/<n>/proc/net/dev` and `samples/<n>/proc/uptime` (n = 0, 1, 2 …); see
docs/snapshot-format.md, section `samples/`. Without a series its top-level files are one
sample. `record_samples` writes a series (what `pinchpoint capture --samples` keeps).
"""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path

from pinchpoint.checks.parse.diskstats import DISKSTATS, PART
from pinchpoint.checks.parse.netdev import NET_DEV
from pinchpoint.checks.parse.uptime import UPTIME
from pinchpoint.checks.source import LiveSource, Source, SourceError
from pinchpoint.model.problems import CollectionProblem

__all__ = ["SAMPLES", "captured_at", "record_samples", "sample_roots"]

SAMPLES = "/samples"


def sample_roots(source: Source) -> list[str]:
    """`/samples/0`, `/samples/1` … in numeric order; empty when the source has no series."""
    if not source.is_dir(SAMPLES):
        return []
    try:
        names = source.list_dir(SAMPLES)
    except SourceError:
        return []
    numbered = sorted(int(name) for name in names if name.isascii() and name.isdigit())
    return [f"{SAMPLES}/{n}" for n in numbered]


def captured_at(source: Source) -> datetime | None:
    """When the snapshot was captured (its manifest), None for a live source or no manifest."""
    manifest = source.manifest()
    return None if manifest is None else manifest.captured_at


def _read(source: Source, path: str, problems: list[CollectionProblem], what: str) -> str | None:
    """The file's text; None, with a problem saying `what` is lost, when it cannot be read."""
    try:
        return source.read_bytes(path).decode("utf-8", errors="replace")
    except SourceError as err:
        problems.append(
            CollectionProblem(
                part=PART, subject=path, kind=err.kind, reason=f"{what}: {err.reason}"
            )
        )
        return None


def record_samples(
    out_dir: str | Path, count: int, interval_s: float, root: str = "/"
) -> list[CollectionProblem]:
    """Write `count` samples, `interval_s` apart, as `samples/<n>/proc/diskstats`,
    `samples/<n>/proc/net/dev` and `samples/<n>/proc/uptime` below `out_dir`.

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
