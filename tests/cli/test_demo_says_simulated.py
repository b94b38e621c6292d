"""`check --demo` says that its host is simulated — in the terminal table, Markdown and HTML
alike, first thing after the title (issue 18); a check of a snapshot does not say it."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_paths import SPECS
from typer.testing import CliRunner

from pinchpoint.cli import app
from pinchpoint.report.words import SIMULATED
from pinchpoint.simulator import load_spec, write_snapshot

runner = CliRunner()
SAID = SIMULATED.upper()


@pytest.mark.parametrize("form", ["table", "markdown", "html"])
def test_the_demo_says_it_is_simulated(form: str) -> None:
    result = runner.invoke(app, ["check", "--demo", "--format", form], env={"COLUMNS": "120"})
    assert result.exit_code in (0, 1), result.output
    assert SAID in result.stdout
    assert "demo" in SAID.lower() and "simulated" in SAID.lower()
    before_status = result.stdout.split("critical,")[0]
    assert SAID in before_status  # said before the counts, not buried at the end


def test_a_snapshot_is_not_called_simulated(tmp_path: Path) -> None:
    snapshot = tmp_path / "snapshot"
    write_snapshot(load_spec(SPECS / "three_chains_of_two.toml"), snapshot)
    result = runner.invoke(app, ["check", "--snapshot", str(snapshot)], env={"COLUMNS": "120"})
    assert SAID not in result.stdout
