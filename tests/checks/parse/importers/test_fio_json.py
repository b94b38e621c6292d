"""fio JSON and json+ (real fio 3.33 runs) and fio 2 microsecond latencies."""

from __future__ import annotations

import json

import pytest
from fixture_paths import IMPORTS

from pinchpoint.checks.collect.imports import import_stats
from pinchpoint.checks.parse.importers import StatsImportError, parse_stats
from pinchpoint.checks.parse.importers.fio_json import percentile_histogram
from pinchpoint.model.stats import HistogramKind, ImportKind, Metric, StatsEntityKind

JSON_PLUS = IMPORTS / "fio-3.33_jsonplus_randread_seqwrite.json"
JSON = IMPORTS / "fio-3.33_json_randrw.json"


def test_jobs_become_entities_with_iops_bandwidth_and_latency() -> None:
    imported = import_stats(JSON_PLUS)
    assert imported.kind is ImportKind.FIO_JSON
    assert [(e.name, e.kind) for e in imported.entities] == [
        ("randread", StatsEntityKind.JOB),
        ("seqwrite", StatsEntityKind.JOB),
    ]
    raw = json.loads(JSON_PLUS.read_text())["jobs"][0]["read"]
    point = imported.entities[0].points[0]
    assert point.values[Metric.READ_IOPS] == raw["iops"]
    assert point.values[Metric.READ_KBPS] == raw["bw"]
    assert point.values[Metric.READ_LATENCY_MS] == pytest.approx(raw["lat_ns"]["mean"] / 1e6)
    assert point.interval_s == raw["runtime"] / 1000
    assert Metric.WRITE_IOPS not in point.values  # a read-only job


def test_json_plus_bins_give_an_exact_histogram() -> None:
    raw = json.loads(JSON_PLUS.read_text())["jobs"][0]["read"]["clat_ns"]
    histogram = import_stats(JSON_PLUS).entities[0].histograms[HistogramKind.READ]
    assert histogram.count == raw["N"] == sum(raw["bins"].values())
    assert histogram.max_ns == max(int(v) for v in raw["bins"])
    # fio's own percentile and ours agree within one of our buckets (12.5%)
    ours = histogram.percentile_s(99) or 0
    assert ours == pytest.approx(raw["percentile"]["99.000000"] / 1e9, rel=0.13)


def test_percentiles_are_kept_as_reported() -> None:
    raw = json.loads(JSON.read_text())["jobs"][0]["write"]["clat_ns"]["percentile"]
    entity = import_stats(JSON).entities[0]
    writes = {p.percent: p.latency_s for p in entity.percentiles if p.kind is HistogramKind.WRITE}
    assert writes[99.9] == raw["99.900000"] / 1e9
    assert len(writes) == len(raw)


def test_without_bins_the_histogram_follows_the_percentiles() -> None:
    entity = import_stats(JSON).entities[0]
    raw = json.loads(JSON.read_text())["jobs"][0]["read"]
    histogram = entity.histograms[HistogramKind.READ]
    assert histogram.count == raw["total_ios"]
    assert histogram.percentile_s(50) == pytest.approx(
        raw["clat_ns"]["percentile"]["50.000000"] / 1e9, rel=0.13
    )


def test_percentile_histogram_places_every_io_between_its_percentiles() -> None:
    histogram = percentile_histogram(
        [(50.0, 1_000_000), (99.0, 10_000_000)], 1000, 500_000, 50_000_000
    )
    assert histogram.count == 1000
    assert histogram.count_above(0.010) == pytest.approx(10, abs=2)
    assert histogram.min_ns == 500_000 and histogram.max_ns == 50_000_000


def test_fio_2_reports_microseconds() -> None:
    text = json.dumps(
        {
            "fio version": "fio-2.2.10",
            "timestamp": 1510963172,
            "jobs": [
                {
                    "jobname": "test",
                    "error": 0,
                    "write": {
                        "iops": 15624.70,
                        "bw": 62499,
                        "runtime": 600008,
                        "total_ios": 9374944,
                        "clat": {
                            "min": 964,
                            "max": 261110,
                            "mean": 8151.19,
                            "percentile": {"50.000000": 8160, "99.900000": 14912, "0.00": 0},
                        },
                        "lat": {"min": 989, "max": 261142, "mean": 8182.26},
                    },
                }
            ],
        }
    )
    entity = parse_stats(text).entities[0]
    assert entity.points[0].values[Metric.WRITE_LATENCY_MS] == pytest.approx(8.18226)
    assert [(p.percent, p.latency_s) for p in entity.percentiles] == [
        (50.0, 0.00816),
        (99.9, 0.014912),
    ]
    assert entity.histograms[HistogramKind.WRITE].max_s() == pytest.approx(0.26111)


def test_warnings_before_the_json_are_skipped() -> None:
    text = "fio: this platform does not support process shared mutexes, forcing use of threads\n"
    text += "note: both iodepth >= 1 and synchronous I/O engine are selected\n" + JSON.read_text()
    imported = parse_stats(text)
    assert imported.kind is ImportKind.FIO_JSON
    assert imported.skipped.count == 2 and imported.skipped.first_line_number == 1
    assert imported.entities[0].name == "randrw"


def test_job_errors_and_idle_jobs_are_reported() -> None:
    document = json.loads(JSON.read_text())
    document["jobs"][0]["error"] = 5
    idle = {"jobname": "idle", "read": {"total_ios": 0}, "write": {"total_ios": 0}}
    document["jobs"].append(idle)
    imported = parse_stats(json.dumps(document))
    assert "fio job randrw ended with error 5" in imported.problems
    assert "fio job idle did no reads or writes" in imported.problems


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"fio version": "fio-3.33", "jobs": [{"jobname"', "invalid or cut short"),
        ("fio: engine libaio not loadable\n", "no JSON object"),
        ('{"fio version": "fio-3.33"}', "no jobs list"),
    ],
    ids=["truncated", "only-warnings", "no-jobs"],
)
def test_broken_fio_output_fails_clearly(text: str, message: str) -> None:
    with pytest.raises(StatsImportError, match=message):
        parse_stats(text, ImportKind.FIO_JSON)
