"""Continuous statistics: every few seconds the load and latency of each disk and of each group
above it (enclosure, chain, HBA port, HBA), kept as series the latency heat maps read.

A live host is sampled from /proc/diskstats, and where BPF works (`docs/ebpf.md`) its per-I/O
latency is recorded in the kernel: at each tick the recorder is asked for its counts and the
tick's histograms are what it counted since the tick before — real distributions, not
averages. Where it cannot record, the sampler says why (`latency_source`, `latency_note`: the
API and the page show "averages only"). The demo host and a snapshot replay the samples they
carry, one interval per tick, with their latency histograms scaled to each interval's I/Os
(the demo is labelled as simulated everywhere it is shown). Groups go to the store with
its retention; single disks stay in memory for the last hour only, a 1,000-disk host's worth of
points for a year would not fit the store's budget.
"""

from __future__ import annotations

import logging
import math
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from pinchpoint.checks.collect.diskstats import read_diskstats_table
from pinchpoint.checks.collect.latency_recording import (
    LiveRecorder,
    RecordingError,
    read_recording,
)
from pinchpoint.checks.parse.diskstats import DiskstatsTable
from pinchpoint.checks.parse.importers.ebpf_json import recording_imported
from pinchpoint.checks.source import LiveSource, Source
from pinchpoint.checks.source.biolat import unavailable_reason
from pinchpoint.model.breakdown import GroupLevel
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.latency_recording import BlockRecording
from pinchpoint.model.latency_source import AVERAGES_ONLY, LatencySourceKind
from pinchpoint.model.stats import (
    ImportedStats,
    IntervalFigures,
    Metric,
)
from pinchpoint.service.store import Store
from pinchpoint.service.target import HostTarget
from pinchpoint.stats.disk_work import DiskWorkTotals
from pinchpoint.stats.gather import gather_statistics
from pinchpoint.stats.incremental import GroupTick, MemberColumns, TickAggregator, full_tick
from pinchpoint.stats.iostat import (
    counter_load_columns,
    interval_centiseconds,
    table_series_figures,
)
from pinchpoint.stats.member_points import Histograms, MemberSeries
from pinchpoint.stats.recorded import recording_delta, recording_repeated
from pinchpoint.stats.replay import scaled
from pinchpoint.stats.series import (
    RetentionPolicy,
    RetentionTier,
    SeriesPoint,
    SeriesQuery,
    fold_into,
)

log = logging.getLogger(__name__)
_NAN = math.nan

STORED_LEVELS = (
    GroupLevel.ENCLOSURE,
    GroupLevel.CHAIN,
    GroupLevel.HBA_PORT,
    GroupLevel.HBA,
    GroupLevel.CONTROLLER_PORT,
    GroupLevel.CONTROLLER,
    GroupLevel.FC_PORT,
    GroupLevel.FC_ADAPTER,
)
SAMPLED_LEVELS = (GroupLevel.DISK, GroupLevel.LUN, *STORED_LEVELS)
MEMBER_LEVELS = frozenset((GroupLevel.DISK, GroupLevel.LUN))  # kept in memory, not stored


GROUP_BUCKET_S = 10  # the groups' finest points in the store


def group_policy() -> RetentionPolicy:
    """Groups in the store: 10 s points for an hour, 5 min for a week, 1 h for 90 days."""
    return RetentionPolicy(
        tiers=[
            RetentionTier(resolution_s=GROUP_BUCKET_S, keep_s=3600),
            RetentionTier(resolution_s=300, keep_s=7 * 86400),
            RetentionTier(resolution_s=3600, keep_s=90 * 86400),
        ]
    )


def member_policy() -> RetentionPolicy:
    """Single disks in memory: 10 s points for 10 minutes, 1 min points for an hour."""
    return RetentionPolicy(
        tiers=[
            RetentionTier(resolution_s=10, keep_s=600),
            RetentionTier(resolution_s=60, keep_s=3600),
        ]
    )


