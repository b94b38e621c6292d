"""Windows PerfMon CSV: counters to metrics, time zones, localised files and bad cells."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from fixture_paths import IMPORTS

from pinchpoint.checks.collect.imports import import_stats
from pinchpoint.checks.parse.importers import StatsImportError, parse_stats
from pinchpoint.model.stats import ImportKind, Metric, StatsEntityKind

RELOG = IMPORTS / "synthetic__perfmon_relog_DBSRV01_LogicalDisk_H.csv"
GERMAN = IMPORTS / "synthetic__perfmon_de_semicolon_decimal_comma.csv"


def _volume(imported, name):  # type: ignore[no-untyped-def]
    return next(e for e in imported.entities if e.name == name)


def test_disk_counters_become_volume_metrics_in_ms_and_kb() -> None:
    imported = import_stats(RELOG)
    assert imported.kind is ImportKind.PERFMON_CSV
    assert imported.host == "DBSRV01"
    assert [(e.name, e.kind) for e in imported.entities] == [
        ("LogicalDisk(H:)", StatsEntityKind.VOLUME),
        ("LogicalDisk(_Total)", StatsEntityKind.VOLUME),
        ("PhysicalDisk(1 H:)", StatsEntityKind.VOLUME),
    ]
    h = _volume(imported, "LogicalDisk(H:)")
    second = h.points[1].values
    assert second[Metric.READ_LATENCY_MS] == pytest.approx(182.1)
    assert second[Metric.WRITE_LATENCY_MS] == pytest.approx(4.3)
    assert second[Metric.READ_IOPS] == 672.0
    assert second[Metric.READ_KBPS] == pytest.approx(5376.0)
    assert second[Metric.QUEUE] == pytest.approx(2.4183)
    assert second[Metric.CURRENT_QUEUE] == 4.0
    assert second[Metric.IDLE_PCT] == pytest.approx(38.51234)
    assert second[Metric.UTIL_PCT] == pytest.approx(61.48766)


def test_timestamps_month_first_in_the_header_zone() -> None:
    h = _volume(import_stats(RELOG), "LogicalDisk(H:)")
    assert h.points[1].at == datetime(2026, 11, 21, 23, 40, 15, 123000, tzinfo=UTC)
    assert h.points[1].interval_s == pytest.approx(15.002)
    german = import_stats(GERMAN).entities[0]
    assert german.points[0].at is not None
    assert german.points[0].at.utcoffset() == timedelta(hours=1)
    assert german.points[0].at.tzinfo == timezone(timedelta(hours=1))


def test_the_blank_first_sample_is_skipped_and_counted() -> None:
    imported = import_stats(RELOG)
    h = _volume(imported, "LogicalDisk(H:)")
    assert h.points[0].values == {Metric.CURRENT_QUEUE: 3.0}  # only the instant counter
    assert any(p.startswith("13 cells skipped") for p in imported.problems)


def test_semicolons_decimal_comma_and_a_text_cell() -> None:
    imported = import_stats(GERMAN)
    h = imported.entities[0]
    assert h.points[0].values[Metric.READ_LATENCY_MS] == pytest.approx(182.1)
    assert h.points[0].values[Metric.QUEUE] == pytest.approx(2.4183)
    assert Metric.QUEUE not in h.points[1].values  # "n/a"
    assert h.points[1].values[Metric.IDLE_PCT] == 41.0
    assert any("5 cells skipped" in p for p in imported.problems)


def test_unknown_counters_are_listed_and_ignored() -> None:
    imported = import_stats(RELOG)
    assert any(r"\\DBSRV01\Memory\Available MBytes" in p for p in imported.problems)
    assert not any("% Disk Time" in p for p in imported.problems)  # known, repeats others


def test_typeperf_banner_and_closing_messages() -> None:
    text = (
        '\r\n"(PDH-CSV 4.0)","\\\\WIN-1\\PhysicalDisk(_Total)\\Disk Reads/sec"\r\n'
        '"09/22/2026 21:42:32.824","12.000000"\r\n'
        "Exiting, please wait...\r\nThe command completed successfully.\r\n"
    )
    imported = parse_stats(text)
    (total,) = imported.entities
    assert total.name == "PhysicalDisk(_Total)"
    assert total.points[0].at == datetime(2026, 9, 22, 21, 42, 32, 824000)  # no zone given
    assert imported.skipped.count == 2


def test_rows_cut_short_going_back_in_time_or_negative_are_skipped() -> None:
    lines = RELOG.read_text().splitlines()
    lines[2] = lines[2][:60].rsplit('","', 1)[0] + '"'  # cut short after a cell
    lines.append(lines[4].replace('"11/21/2026 23:40:45', '"11/21/2026 23:40:44'))  # backwards
    lines.append(lines[4].replace("23:40:45", "23:41:00").replace('"55.25000"', '"-5"'))
    imported = parse_stats("\n".join(lines))
    h = _volume(imported, "LogicalDisk(H:)")
    assert imported.skipped.count == 2
    assert [p.at.second for p in h.points if p.at] == [0, 30, 45, 0]
    assert Metric.IDLE_PCT not in h.points[-1].values  # the negative cell
    assert all(v >= 0 for p in h.points for v in p.values.values())


def test_a_file_without_disk_counters_says_so() -> None:
    text = '"(PDH-CSV 4.0)","\\\\H\\Memory\\Available MBytes"\n"01/02/2026 10:00:00.000","5"\n'
    imported = parse_stats(text)
    assert imported.entities == []
    assert imported.problems[0] == "no LogicalDisk or PhysicalDisk counter in the file"


def test_not_perfmon_fails() -> None:
    with pytest.raises(StatsImportError, match="PDH-CSV"):
        parse_stats("a,b\n1,2\n", ImportKind.PERFMON_CSV)


def test_utf16_export_is_read() -> None:
    data = RELOG.read_text().encode("utf-16")
    path = IMPORTS.parent.parent / "__utf16_probe.csv"
    try:
        path.write_bytes(data)
        assert _volume(import_stats(path), "LogicalDisk(H:)").points[1].values
    finally:
        path.unlink()
