"""fio `--output-format=json` and `json+`: per job IOPS, bandwidth, latency percentiles and
histograms.

fio 3 reports latencies in nanoseconds (`clat_ns`, `lat_ns`); fio 2 in microseconds (`clat`,
`lat`). Completion latency (`clat`) is what fio reports percentiles of by default; with
`lat_percentiles=1` they are under `lat_ns` instead, and are taken from there. With `json+`
each latency carries `bins` (fio's own bucket value → count): those give an exact histogram. From
percentiles alone the histogram is approximate: the I/Os between two consecutive percentiles
are placed between their two latencies (see `percentile_histogram`).

fio prints warnings before the JSON (`fio: …`, `note: …`); they are skipped and counted.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from pinchpoint.checks.parse.importers.series import EntityTable, StatsImportError
from pinchpoint.checks.parse.json_text import MAX_JSON_DEPTH, JsonTooDeepError, json_too_deep
from pinchpoint.model.histogram import LatencyHistogram
from pinchpoint.model.stats import (
    HistogramKind,
    ImportedStats,
    ImportKind,
    Metric,
    ParseSkips,
    PercentilePoint,
    StatPoint,
    StatsEntityKind,
)

__all__ = ["parse_fio_json", "percentile_histogram"]

NS_PER_S = 1_000_000_000
DIRECTIONS = {
    "read": (HistogramKind.READ, Metric.READ_IOPS, Metric.READ_KBPS, Metric.READ_LATENCY_MS),
    "write": (HistogramKind.WRITE, Metric.WRITE_IOPS, Metric.WRITE_KBPS, Metric.WRITE_LATENCY_MS),
}


def _document(text: str, source_name: str, skipped: ParseSkips) -> dict[str, Any]:
    """The JSON object in fio's output, after any warning lines fio printed before it."""
    lines = text.splitlines(keepends=True)
    offset = 0
    for number, line in enumerate(lines, start=1):
        if line.lstrip().startswith("{"):
            break
        if line.strip():
            skipped.add(number, line.rstrip(), "printed by fio before its JSON")
        offset += len(line)
    else:
        raise StatsImportError(
            f"{source_name}: no JSON object found (expected fio --output-format=json)"
        )
    body = text[offset:].lstrip()
    if json_too_deep(body):
        raise StatsImportError(f"{source_name}: {JsonTooDeepError(MAX_JSON_DEPTH)}")
    try:
        document, _end = json.JSONDecoder().raw_decode(body)
    except json.JSONDecodeError as error:
        raise StatsImportError(
            f"{source_name}: fio JSON is invalid or cut short ({error})"
        ) from None
    if not isinstance(document, dict):
        raise StatsImportError(f"{source_name}: the JSON is not an object")
    return document


def _latency(direction: dict[str, Any], scaled: str, plain: str) -> tuple[dict[str, Any], int]:
    """A latency block and the factor to nanoseconds: `clat_ns` (fio 3) or `clat` in µs (fio 2)."""
    block = direction.get(scaled)
    if isinstance(block, dict):
        return block, 1
    block = direction.get(plain)
    if isinstance(block, dict):
        return block, 1000
    return {}, 1


def percentile_histogram(
    percentiles: list[tuple[float, int]], total: int, low_ns: int, high_ns: int
) -> LatencyHistogram:
    """An approximate histogram of `total` I/Os from (percent, latency ns) pairs: the I/Os
    between two consecutive percentiles lie between their latencies, those below the first
    between the minimum and it, those above the last between it and the maximum."""
    histogram = LatencyHistogram()
    placed = 0
    previous_ns = low_ns
    for percent, value_ns in [*percentiles, (100.0, max(high_ns, percentiles[-1][1]))]:
        upto = round(total * percent / 100.0)
        count = upto - placed
        if count > 0:
            histogram.record_range_ns(previous_ns, max(value_ns, previous_ns + 1), count)
            placed = upto
        previous_ns = value_ns
    if histogram.count:
        histogram.min_ns = low_ns
        histogram.max_ns = max(high_ns, histogram.max_ns or 0)
    return histogram