WINDOW_S = 300.0  # how much recorded latency a sweep's rules judge: a default sweep interval
# the words of `GET /v1/stats` latency_source, the same as a report's (model/latency_source.py)
EBPF, DISKSTATS, REPLAYED = (
    LatencySourceKind.EBPF.value,
    LatencySourceKind.DISKSTATS.value,
    LatencySourceKind.REPLAYED.value,
)
RECORDING_OFF = "it is turned off (record_latency = false)"
NOTHING_YET = "the service's recorder has not counted an interval yet"


def _snapshot_recording(source: Source) -> BlockRecording | None:
    """The per-I/O latency recording a snapshot carries (`capture --record-seconds`), None when
    it carries none or none that can be used (the sweep's report says why)."""
    try:
        return read_recording(source)
    except RecordingError:
        return None


class IntervalSource:
    """Where each tick's interval comes from: the live counters (with the kernel's per-I/O
    latency where it can be recorded) or a replayed recording."""

    def __init__(
        self,
        target: HostTarget,
        record_latency: bool = False,
        record_budget_bytes: int | None = None,
    ) -> None:
        self.target = target
        self._budget_bytes = record_budget_bytes  # the recorder's maps' (its default when None)
        self._previous: DiskstatsTable | None = None
        self._partitions: tuple[Inventory, frozenset[str]] | None = None  # per inventory
        self._recorded: list[IntervalFigures] | None = None
        self.imports: list[ImportedStats] = []
        self._position = 0
        self.latency_source = DISKSTATS if target.live else REPLAYED
        self.latency_note: str | None = None
        self.latency_reason: str | None = None  # the note's reason alone, for a sweep's report
        self._record = record_latency and target.live
        if target.live and not record_latency:
            self._averages_only(RECORDING_OFF)
        self._recorder: LiveRecorder | None = None
        self._counted: BlockRecording | None = None  # the recorder's counts at the last tick
        # the counts at each tick of the last `WINDOW_S`, oldest first: a sweep's rules judge
        # what was recorded since the oldest
        self._history: deque[BlockRecording] = deque()
        self._replayed_recording: BlockRecording | None = None  # a snapshot's, once per tick

    @property
    def replayed(self) -> bool:
        return not self.target.live

    @property
    def counted(self) -> BlockRecording | None:
        """The recorder's counts at the last tick (cumulative since it started); replayed, the
        snapshot's recording once per tick so far."""
        return self._counted

    def _fall_back(self, reason: str) -> None:
        if self._recorder is not None:
            self._recorder.stop()
        self._recorder, self._record = None, False
        self.imports = []
        self._averages_only(reason)
        log.warning("statistics: %s", self.latency_note)

    def _averages_only(self, reason: str) -> None:
        self.latency_source = DISKSTATS
        self.latency_reason = reason
        self.latency_note = AVERAGES_ONLY + reason

    def _recorded_latency(self, first: bool) -> None:
        """This tick's per-I/O latency: what the recorder counted since the last tick."""
        if not self._record:
            return
        try:
            if self._recorder is None:
                self._recorder = LiveRecorder(LiveSource(), self._budget_bytes)
                self._recorder.start()
            counted = self._recorder.current()
        except RecordingError as err:
            self._fall_back(str(err))
            return
        if counted is None:  # no answer in time: this tick has diskstats only
            self.imports = []
            self._counted = None
            return
        earlier, self._counted = self._counted, counted
        self._history.append(counted)
        while self._history and counted.seconds - self._history[0].seconds > WINDOW_S:
            self._history.popleft()
        if first or earlier is None:
            self.imports = []
            return
        delta = recording_delta(earlier, counted)
        self.imports = [recording_imported(delta, EBPF)] if delta.seconds > 0 else []
        self.latency_source, self.latency_note, self.latency_reason = EBPF, None, None

    def next_tables(
        self, inventory: Inventory
    ) -> tuple[DiskstatsTable, DiskstatsTable, frozenset[str]] | None:
        """A live host's counters at the last tick and now, without the partitions (their
        disk's line counts them), and those partitions; None at the first tick, which only sets
        the baseline."""
        if self._partitions is None or self._partitions[0] is not inventory:
            names = frozenset(p.name for d in inventory.block.devices for p in d.partitions)
            self._partitions = (inventory, names)
        partitions = self._partitions[1]
        # their lines not read past the name, nor the lines that did not change since the last
        current = read_diskstats_table(leave_out=partitions, previous=self._previous)
        previous, self._previous = self._previous, current
        self._recorded_latency(first=previous is None)
        if previous is None:
            return None
        return previous, current, partitions

    def next(self, inventory: Inventory) -> IntervalFigures | None:
        if self.target.live:
            tables = self.next_tables(inventory)
            if tables is None:
                return None
            previous, current, partitions = tables
            figures = table_series_figures([previous, current], leave_out=partitions)
            return figures[0] if figures else None
        if self._recorded is None:
            with self.target.source() as source:
                gathered = gather_statistics(source, inventory, live=False, network=False)
                self._replayed_recording = _snapshot_recording(source)
            self._recorded = gathered.intervals
            self.imports = gathered.imported
        if not self._recorded:
            return None
        interval = self._recorded[self._position % len(self._recorded)]
        self._position += 1
        if self._replayed_recording is not None:  # counted as a recorder running since start
            self._counted = recording_repeated(self._replayed_recording, self._position)
        return interval

    def not_recorded_because(self) -> str | None:
        """Why there is no recorded latency for a sweep to judge: the reason the recorder
        cannot run (known before the first tick tries it), or that it has counted nothing yet;
        None when it is not a live host."""
        if not self.target.live:
            return None
        if self.latency_reason is not None:
            return self.latency_reason
        if self._record and self._recorder is None:
            return unavailable_reason() or NOTHING_YET
        return NOTHING_YET

    def recent(self) -> list[ImportedStats]:
        """What the recorder counted over about the last `WINDOW_S` (since the oldest tick
        kept), as statistics the rules read; none when it does not record."""
        if self._counted is None or not self._history:
            return []
        oldest = self._history[0]
        if oldest is self._counted:
            return []
        delta = recording_delta(oldest, self._counted)
        return [recording_imported(delta, EBPF)] if delta.seconds > 0 and delta.devices else []

    def close(self) -> None:
        """Stop the recorder, if one runs."""
        if self._recorder is not None:
            self._recorder.stop()
            self._recorder = None


