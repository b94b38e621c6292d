"""One check of one host, as `pinchpoint check` and every sweep of the service run it: collect
(or read) the inventory, gather its statistics, evaluate the rule catalog."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from pinchpoint.checks.collect.diskstats import read_table_series
from pinchpoint.checks.collect.inventory import ReadBeside, collect_inventory
from pinchpoint.checks.source import Source
from pinchpoint.model.findings import Mute, Report
from pinchpoint.model.health import DiskHealthInventory
from pinchpoint.model.inventory import Inventory, SourceKind
from pinchpoint.model.stats import ImportedStats
from pinchpoint.performance import gc_paused
from pinchpoint.rules.base import Rule
from pinchpoint.rules.catalog import CATALOG
from pinchpoint.rules.config import Config
from pinchpoint.rules.engine import build_report, rule_context
from pinchpoint.stats.gather import HostStatistics, gather_statistics


@dataclass
class Checkup:
    """What one check produced: the inventory, its statistics and the report."""

    inventory: Inventory
    statistics: HostStatistics
    report: Report


def check_source(
    source: Source,
    *,
    kind: SourceKind | None,
    live: bool,
    config: Config,
    seconds: float = 1.0,
    stored_mutes: Callable[[str], Sequence[Mute]] | None = None,
    previous: Inventory | None = None,
    known_health: DiskHealthInventory | None = None,
    catalog: tuple[Rule, ...] = CATALOG,
    progress: Callable[[str], None] | None = None,
    now: datetime | None = None,
    imports: Sequence[ImportedStats] = (),
    record_latency: bool = False,
    not_recorded_because: str | None = None,
) -> Checkup:
    """Check the host `source` reads. `extra_mutes` (the service's stored mutes) join the
    config's; `previous` is the sweep before, for rules that compare two sweeps; `imports`
    are statistics from elsewhere (the service's recorded per-I/O latency); `record_latency`
    records it in the kernel over a live check's statistics window (`docs/ebpf.md`); the report
    says where its latency came from, and `not_recorded_because` why a live host's is averages
    only when the service's recorder cannot run."""
    say = progress or (lambda _message: None)
    # A snapshot's diskstats samples are read by the inventory's child process, when it has
    # one, after its own parts: its core is idle while this one still walks the SAS fabric
    # (docs/benchmarks.md, "fourth pass").
    samples = None if live else ReadBeside(read_table_series)
    with gc_paused():  # a few hundred thousand models that hold no cycles: nothing to collect
        inventory = collect_inventory(
            source, kind=kind, progress=say, known_health=known_health, also=samples
        )
        say("gathering statistics")
        statistics = gather_statistics(
            source,
            inventory,
            live=live,
            seconds=seconds,
            imports=imports,
            record_latency=record_latency,
            not_recorded_because=not_recorded_because,
            tables=samples.result(source) if samples is not None else None,
        )
        extra = stored_mutes(inventory.host.hostname or "") if stored_mutes else ()
        if extra:
            config = config.model_copy(update={"mutes": [*config.mutes, *extra]})
        say("evaluating rules")
        context = rule_context(inventory, statistics, previous=previous, config=config)
        report = build_report(context, catalog, config, now=now)
        report.latency = statistics.latency
    return Checkup(inventory=inventory, statistics=statistics, report=report)
