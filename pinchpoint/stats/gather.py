"""Every statistic pinchpoint can have for one host, gathered once for `stats show` and `check`.

From a snapshot: its series of `/proc/diskstats` and `/proc/net/dev` samples, the
`zpool iostat -w` histograms and the per-I/O latency recorded in the kernel that it carries;
on a live host: two samples `seconds` apart. Files of other tools (`--import`) join the
histograms. What could not be used is said in `notes`, never silently dropped.

The diskstats samples are read into raw tables and figures are computed for whole devices only:
the partitions the inventory lists are left out, as the breakdown never adds them (their disk's
line already counts their I/O) and no rule looks at them; on the 1,920-path benchmark host they
are two thirds of the 5,760 devices. `stats diff` still shows every device.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pinchpoint.checks.collect.diskstats import read_diskstats_table, read_table_series
from pinchpoint.checks.collect.imports import import_stats
from pinchpoint.checks.collect.latency_recording import (
    LiveRecorder,
    RecordingError,
    read_recording,
)
from pinchpoint.checks.collect.netdev import live_net_dev_sample, read_net_dev_series
from pinchpoint.checks.parse.diskstats import DiskstatsTable
from pinchpoint.checks.parse.importers import StatsImportError, parse_stats
from pinchpoint.checks.parse.importers.ebpf_json import recording_imported
from pinchpoint.checks.source import LiveSource, Source
from pinchpoint.checks.source.commands import Command
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.latency_recording import BlockRecording
from pinchpoint.model.latency_source import AVERAGES_ONLY, NOT_ASKED, LatencySource
from pinchpoint.model.stats import (
    ImportedStats,
    ImportKind,
    IntervalFigures,
    NetDevInterval,
    NetDevSample,
)
from pinchpoint.performance import gc_paused
from pinchpoint.stats.iostat import table_series_figures
from pinchpoint.stats.latency_source import LIVE_RECORDING, SNAPSHOT_HAS_NONE, latency_source
from pinchpoint.stats.netdev import link_speeds, net_dev_series
from pinchpoint.stats.recorded import recording_delta

# The latency histograms a snapshot may carry (the simulator writes them for a ZFS pool).
ZPOOL_IOSTAT_W = Command(argv=("zpool", "iostat", "-wvHp"), key="zpool/iostat-w.txt")


@dataclass
class HostStatistics:
    """The samples of one host, the figures computed from them, and what could not be used.

    `tables` are the diskstats samples, raw (`DiskstatsTable`; `table_sample` makes one a
    `DiskstatsSample`); `intervals` their figures, whole devices only."""

    tables: list[DiskstatsTable] = field(default_factory=list)
    net_samples: list[NetDevSample] = field(default_factory=list)
    intervals: list[IntervalFigures] = field(default_factory=list)
    net_intervals: list[NetDevInterval] = field(default_factory=list)
    imported: list[ImportedStats] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    latency: LatencySource | None = None  # where the latency figures come from

    @property
    def empty(self) -> bool:
        """True when there is nothing to compute figures from."""
        return not self.tables and not self.imported and not self.net_samples


def _live_samples(
    seconds: float, disks: bool, network: bool, recorder: LiveRecorder | None = None
) -> tuple[list[DiskstatsTable], list[NetDevSample], BlockRecording | None]:
    """Two samples of this host's counters, `seconds` apart, and what the kernel recorder
    (already running) counted between them. Raises `RecordingError` when it stopped."""
    counted = recorder.current() if recorder is not None else None
    first = read_diskstats_table() if disks else None
    first_net = live_net_dev_sample() if network else None
    time.sleep(seconds)
    samples = [first, read_diskstats_table(previous=first)] if first is not None else []
    net_samples = [first_net, live_net_dev_sample()] if first_net is not None else []
    recorded = None
    if recorder is not None and counted is not None:
        now = recorder.current()
        recorded = recording_delta(counted, now) if now is not None else None
    return samples, net_samples, recorded


def _recorded_window(
    seconds: float, disks: bool, network: bool
) -> tuple[list[DiskstatsTable], list[NetDevSample], list[ImportedStats], str | None]:
    """The live samples with per-I/O latency recorded in the kernel over the same window
    (`docs/ebpf.md`); where it cannot be recorded, the samples alone and why."""
    recorder = LiveRecorder(LiveSource())
    try:
        recorder.start()
    except RecordingError as err:
        samples, net_samples, _ = _live_samples(seconds, disks, network)
        return samples, net_samples, [], str(err)
    try:
        samples, net_samples, recorded = _live_samples(seconds, disks, network, recorder)
    except RecordingError as err:
        return [], [], [], str(err)
    finally:
        recorder.stop()
    if recorded is None or recorded.seconds <= 0:
        return samples, net_samples, [], "the latency recorder did not answer in time"
    return samples, net_samples, [recording_imported(recorded, LIVE_RECORDING)], None


def listed_partitions(inventory: Inventory) -> set[str]:
    """The kernel names of the partitions the inventory lists (`sdb1`, `nvme0n1p2`)."""
    return {part.name for device in inventory.block.devices for part in device.partitions}


def snapshot_histograms(source: Source, notes: list[str]) -> list[ImportedStats]:
    """The `zpool iostat -w` histograms a snapshot carries, when it carries them."""
    result = source.run(ZPOOL_IOSTAT_W)
    if not result.ok:
        return []
    try:
        named = f"commands/{ZPOOL_IOSTAT_W.key}"
        return [parse_stats(result.stdout, ImportKind.ZPOOL_IOSTAT_W, source_name=named)]
    except StatsImportError as err:
        notes.append(f"commands/{ZPOOL_IOSTAT_W.key}: not used: {err}")
        return []


def snapshot_recording(source: Source, notes: list[str]) -> list[ImportedStats]:
    """The per-I/O latency a snapshot carries (`capture --record-seconds`), when it does."""
    try:
        recording = read_recording(source)
    except RecordingError as err:
        notes.append(f"{err.problem().subject}: not used: {err}")
        return []
    if recording is None or not recording.devices:
        return []
    try:
        return [recording_imported(recording, "commands/biolat/recording.json")]
    except StatsImportError as err:
        notes.append(f"commands/biolat/recording.json: not used: {err}")
        return []


def imported_files(files: Sequence[Path], kinds: Sequence[ImportKind]) -> list[ImportedStats]:
    """Each `--import` file, read with the `--kind` given in the same position (else guessed).

    Raises `ValueError` (a `StatsImportError` for a file that cannot be read) with a message
    for the user."""
    if len(kinds) > len(files):
        raise ValueError(f"{len(kinds)} --kind options for {len(files)} --import files")
    found = []
    for position, path in enumerate(files):
        kind = kinds[position] if position < len(kinds) else None
        found.append(import_stats(path, kind))
    return found


@gc_paused()
def gather_statistics(
    source: Source,
    inventory: Inventory,
    *,
    live: bool,
    seconds: float = 1.0,
    imports: Sequence[ImportedStats] = (),
    disks: bool = True,
    network: bool = True,
    record_latency: bool = False,
    not_recorded_because: str | None = None,
    tables: list[DiskstatsTable] | None = None,
) -> HostStatistics:
    """The statistics of the host `source` reads: diskstats (`disks`) with the snapshot's
    histograms, interface counters (`network`), and the already read `imports`; on a live
    host with `record_latency`, per-I/O latency recorded in the kernel over the same window.
    `latency` says where the latency came from; `not_recorded_because` is why a live host's
    is averages only when it is not recorded here (the service's recorder cannot run).
    `tables`: a snapshot's diskstats samples already read (`read_table_series`: the
    inventory's child reads them beside the SAS walk, `service.checkup.check_source`)."""
    gathered = HostStatistics()
    notes = gathered.notes
    why_not = not_recorded_because or (NOT_ASKED if live else SNAPSHOT_HAS_NONE)
    if live and record_latency:
        gathered.tables, gathered.net_samples, recorded, failed = _recorded_window(
            seconds, disks, network
        )
        if failed is not None:
            notes.append(AVERAGES_ONLY + failed)
            why_not = failed
        gathered.imported += recorded
    elif live:
        gathered.tables, gathered.net_samples, _ = _live_samples(seconds, disks, network)
    else:
        if disks:
            gathered.tables = tables if tables is not None else read_table_series(source)
            gathered.imported = snapshot_histograms(source, notes)
            gathered.imported += snapshot_recording(source, notes)
        if network:
            gathered.net_samples = read_net_dev_series(source)
    gathered.imported += list(imports)
    if disks and len(gathered.tables) < 2:
        notes.append(
            "fewer than two diskstats samples: no load figures "
            "(a snapshot carries a series as samples/<n>/proc/diskstats)"
        )
    if network and len(gathered.net_samples) < 2:
        notes.append(
            "fewer than two /proc/net/dev samples: no traffic figures "
            "(a snapshot carries a series as samples/<n>/proc/net/dev)"
        )
    for table in gathered.tables:
        notes.extend(f"{p.subject}: {p.reason}" for p in table.problems)
    gathered.intervals = table_series_figures(gathered.tables, listed_partitions(inventory))
    gathered.latency = latency_source(
        inventory.host.source, gathered.imported, len(gathered.tables) >= 2, why_not
    )
    gathered.net_intervals = net_dev_series(gathered.net_samples, link_speeds(inventory.network))
    return gathered
