"""`stats import`: read another tool's statistics file (zpool iostat, iostat, fio, PerfMon)."""

from __future__ import annotations

import sys
from pathlib import Path

from rich.console import Group
from rich.text import Text

from pinchpoint.checks.collect.imports import import_stats
from pinchpoint.checks.parse.importers import StatsImportError
from pinchpoint.cli.errors import exit_for
from pinchpoint.cli.fitted import FittedTable
from pinchpoint.cli.markdown import print_views
from pinchpoint.model.histogram import LatencyHistogram
from pinchpoint.model.stats import EntityStats, ImportedStats, ImportKind, Metric
from pinchpoint.report import ReportFormat
from pinchpoint.text import json_printable
from pinchpoint.units import latency_text

__all__ = []

KEY_METRICS = (
    Metric.READ_IOPS,
    Metric.WRITE_IOPS,
    Metric.READ_LATENCY_MS,
    Metric.WRITE_LATENCY_MS,
    Metric.QUEUE,
    Metric.UTIL_PCT,
)


def _span(entity: EntityStats) -> str:
    times = [p.at for p in entity.points if p.at is not None]
    if not times:
        return "—"
    return f"{min(times):%Y-%m-%d %H:%M:%S} → {max(times):%H:%M:%S}"


def _mean_max(entity: EntityStats, metric: Metric) -> str:
    values = [p.values[metric] for p in entity.points if metric in p.values]
    if not values:
        return ""
    return f"{sum(values) / len(values):.4g} / {max(values):.4g}"


def _histogram_cell(histogram: LatencyHistogram) -> str:
    if histogram.empty:
        return "no samples"
    return (
        f"n={histogram.count:,} p50 {latency_text(histogram.percentile_s(50))} "
        f"p99 {latency_text(histogram.percentile_s(99))} "
        f"p99.9 {latency_text(histogram.percentile_s(99.9))} "
        f"max {latency_text(histogram.max_s())}"
    )


def summary_view(imported: ImportedStats) -> Group:
    """Per entity: points, time span, mean/max of the key metrics, histograms in brief."""
    title = f"{imported.source_name}: {imported.kind.value}"
    if imported.host:
        title += f" from {imported.host}"
    shown = [
        m for m in KEY_METRICS if any(m in p.values for e in imported.entities for p in e.points)
    ]
    # a narrow terminal continues the columns in a second table (the entity repeated) rather
    # than cutting names and numbers to "…"; histograms are lines of their own below
    table = FittedTable(
        title,
        [
            ("entity", "left"),
            ("kind", "left"),
            ("points", "right"),
            ("span", "left"),
            *((f"{metric.value}\nmean / max", "right") for metric in shown),
        ],
    )
    histograms: list[Text] = []
    for entity in imported.entities:
        name = entity.name if entity.parent is None else f"{entity.name}\n  in {entity.parent}"
        table.add_row(
            name,
            entity.kind.value,
            str(len(entity.points)),
            _span(entity),
            *(_mean_max(entity, m) for m in shown),
        )
        for kind, histogram in entity.histograms.items():
            line = f"{entity.name} {kind.value}: {_histogram_cell(histogram)}"
            histograms.append(Text(line, overflow="fold"))
    if histograms:
        histograms.insert(0, Text("histograms:", style="bold"))
    notes = [Text(f"note: {p}", style="yellow") for p in imported.problems]
    skipped = imported.skipped.summary()
    if skipped:
        notes.append(Text(f"skipped: {skipped}", style="yellow"))
    return Group(table, *histograms, *notes)


def import_report(
    file: Path,
    kind: ImportKind | None,
    form: ReportFormat,
) -> None:
    """`pinchpoint stats import`: one statistics file, summarised or as JSON."""
    try:
        imported = import_stats(file, kind)
    except StatsImportError as error:
        raise exit_for(error) from None
    if form is ReportFormat.JSON:
        sys.stdout.write(json_printable(imported.model_dump_json(indent=2)) + "\n")
    else:
        print_views([summary_view(imported)], markdown=form is ReportFormat.MARKDOWN)