def _every_load(before: DiskstatsTable, after: DiskstatsTable) -> list[list[float]] | None:
    """`counter_load_columns` of every device of two tables listing the same devices; None
    when they do not, or a counter went back (each user then sums its own way)."""
    itv, _ = interval_centiseconds(before, after)
    if itv is None or not (math.isfinite(itv) and itv > 0) or before.names != after.names:
        return None
    if not after.names:
        return None
    return counter_load_columns(before, after, range(len(after.names)), itv)


def _member_columns(
    members: list[tuple[str, dict[Metric, float], Histograms]],
) -> tuple[list[str], dict[Metric, list[float]], list[Histograms] | None]:
    """The disks' points of one tick as columns: their ids, a list per metric (NaN where a
    disk has no value), and their histograms (None when none has any)."""
    entities = [entity for entity, _, _ in members]
    metrics = dict.fromkeys(metric for _, values, _ in members for metric in values)
    columns = {metric: [values.get(metric, _NAN) for _, values, _ in members] for metric in metrics}
    histograms = [own for _, _, own in members]
    return entities, columns, histograms if any(histograms) else None


@dataclass
class _PendingBucket:
    """The groups' points of the 10-second bucket being filled, written once it is done."""

    host: str
    start_s: int
    points: dict[str, SeriesPoint] = field(default_factory=dict)


