"""Terminal output at 80 and 120 columns (Rich's recording console), issue 18: `stats import`
and `stats watch` cut no name or number to "…" (the columns continue in a second table), and
the inventory's ZFS parameters are one a row, not a title cut mid-name."""

from __future__ import annotations

from pathlib import Path

import pytest
from demo_host import shared_demo_root
from fixture_paths import IMPORTS
from rich.console import Console, RenderableType

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.parse.importers import parse_stats
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.cli.host_view import zfs_table
from pinchpoint.cli.stats.diff import _samples, _watch_report
from pinchpoint.cli.stats.imports import summary_view
from pinchpoint.stats.iostat import series_figures

WIDTHS = (80, 120)
FILES = sorted(p for p in IMPORTS.iterdir() if p.suffix != ".md")


def rendered(renderable: RenderableType, width: int) -> str:
    console = Console(record=True, width=width, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(renderable)
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= width
    return text


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_stats_import_cuts_nothing(path: Path, width: int) -> None:
    imported = parse_stats(path.read_text(encoding="utf-8", errors="replace"), None)
    text = rendered(summary_view(imported), width)
    assert "…" not in text
    for entity in imported.entities:
        if len(entity.name) < width - 8:  # a longer name folds onto the next line
            assert entity.name in text


@pytest.fixture(scope="module")
def demo_snapshot() -> Path:
    return shared_demo_root()


@pytest.mark.parametrize("width", WIDTHS)
def test_stats_watch_cuts_nothing(demo_snapshot: Path, width: int) -> None:
    """The demo's 360 disks' iostat figures, as `stats watch` prints each interval."""
    figures = series_figures(_samples(demo_snapshot))[0]
    text = rendered(_watch_report(figures, "demo"), width)
    assert "…" not in text
    for device in figures.devices[:20]:
        assert f"\n{device.device} " in text
        assert f"{device.w_await:.2f}" in text and f"{device.util:.2f}" in text
    assert ("(continued)" in text) == (width == 80)  # 80 columns take two tables


@pytest.mark.parametrize("width", WIDTHS)
def test_zfs_parameters_one_a_row(demo_snapshot: Path, width: int) -> None:
    inventory = collect_inventory(SnapshotSource(demo_snapshot))
    shown = zfs_table(inventory)
    assert shown is not None
    lines = rendered(shown, width).splitlines()
    for name, value in inventory.zfs.vdev_queue_parameters.items():
        (line,) = [line for line in lines if f" {name} " in line]
        assert line.split("│")[2].strip() == str(value)
