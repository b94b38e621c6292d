"""`stats diff` and `stats watch`: iostat -x figures between two samples, or live."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rich.console import Group
from rich.live import Live
from rich.text import Text

from pinchpoint.checks.collect.diskstats import LiveSampler, read_sample_series
from pinchpoint.checks.parse.diskstats import DISKSTATS
from pinchpoint.checks.source import open_snapshot
from pinchpoint.cli.console import fail, located, output_console
from pinchpoint.cli.errors import with_advice
from pinchpoint.cli.fitted import FittedTable
from pinchpoint.cli.markdown import print_views
from pinchpoint.model.problems import ProblemKind
from pinchpoint.model.stats import DeviceFigures, DiskstatsSample, IntervalFigures
from pinchpoint.plurals import plural
from pinchpoint.report import ReportFormat
from pinchpoint.stats.iostat import (
    busiest_devices,
    had_io,
    interval_figures,
    is_partition,
    series_figures,
    table_interval_figures,
)

__all__ = []

# (heading, field, shown only when some device has a non-zero value of this field)
_COLUMNS: tuple[tuple[str, str, str | None], ...] = (
    ("r/s", "r_s", None),
    ("w/s", "w_s", None),
    ("d/s", "d_s", "d_s"),
    ("f/s", "f_s", "f_s"),
    ("rkB/s", "rkb_s", None),
    ("wkB/s", "wkb_s", None),
    ("dkB/s", "dkb_s", "d_s"),
    ("rrqm/s", "rrqm_s", None),
    ("wrqm/s", "wrqm_s", None),
    ("%rrqm", "rrqm_pct", None),
    ("%wrqm", "wrqm_pct", None),
    ("r_await", "r_await", None),
    ("w_await", "w_await", None),
    ("d_await", "d_await", "d_s"),
    ("f_await", "f_await", "f_s"),
    ("rareq-sz", "rareq_sz", None),
    ("wareq-sz", "wareq_sz", None),
    ("aqu-sz", "aqu_sz", None),
    ("%util", "util", None),
)


SAMPLES_ADVICE = "give a snapshot `pinchpoint capture` wrote, or a directory holding proc/diskstats"


@contextmanager
def _failing_cleanly(path: Path) -> Iterator[None]:
    """Turn a path that is no snapshot into one clear line and exit code 2."""
    try:
        yield
    except (FileNotFoundError, ValueError) as err:
        raise fail(with_advice(located(path, str(err)), SAMPLES_ADVICE)) from None


def _samples(path: Path) -> list[DiskstatsSample]:
    """The samples a snapshot, tarball or plain sample directory holds; exit 2 when none."""
    with _failing_cleanly(path), open_snapshot(path) as source:
        samples = read_sample_series(source)
    unreadable = [
        p
        for s in samples
        for p in s.problems
        if p.subject.endswith(DISKSTATS) and p.kind is not ProblemKind.GARBLED
    ]
    if unreadable or not any(s.devices for s in samples):
        why = unreadable[0].reason if unreadable else "no usable line in proc/diskstats"
        raise fail(
            f"{path}: not a snapshot or sample directory with proc/diskstats ({why}) "
            f"— {SAMPLES_ADVICE}"
        )
    return samples


def shown_devices(
    figures: IntervalFigures, *, everything: bool, partitions: bool
) -> list[DeviceFigures]:
    """What a report shows: whole devices with I/O in the interval, as `iostat -x -z` does;
    `everything` keeps idle ones too, `partitions` adds partitions (`iostat -p ALL`)."""
    names = {f.device for f in figures.devices}
    return [
        f
        for f in figures.devices
        if (partitions or not is_partition(f.device, names))
        and (everything or had_io(f) or f.reset)
    ]


def figures_json(figures: IntervalFigures, devices: list[DeviceFigures]) -> dict[str, Any]:
    """One interval as JSON: sysstat's key names for each device."""
    return {
        "interval_s": round(figures.interval_s, 6),
        "devices": [d.model_dump(by_alias=True) for d in devices],
        "appeared": figures.appeared,
        "vanished": figures.vanished,
        "problems": figures.problems,
    }


