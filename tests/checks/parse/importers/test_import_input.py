"""What every import shares: guessing the format, failing in one line."""

from __future__ import annotations

import pytest
from fixture_paths import IMPORTS

from pinchpoint.checks.collect.imports import import_stats
from pinchpoint.checks.parse.importers import StatsImportError, guess_kind, parse_stats
from pinchpoint.model.stats import ImportKind

EXPECTED = {
    "fio-3.33_json_randrw.json": ImportKind.FIO_JSON,
    "fio-3.33_jsonplus_randread_seqwrite.json": ImportKind.FIO_JSON,
    "jc__iostat_-x_centos7.7.txt": ImportKind.IOSTAT_TEXT,
    "jc__iostat_-x_ubuntu18.04_sysstat11.txt": ImportKind.IOSTAT_TEXT,
    "jc__iostat_-x_ubuntu20.10.txt": ImportKind.IOSTAT_TEXT,
    "sysstat-12.6.1__iostat_-x_-t_1_3.txt": ImportKind.IOSTAT_TEXT,
    "metrics-operator__iostat_-dxm_-o_JSON_sysstat12_nvme0n1_trimmed.json": ImportKind.IOSTAT_JSON,
    "sysstat-12.6.1__iostat_-dxt_-o_JSON_1_2.json": ImportKind.IOSTAT_JSON,
    "synthetic__perfmon_relog_DBSRV01_LogicalDisk_H.csv": ImportKind.PERFMON_CSV,
    "synthetic__perfmon_de_semicolon_decimal_comma.csv": ImportKind.PERFMON_CSV,
    "synthetic__zpool_iostat_-wvHp_tank_mirror_2_blocks.txt": ImportKind.ZPOOL_IOSTAT_W,
    "synthetic__zpool_iostat_-lvHp_tank_mirror_2_blocks.txt": ImportKind.ZPOOL_IOSTAT_L,
}


@pytest.mark.parametrize(("name", "kind"), EXPECTED.items(), ids=list(EXPECTED))
def test_every_fixture_is_recognised(name: str, kind: ImportKind) -> None:
    assert guess_kind((IMPORTS / name).read_text()) is kind
    assert import_stats(IMPORTS / name).entities


def test_fixture_list_is_complete() -> None:
    on_disk = {p.name for p in IMPORTS.iterdir() if p.name != "SOURCES.md"}
    assert on_disk == set(EXPECTED)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "is empty"),
        ("   \n\n", "is empty"),
        ("\x7fELF\x02\x01\x01\x00\x00\x00", "binary"),
        ("just some words\n", "unknown format"),
    ],
    ids=["empty", "blank", "binary", "unknown"],
)
def test_unusable_text_fails_in_one_line(text: str, message: str) -> None:
    with pytest.raises(StatsImportError, match=message) as failure:
        parse_stats(text, source_name="stats.txt")
    assert "\n" not in str(failure.value) and "stats.txt" in str(failure.value)


def test_a_byte_order_mark_is_not_part_of_the_text() -> None:
    text = (IMPORTS / "synthetic__zpool_iostat_-wvHp_tank_mirror_2_blocks.txt").read_text()
    assert parse_stats("\ufeff" + text) == parse_stats(text)