class StatsSampler:
    """Takes one interval per tick and records it for every disk and group."""

    def __init__(
        self,
        target: HostTarget,
        store: Store,
        inventory: Callable[[], Inventory | None],
        slower_than_s: float = 0.22,
        record_latency: bool = False,
        record_budget_bytes: int | None = None,
    ) -> None:
        self.store = store
        self.source = IntervalSource(target, record_latency, record_budget_bytes)
        self.inventory = inventory
        self.slower_than_s = slower_than_s
        self.members = MemberSeries(member_policy())
        self.names: dict[str, tuple[GroupLevel, str]] = {}  # entity id -> level and name
        self._named: list[str] | None = None  # the member ids last added to `names`
        self.policy = group_policy()
        self._lock = threading.Lock()
        self._pending: _PendingBucket | None = None
        self.ticks = 0
        self._aggregator: TickAggregator | None = None
        self._compact_at = math.inf  # when a disk's point can first outlive its tier
        self.work = DiskWorkTotals()  # each disk's work since the start (`/metrics` counters)

    def tick(self, now: datetime | None = None) -> int:
        """Record one interval; returns how many series got a point."""
        now = now or datetime.now(UTC)
        inventory = self.inventory()
        if inventory is None:
            return 0
        if self.source.target.live:  # summed from the raw counters: no figures per device
            tables = self.source.next_tables(inventory)
            if tables is None:
                return 0
            previous, current, partitions = tables
            loads = _every_load(previous, current)  # once, for the disks' work and the groups
            self.work.add_tables(inventory, previous, current, loads)
            imports = self.source.imports
            quick = self._aggregator_for(inventory).tick_tables_columns(
                previous, current, partitions, imports, MEMBER_LEVELS, loads
            )
            if quick is not None:
                groups, members, seconds = quick
                return self._keep(inventory, groups, seconds, imports, now, members=members)
            figures = table_series_figures([previous, current], leave_out=partitions)
            return self.record(inventory, figures[0], imports, now) if figures else 0
        interval = self.source.next(inventory)
        if interval is None:
            return 0
        self.work.add_interval(inventory, interval)
        return self.record(inventory, interval, self.source.imports, now)

    def record(
        self,
        inventory: Inventory,
        interval: IntervalFigures,
        imports: Sequence[ImportedStats],
        now: datetime,
        host: str | None = None,
    ) -> int:
        """Group `interval` along the hierarchy and add a point per entity at `now`."""
        groups = self._groups(inventory, interval, imports)
        return self._keep(inventory, groups, interval.interval_s, imports, now, host)

    def _keep(
        self,
        inventory: Inventory,
        groups: list[GroupTick],
        seconds: float,
        imports: Sequence[ImportedStats],
        now: datetime,
        host: str | None = None,
        members: MemberColumns | None = None,
    ) -> int:
        """A point per group of one interval of `seconds` at `now` (the disks and LUNs among
        `groups`, or as `members`' columns): disks and LUNs in memory,
        the groups above them added to their 10-second bucket, written to the store in one
        write once the next bucket starts (`_pending`); returns how many groups got a point."""
        stored = 0
        ticks = []
        host = host or inventory.host.hostname or ""
        start = int(now.timestamp()) // GROUP_BUCKET_S * GROUP_BUCKET_S
        with self._lock:
            current = self._pending
            if current is not None and (current.host, current.start_s) == (host, start):
                done = None
            else:  # a new bucket: the one filled so far is written once the lock is let go
                done, current = current, _PendingBucket(host, start)
                self._pending = current
            pending = current.points
            for group in groups:
                self.names[group.id] = (group.level, group.name)
                histograms = {}
                if group.histogram is not None:
                    ios = group.iops * seconds
                    # a replayed histogram is scaled to the interval's I/Os (each kind keeping
                    # its share); a recorded one holds exactly the interval's own
                    replay = imports and self.source.replayed
                    whole = group.histogram.count
                    for kind, own in group.histograms.items():
                        share = ios * own.count / whole if whole else 0.0
                        fitted = scaled(own, share) if replay else own
                        if fitted is not None:
                            histograms[kind] = fitted
                if group.level in MEMBER_LEVELS:
                    ticks.append((group.id, group.values, histograms))
                else:
                    point = pending.get(group.id)
                    if point is None:
                        point = pending[group.id] = SeriesPoint(
                            start_s=start, resolution_s=GROUP_BUCKET_S
                        )
                    fold_into(point, seconds, group.values, histograms)
                    stored += 1
            if members is not None:
                if members.ids is not self._named:  # a plan's members are named once
                    self.names.update(
                        zip(
                            members.ids,
                            zip(members.levels, members.names, strict=True),
                            strict=True,
                        )
                    )
                    self._named = members.ids
                self.members.add_columns(now, seconds, members.ids, members.values)
            else:
                self.members.add_columns(now, seconds, *_member_columns(ticks))
            # compacted only when a point can have outlived its tier (not every second): a
            # point added now lives at least the finest tier's time. Half a bucket later than
            # that: a point outlives its tier as a bucket ends, and the tick that closes a
            # bucket already turns the disks' columns into points and writes the groups' (the
            # work of the tick spread, the same points kept a few seconds longer)
            now_s = (now if now.tzinfo else now.replace(tzinfo=UTC)).timestamp()  # naive: UTC
            finest = self.members.policy.tiers[0]
            later = finest.resolution_s / 2
            self._compact_at = min(self._compact_at, now_s + finest.keep_s + later)
            if now_s >= self._compact_at:
                self.members.compact(now)
                self._compact_at = self.members.next_expiry_s() + later
            self.ticks += 1
        if done is not None:
            self._write(done)
        return stored

    def _write(self, bucket: _PendingBucket) -> None:
        """The groups' points of a bucket into the store, in one write."""
        if bucket.points:
            self.store.add_series_points(bucket.host, list(bucket.points.items()))

    def flush(self) -> None:
        """Write the groups' points of the bucket being filled (before compacting, at exit)."""
        with self._lock:
            bucket, self._pending = self._pending, None
        if bucket is not None:
            self._write(bucket)

    def pending_point(self, host: str, entity: str) -> SeriesPoint | None:
        """A group's point of the bucket being filled, not in the store yet (a copy)."""
        with self._lock:
            bucket = self._pending
            if bucket is None or bucket.host != host or entity not in bucket.points:
                return None
            return bucket.points[entity].model_copy(deep=True)

    def _aggregator_for(self, inventory: Inventory) -> TickAggregator:
        """The incremental breakdown of `inventory`: made again when a sweep brings a new one."""
        if self._aggregator is None or self._aggregator.inventory is not inventory:
            self._aggregator = TickAggregator(inventory, SAMPLED_LEVELS)
        return self._aggregator

    def _groups(
        self, inventory: Inventory, interval: IntervalFigures, imports: Sequence[ImportedStats]
    ) -> list[GroupTick]:
        """Every measured group of `interval`: summed by the plan made once per inventory
        (`TickAggregator`), else (a device reset, imported figures) by the full breakdown."""
        found = self._aggregator_for(inventory).tick(interval, imports)
        if found is not None:
            return found
        return full_tick(inventory, interval, imports, SAMPLED_LEVELS, self.slower_than_s)

    @property
    def latency(self) -> tuple[str, str | None]:
        """Where the latency of the series comes from (`ebpf`, `diskstats`, `replayed`), and
        why it is averages only when it is."""
        return self.source.latency_source, self.source.latency_note

    def not_recorded_because(self) -> str | None:
        """Why the live host's latency is averages only, for a sweep's report (None when it
        is not a live host)."""
        return self.source.not_recorded_because()

    def close(self) -> None:
        self.source.close()
        self.flush()

    def recorded(self) -> BlockRecording | None:
        """Everything the kernel recorder counted since it started, as of the last tick."""
        return self.source.counted

    def recent_recorded(self) -> list[ImportedStats]:
        """The per-I/O latency recorded over the last few minutes, for a sweep's rules (read
        from the sweep's thread: a recording is never changed once made, and the tick only
        appends to and trims the history)."""
        return self.source.recent()

    def member_points(self, entity: str, start: datetime, end: datetime) -> SeriesQuery:
        """A disk's (or LUN's) points kept in memory over [start, end), read under the lock a
        tick writes them under."""
        with self._lock:
            return self.members.query(entity, start, end)

    def compact(self, host: str, now: datetime | None = None) -> None:
        """Roll old points of the stored series into coarser ones (hourly)."""
        self.flush()
        self.store.compact_series(host, self.policy, now)