def _percentiles(block: dict[str, Any], factor: int) -> list[tuple[float, int]]:
    """(percent, ns) pairs in rising order; fio 2's `"0.00": 0` filler entries dropped."""
    raw = block.get("percentile")
    if not isinstance(raw, dict):
        return []
    pairs = []
    for key, value in raw.items():
        try:
            percent = float(key)
        except ValueError:
            continue
        if percent > 0 and isinstance(value, int | float) and value >= 0:
            pairs.append((percent, int(value * factor)))
    return sorted(pairs)


def _direction_histogram(
    blocks: list[tuple[dict[str, Any], int]], total: int
) -> tuple[LatencyHistogram | None, list[tuple[float, int]]]:
    """The histogram and percentiles of the first latency block that has them."""
    for block, factor in blocks:
        bins = block.get("bins")
        percentiles = _percentiles(block, factor)
        if isinstance(bins, dict) and bins:
            histogram = LatencyHistogram()
            for value, count in bins.items():
                if str(value).isdigit() and isinstance(count, int):
                    histogram.record_ns(int(value) * factor, count)
            return histogram, percentiles
        if percentiles and total > 0:
            low = int(block.get("min", 0) * factor)
            high = int(block.get("max", 0) * factor)
            return percentile_histogram(percentiles, total, low, high), percentiles
    return None, []


def _jobs(document: dict[str, Any], source_name: str) -> list[Any]:
    jobs = document.get("jobs", document.get("client_stats"))
    if not isinstance(jobs, list):
        raise StatsImportError(f"{source_name}: the fio JSON has no jobs list")
    return jobs


def parse_fio_json(text: str, source_name: str) -> ImportedStats:
    """Each fio job as an entity: one point with read/write IOPS, bandwidth and mean latency,
    latency percentiles, and a read and write histogram."""
    skipped = ParseSkips()
    problems: list[str] = []
    document = _document(text, source_name, skipped)
    started = document.get("timestamp")
    started_at = datetime.fromtimestamp(started, tz=UTC) if isinstance(started, int) else None
    table = EntityTable()
    for index, job in enumerate(_jobs(document, source_name), start=1):
        if not isinstance(job, dict) or not isinstance(job.get("jobname"), str):
            skipped.add(index, str(job), "a job without a jobname")
            continue
        name = job["jobname"]
        if name in table:
            name = f"{name}#{index}"  # numjobs=N without group_reporting repeats the name
        if job.get("error"):
            problems.append(f"fio job {name} ended with error {job['error']}")
        entity = table.get(name, StatsEntityKind.JOB)
        values: dict[Metric, float] = {}
        runtime_s = 0.0
        for key, (kind, iops_metric, kbps_metric, latency_metric) in DIRECTIONS.items():
            direction = job.get(key)
            if not isinstance(direction, dict):
                continue
            total = int(direction.get("total_ios", 0) or 0)
            if total <= 0:
                continue
            runtime_s = max(runtime_s, float(direction.get("runtime", 0)) / 1000.0)
            values[iops_metric] = float(direction.get("iops", 0.0))
            values[kbps_metric] = float(direction.get("bw", 0.0))  # KiB/s
            clat = _latency(direction, "clat_ns", "clat")
            lat = _latency(direction, "lat_ns", "lat")
            whole = lat if lat[0].get("mean") else clat
            if whole[0].get("mean"):
                values[latency_metric] = float(whole[0]["mean"]) * whole[1] / 1_000_000
            histogram, percentiles = _direction_histogram([clat, lat], total)
            if histogram is not None and histogram.count:
                entity.histograms[kind] = histogram
            entity.percentiles.extend(
                PercentilePoint(kind=kind, percent=p, latency_s=ns / NS_PER_S)
                for p, ns in percentiles
            )
        if not values:
            problems.append(f"fio job {name} did no reads or writes")
        job_start = job.get("job_start")
        at = (
            datetime.fromtimestamp(job_start / 1000, tz=UTC)
            if isinstance(job_start, int) and job_start > 0
            else started_at
        )
        entity.points.append(StatPoint(at=at, interval_s=runtime_s or None, values=values))
    if not table.entities():
        raise StatsImportError(f"{source_name}: the fio JSON holds no job")
    return ImportedStats(
        kind=ImportKind.FIO_JSON,
        source_name=source_name,
        started_at=started_at,
        entities=table.entities(),
        skipped=skipped,
        problems=problems,
    )
