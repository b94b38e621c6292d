"""A check where most rules could not run says "partial" with the count and the reasons, in the
table, Markdown, HTML and JSON alike, never a bare green OK; `--fail-on partial` makes it fail."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixture_paths import SPECS
from typer.testing import CliRunner

from pinchpoint.cli import app
from pinchpoint.model.findings import Report, ReportStatus
from pinchpoint.rules.catalog import CATALOG
from pinchpoint.simulator import load_spec, write_snapshot

runner = CliRunner()
# The VM runs 7 rules; every other rule of the catalog could not run there (7 of them for want
# of a SAS HBA; `firmware.mismatch` for want of a SAS HBA or SMART data).
SKIPPED = f"{len(CATALOG) - 7} of {len(CATALOG)} rules could not run"


@pytest.fixture(scope="module")
def vm_guest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A simulated VM: one virtio NIC, no SAS, FC, ZFS or SMART."""
    target = tmp_path_factory.mktemp("vm") / "snapshot"
    write_snapshot(load_spec(SPECS / "vm_guest.toml"), target)
    return target


@pytest.fixture(scope="module")
def healthy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("healthy") / "snapshot"
    write_snapshot(load_spec(SPECS / "healthy_host.toml"), target)
    return target


def test_the_table_says_partial_with_count_and_reasons(vm_guest: Path) -> None:
    result = runner.invoke(app, ["check", "--snapshot", str(vm_guest)])
    assert result.exit_code == 0, result.output
    assert "OK: no findings" not in result.output
    assert f"PARTIAL: {SKIPPED}" in result.output
    assert "7 rules: no SAS HBA on this host" in result.output


@pytest.mark.parametrize("form", ["markdown", "html"])
def test_markdown_and_html_say_partial(vm_guest: Path, form: str) -> None:
    result = runner.invoke(app, ["check", "--snapshot", str(vm_guest), "--format", form])
    assert result.exit_code == 0, result.output
    assert f"PARTIAL: {SKIPPED}" in result.stdout
    assert "OK: no findings" not in result.stdout


def test_json_carries_the_status_and_its_reasons(vm_guest: Path) -> None:
    result = runner.invoke(app, ["check", "--snapshot", str(vm_guest), "--format", "json"])
    data = json.loads(result.stdout)
    assert data["status"] == "partial"
    assert data["status_reasons"][0] == SKIPPED
    assert "7 rules: no SAS HBA on this host" in data["status_reasons"]
    assert Report.model_validate(data).status is ReportStatus.PARTIAL  # reads back


def test_fail_on_partial_makes_a_partial_check_exit_1(vm_guest: Path) -> None:
    result = runner.invoke(app, ["check", "--snapshot", str(vm_guest), "--fail-on", "partial"])
    assert result.exit_code == 1, result.output


def test_fail_on_partial_passes_a_host_where_the_rules_ran(healthy: Path) -> None:
    result = runner.invoke(app, ["check", "--snapshot", str(healthy), "--fail-on", "partial"])
    assert result.exit_code == 0, result.output
    assert "OK: no findings" in result.output
    assert "PARTIAL" not in result.output


def test_fail_on_is_repeatable(vm_guest: Path) -> None:
    args = ["check", "--snapshot", str(vm_guest), "--fail-on", "warning", "--fail-on", "partial"]
    assert runner.invoke(app, args).exit_code == 1
