"""`check` on a terminal at 80 and 120 columns (Rich's recording console), issue 18: a fix's
Markdown is rendered (commands styled, no raw backticks), a title that names its entity is not
preceded by the entity again, counted words agree ("1 HBA port"), latencies are said in the unit
their size calls for, and a folded finding is named as such."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from fixture_paths import SPECS
from rich.console import Console
from typer.testing import CliRunner

from pinchpoint.cli import app
from pinchpoint.model.findings import Report
from pinchpoint.report.table import report_view
from pinchpoint.simulator import load_spec, write_snapshot

WIDTHS = (80, 120)
runner = CliRunner()


def _report(args: list[str]) -> Report:
    result = runner.invoke(app, ["check", *args, "--format", "json"])
    assert result.exit_code in (0, 1), result.output  # 1: critical findings
    return Report.model_validate(json.loads(result.stdout))


@pytest.fixture(scope="module")
def demo() -> Report:
    return _report(["--demo"])


@pytest.fixture(scope="module")
def zfs_faults(tmp_path_factory: pytest.TempPathFactory) -> Report:
    """A degraded pool: `zfs.pool.degraded`, whose fix names `zpool` commands."""
    snapshot: Path = tmp_path_factory.mktemp("zfs-faults") / "snapshot"
    write_snapshot(load_spec(SPECS / "zfs_faults.toml"), snapshot)
    return _report(["--snapshot", str(snapshot)])


def rendered(report: Report, width: int) -> str:
    console = Console(record=True, width=width, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(report_view(report))
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= width
    return text


@pytest.mark.parametrize("width", WIDTHS)
def test_a_fix_is_rendered_without_backticks(zfs_faults: Report, width: int) -> None:
    fixes = [f.remediation for f in zfs_faults.findings if f.rule == "zfs.pool.degraded"]
    assert fixes and "`" in fixes[0]  # the rule's text is Markdown
    text = rendered(zfs_faults, width)
    assert "`" not in text
    assert "zpool replace tank <old> <new>" in " ".join(text.split())


@pytest.mark.parametrize("width", WIDTHS)
def test_the_entity_is_said_once_and_counts_agree(demo: Report, width: int) -> None:
    text = rendered(demo, width)
    flat = " ".join(text.split())
    assert "JBOD-003 has 1 of 2 SAS paths" in flat
    assert "JBOD-003 — JBOD-003" not in flat
    assert "paths present: 1 HBA port;" in flat and "1 HBA ports" not in flat
    assert "folded in (same cause, evidence above): latency.group.outlier@enclosure:" in flat


@pytest.mark.parametrize("width", WIDTHS)
def test_latencies_in_the_unit_their_size_calls_for(demo: Report, width: int) -> None:
    flat = " ".join(rendered(demo, width).split())
    assert "p99 latency: 6.05 s" in flat  # not "6,049.23 ms"
    assert not re.search(r"\d,\d{3}(\.\d+)? ms", flat)
