"""Output for a file or a ticket (not a terminal): the same page, but no line ends in the
blanks that pad a table's cells to the page's width (`check --demo > report.txt` had 56 of its
85 lines padded to 200 columns)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.table import Table
from typer.testing import CliRunner

from pinchpoint.cli import app
from pinchpoint.cli.console import SafeConsole
from tests.fixture_paths import FIXTURES

SNAPSHOT = FIXTURES / "snapshots" / "procfs-mpt3sas"  # a real capture, no samples

runner = CliRunner()


def _drawn(trim: bool) -> str:
    table = Table(title="Enclosures", expand=True)
    table.add_column("enclosure")
    table.add_column("paths", justify="right")
    table.add_row("JBOD-001", "2/2")
    table.add_row("JBOD-003\x1b[2J", "1/2")  # a host's escape sequence stays visible
    grid = Table.grid(expand=True)
    grid.add_column()
    grid.add_column()
    grid.add_row("CRITICAL", "JBOD-003 has 1 of 2 SAS paths")
    console = SafeConsole(file=io.StringIO(), width=120, trim_line_ends=trim)
    console.print(table)
    console.print(grid)
    console.print("  words, then blanks   ")
    output = console.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(output, str)
    return output


def test_trimmed_lines_are_the_page_without_its_trailing_blanks() -> None:
    padded, trimmed = _drawn(False), _drawn(True)
    assert any(line.endswith(" ") for line in padded.splitlines())
    assert [line.rstrip(" ") for line in padded.splitlines()] == trimmed.splitlines()
    assert not any(line.endswith(" ") for line in trimmed.splitlines())
    assert "\\x1b[2J" in trimmed and "\x1b" not in trimmed


@pytest.mark.parametrize("command", [["check", "--demo"], ["inventory", "--demo"]])
@pytest.mark.parametrize("columns", [None, "100"])
def test_piped_commands_end_lines_with_their_last_word(
    command: list[str], columns: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    result = runner.invoke(app, command)
    assert result.exit_code in (0, 1), result.output
    lines = result.stdout.splitlines()
    assert len(lines) > 20
    assert [line for line in lines if line.endswith(" ")] == []
    assert max(len(line) for line in lines) <= int(columns or 200)


def test_notes_on_stderr_stay_one_line_each_in_a_pipe(tmp_path: Path) -> None:
    """`check`'s notes went to a log broken at 80 columns, mid-sentence."""
    done = subprocess.run(
        [sys.executable, "-m", "pinchpoint", "check", "-s", str(SNAPSHOT), "-f", "json"],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "60"},
    )
    assert done.returncode in (0, 1), done.stderr
    notes = done.stderr.splitlines()
    assert any(line.startswith("statistics: fewer than two diskstats samples") for line in notes)
    assert all(line.startswith("statistics: ") for line in notes)  # no line's tail on its own