def figures_table(title: str, devices: list[DeviceFigures]) -> FittedTable:
    """An iostat-like table; discard and flush columns only where some device has them. On a
    narrow terminal the columns continue in a second table rather than being cut."""
    columns = [
        (heading, field)
        for heading, field, when in _COLUMNS
        if when is None or any(getattr(d, when) for d in devices)
    ]
    table = FittedTable(
        title,
        [("Device", "left"), *((heading, "right") for heading, _ in columns)],
        table={"box": None, "pad_edge": False},
    )
    for device in devices:
        cells = [f"{getattr(device, field):.2f}" for _heading, field in columns]
        name = f"{device.device} (reset)" if device.reset else device.device
        table.add_row(name, *cells)
    return table


def _report(figures: IntervalFigures, title: str, *, everything: bool, partitions: bool) -> Group:
    devices = shown_devices(figures, everything=everything, partitions=partitions)
    parts: list[FittedTable | Text] = []
    if figures.interval_s > 0:
        parts.append(figures_table(f"{title} — {figures.interval_s:.2f} s", devices))
        if not devices:
            parts.append(Text("no device did I/O in this interval (--all shows them)", "dim"))
    if figures.appeared:
        parts.append(Text(f"appeared: {', '.join(figures.appeared)}", "dim"))
    if figures.vanished:
        parts.append(Text(f"vanished: {', '.join(figures.vanished)}", "dim"))
    for problem in figures.problems:
        parts.append(Text(f"problem: {problem}", "yellow"))
    return Group(*parts)


def diff_report(
    first: Path,
    second: Path | None,
    form: ReportFormat,
    everything: bool,
    partitions: bool,
) -> None:
    """`pinchpoint stats diff`: iostat -x figures between two samples of /proc/diskstats."""
    if second is None:
        samples = _samples(first)
        if len(samples) < 2:
            raise fail(f"{first}: holds one sample; give two, or a snapshot with samples/")
        intervals = series_figures(samples)
        titles = [f"{first} samples/{n} → samples/{n + 1}" for n in range(len(intervals))]
    else:
        intervals = [interval_figures(_samples(first)[0], _samples(second)[0])]
        titles = [f"{first} → {second}"]
    if form is ReportFormat.JSON:
        reports = [
            figures_json(f, shown_devices(f, everything=everything, partitions=partitions))
            for f in intervals
        ]
        document: Any = reports[0] if second is not None else {"intervals": reports}
        sys.stdout.write(json.dumps(document, indent=2) + "\n")
        return
    views = [
        _report(figures, title, everything=everything, partitions=partitions)
        for figures, title in zip(intervals, titles, strict=True)
    ]
    print_views(views, markdown=form is ReportFormat.MARKDOWN)


def watch_report(
    interval: float,
    count: int | None,
    top: int,
    as_json: bool,
    everything: bool,
) -> None:
    """`pinchpoint stats watch`: this host's busiest devices each interval, live."""
    console = output_console()
    sampler = LiveSampler()
    first = sampler.tick()
    unreadable = [p for p in first.problems if p.kind is not ProblemKind.GARBLED]
    if unreadable:
        raise fail(f"{unreadable[0].line()} — run on a Linux host with /proc mounted")
    start = time.monotonic()
    shown = 0
    live = (
        Live(console=console, auto_refresh=False) if console.is_terminal and not as_json else None
    )
    try:
        if live is not None:
            live.start()
        while count is None or shown < count:
            delay = start + (shown + 1) * interval - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            before, after = sampler.current or first, sampler.tick()
            names = None if everything else busiest_devices(before, after, top)
            figures = table_interval_figures(before, after, names)
            shown += 1
            if as_json:
                sys.stdout.write(json.dumps(figures_json(figures, figures.devices)) + "\n")
                sys.stdout.flush()
                continue
            which = "all" if everything else "busiest of"
            title = f"{time.strftime('%H:%M:%S')} — {which} {plural(len(after.names), 'device')}"
            report = _watch_report(figures, title)
            if live is not None:
                live.update(report, refresh=True)
            else:
                console.print(report)
    except KeyboardInterrupt:
        pass
    finally:
        if live is not None:
            live.stop()


def _watch_report(figures: IntervalFigures, title: str) -> Group:
    parts: list[FittedTable | Text] = [
        figures_table(f"{title} — {figures.interval_s:.2f} s", figures.devices)
    ]
    if not figures.devices:
        parts.append(Text("no device did I/O in this interval", "dim"))
    for problem in figures.problems:
        parts.append(Text(f"problem: {problem}", "yellow"))
    return Group(*parts)
