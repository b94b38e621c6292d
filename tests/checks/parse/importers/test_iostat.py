"""`iostat -x` text (sysstat 10, 11, 12) and `-o JSON`: real outputs, column by column."""

from __future__ import annotations

from datetime import datetime

import pytest
from fixture_paths import IMPORTS

from pinchpoint.checks.collect.imports import import_stats
from pinchpoint.checks.parse.importers import StatsImportError, parse_stats
from pinchpoint.model.stats import ImportKind, Metric


def _device(name: str, file: str):  # type: ignore[no-untyped-def]
    imported = import_stats(IMPORTS / file)
    return imported, next(e for e in imported.entities if e.name == name)


def test_sysstat_10_columns_with_avg_cpu_block() -> None:
    imported, sda = _device("sda", "jc__iostat_-x_centos7.7.txt")
    assert imported.kind is ImportKind.IOSTAT_TEXT
    assert imported.host == "localhost.localdomain"
    assert [e.name for e in imported.entities] == ["sda", "dm-0", "dm-1"]
    values = sda.points[0].values
    assert values[Metric.READ_IOPS] == 0.13
    assert values[Metric.WRITE_KBPS] == 1.10
    assert values[Metric.LATENCY_MS] == 0.88  # await
    assert values[Metric.QUEUE] == 0.0  # avgqu-sz
    assert values[Metric.UTIL_PCT] == 0.01
    assert values[Metric.IDLE_PCT] == pytest.approx(99.99)


def test_sysstat_11_columns() -> None:
    _, sda = _device("sda", "jc__iostat_-x_ubuntu18.04_sysstat11.txt")
    values = sda.points[0].values
    assert values[Metric.READ_KBPS] == 8595.16
    assert values[Metric.WRITE_LATENCY_MS] == 6.93
    assert values[Metric.QUEUE] == 0.79  # aqu-sz
    assert values[Metric.WRITE_SIZE_KB] == 185.52
    assert values[Metric.UTIL_PCT] == 15.14


def test_sysstat_12_with_timestamps_gives_one_point_per_report() -> None:
    imported, vda = _device("vda", "sysstat-12.6.1__iostat_-x_-t_1_3.txt")
    assert imported.host == "vm"
    assert len(vda.points) == 3
    first, second, _ = vda.points
    assert first.at == datetime(2026, 11, 22, 1, 26, 41)
    assert first.interval_s is None and second.interval_s == 1.0
    assert second.values[Metric.WRITE_KBPS] == 205056.00
    assert second.values[Metric.WRITE_SIZE_KB] == 899.37
    assert any("since boot" in p for p in imported.problems)


def test_json_with_megabytes_is_read_in_kilobytes() -> None:
    imported, nvme = _device(
        "nvme0n1", "metrics-operator__iostat_-dxm_-o_JSON_sysstat12_nvme0n1_trimmed.json"
    )
    assert imported.kind is ImportKind.IOSTAT_JSON
    assert imported.host == "metricset-sample-m-0-vht9l.ms.default.svc.cluster.local"
    values = nvme.points[0].values
    assert values[Metric.READ_KBPS] == pytest.approx(0.73 * 1024)
    assert values[Metric.WRITE_LATENCY_MS] == 5.25
    assert values[Metric.QUEUE] == 0.22
    assert values[Metric.UTIL_PCT] == 3.54


def test_json_with_timestamps() -> None:
    _, vda = _device("vda", "sysstat-12.6.1__iostat_-dxt_-o_JSON_1_2.json")
    first, second = vda.points
    assert first.at == datetime(2026, 11, 22, 1, 26, 46)
    assert second.interval_s == 1.0
    assert first.values[Metric.READ_IOPS] == 186.72


def test_a_row_missing_a_column_is_skipped_and_the_others_kept() -> None:
    text = (IMPORTS / "jc__iostat_-x_centos7.7.txt").read_text().splitlines()
    text[6] = text[6].rsplit(None, 1)[0]  # sda loses its %util
    imported = parse_stats("\n".join(text), ImportKind.IOSTAT_TEXT)
    assert [e.name for e in imported.entities] == ["dm-0", "dm-1"]
    assert imported.skipped.count == 1
    assert "12 values for 13 columns" in (imported.skipped.first_reason or "")


def test_a_header_without_util_gives_no_util() -> None:
    text = "Device: r/s w/s\nsda 1.5 2.5\nsdb x 1\n"
    imported = parse_stats(text, ImportKind.IOSTAT_TEXT)
    (sda,) = imported.entities
    assert sda.points[0].values == {Metric.READ_IOPS: 1.5, Metric.WRITE_IOPS: 2.5}
    assert imported.skipped.count == 1  # sdb: "x" is not a number


def test_an_unknown_column_is_reported() -> None:
    imported = parse_stats("Device r/s newcol\nsda 1 2\n", ImportKind.IOSTAT_TEXT)
    assert imported.problems == ["unknown iostat column ignored: newcol"]


def test_text_without_device_header_fails() -> None:
    with pytest.raises(StatsImportError, match="no `Device` header"):
        parse_stats("Linux 5.8 (x) 01/01/2021\n\n", ImportKind.IOSTAT_TEXT)


@pytest.mark.parametrize(
    "text", ['{"sysstat": {"hosts": [', '{"other": 1}', "garbage"], ids=["cut", "other", "text"]
)
def test_bad_json_fails_clearly(text: str) -> None:
    with pytest.raises(StatsImportError, match=r"JSON|sysstat"):
        parse_stats(text, ImportKind.IOSTAT_JSON)


def test_json_disk_with_text_value_is_skipped() -> None:
    text = (
        '{"sysstat": {"hosts": [{"nodename": "h", "statistics": [{"disk": ['
        '{"disk_device": "sda", "r/s": 1.0}, {"disk_device": "sdb", "r/s": "x"}, {"r/s": 2}'
        "]}]}]}}"
    )
    imported = parse_stats(text, ImportKind.IOSTAT_JSON)
    assert [e.name for e in imported.entities] == ["sda"]
    assert imported.skipped.count == 2
