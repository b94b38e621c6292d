"""Reading a statistics file from disk: bounded in size, decoded, failing in one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_paths import IMPORTS

from pinchpoint.checks.collect.imports import import_stats, read_stats_file
from pinchpoint.checks.parse.importers import StatsImportError, parse_stats

HISTOGRAMS = IMPORTS / "synthetic__zpool_iostat_-wvHp_tank_mirror_2_blocks.txt"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "is empty"),
        (b"   \n\n", "is empty"),
        (b"\x7fELF\x02\x01\x01\x00\x00\x00", "binary"),
        (b"just some words\n", "unknown format"),
    ],
    ids=["empty", "blank", "binary", "unknown"],
)
def test_unusable_files_fail_in_one_line(tmp_path: Path, data: bytes, message: str) -> None:
    path = tmp_path / "stats.txt"
    path.write_bytes(data)
    with pytest.raises(StatsImportError, match=message) as failure:
        import_stats(path)
    assert "\n" not in str(failure.value)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(StatsImportError, match="no such file"):
        import_stats(tmp_path / "absent.csv")
    with pytest.raises(StatsImportError, match="is a directory"):
        import_stats(tmp_path)


def test_a_file_is_what_its_text_parses_to() -> None:
    assert import_stats(HISTOGRAMS) == parse_stats(HISTOGRAMS.read_text(), None, HISTOGRAMS.name)


def test_a_file_larger_than_the_bound_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "huge.txt"
    path.write_bytes(HISTOGRAMS.read_bytes())
    size = path.stat().st_size
    assert read_stats_file(path, max_bytes=size) == HISTOGRAMS.read_text()
    with pytest.raises(StatsImportError, match="larger than") as failure:
        read_stats_file(path, max_bytes=size - 1)
    assert "\n" not in str(failure.value)


def test_utf16_with_its_mark_is_decoded(tmp_path: Path) -> None:
    path = tmp_path / "perfmon.csv"
    path.write_bytes(HISTOGRAMS.read_text().encode("utf-16"))
    assert read_stats_file(path) == HISTOGRAMS.read_text()
