"""Each class of CLI error is exactly one line on stderr — what, where, and after ` — ` what to
do — and exit 2: usage errors (unknown option or command, bad value, missing argument), a
missing snapshot or config, garbled TOML, a file that is not statistics, a path that is not a
snapshot, an unknown rule, a bad duration, options that exclude each other."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from pinchpoint.cli import app

runner = CliRunner()


@pytest.fixture
def inputs(tmp_path: Path) -> dict[str, Path]:
    garbled = tmp_path / "garbled.toml"
    garbled.write_text("[rules\nbroken = ")
    binary = tmp_path / "stats.json"
    binary.write_bytes(b"\x00\xff\xfe binary\x00")
    empty = tmp_path / "empty-dir"
    empty.mkdir()
    return {
        "garbled": garbled,
        "binary": binary,
        "empty": empty,
        "missing": tmp_path / "nothing-here",
    }


# (arguments, what the line must say): one case per class of error
CASES = [
    (["check", "--formt", "json"], ["No such option: --formt", "see pinchpoint check --help"]),
    (["nocommand"], ["No such command 'nocommand'", "see pinchpoint --help"]),
    (["stats", "watch", "--interval", "-1"], ["'--interval'", "(pinchpoint stats watch)"]),
    (["check", "--demo", "--format", "nope"], ["'nope': use table, json", "--help"]),
    (["explain"], ["Missing argument", "see pinchpoint explain --help"]),
    (["explain", "no.such.rule"], ["no rule 'no.such.rule'", "pinchpoint rules"]),
    (["check", "--snapshot", "{missing}"], ["no snapshot at {missing}", "check the path"]),
    (["inventory", "--snapshot", "{empty}"], ["{empty} is not a snapshot", "pinchpoint capture"]),
    (["check", "--demo", "--config", "{missing}"], ["no such config file", "check the path"]),
    (["check", "--demo", "--config", "{garbled}"], ["not valid TOML", "correct the file"]),
    (["config", "show", "--config", "{garbled}"], ["not valid TOML", "correct the setting"]),
    (["stats", "import", "{binary}"], ["binary data", "give zpool iostat"]),
    (["stats", "show", "--demo", "--slower-than", "abc"], ["--slower-than", "220ms"]),
    (["check", "--demo", "--previous", "{binary}"], ["--previous", "earlier capture"]),
    (["stats", "diff", "{binary}", "{binary}"], ["neither a snapshot", "pinchpoint capture"]),
    (["check", "--demo", "--snapshot", "{empty}"], ["exclude each other", "give one of them"]),
]


@pytest.mark.parametrize(("args", "says"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_one_line_on_stderr_what_to_do_and_exit_2(
    args: list[str], says: list[str], inputs: dict[str, Path]
) -> None:
    argv = [a.format(**inputs) for a in args]
    result = runner.invoke(app, argv)
    assert result.exit_code == 2, result.output
    assert result.stdout == "", result.stdout
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    (line,) = lines
    assert line.startswith("pinchpoint: error: "), line
    assert " — " in line, line  # what went wrong — what to do
    for fragment in says:
        assert fragment.format(**inputs) in line, line
    assert "Traceback" not in line and "╭" not in line and "Errno" not in line
    for path in (a for a in argv if a.startswith("/")):
        assert line.count(path) <= 1, line  # no doubled path
