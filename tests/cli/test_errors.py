"""Every CLI error is one line — what, where, what to do — and exit 2, never a traceback; text
from hosts reaches the terminal as visible escapes, never as control sequences."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import typer
from fixture_paths import SPECS
from typer.testing import CliRunner

from pinchpoint.cli import app
from pinchpoint.cli.errors import DEBUG_VARIABLE, PinchpointGroup, error_message

runner = CliRunner()

EVIL_HOST = "evil\x1b[2J\x1b]0;pwn\x07[bold]x[/]\u202e"


def _one_error_line(result: object, exit_code: int = 2) -> str:
    out = result.output  # type: ignore[attr-defined]
    assert result.exit_code == exit_code, out  # type: ignore[attr-defined]
    assert "Traceback" not in out and "Errno" not in out, out
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 1, out
    assert lines[0].startswith("pinchpoint: error: "), out
    return lines[0]


@pytest.fixture
def a_file(tmp_path: Path) -> Path:
    """A plain file: a path under it fails with ENOTDIR even for root."""
    path = tmp_path / "a-file"
    path.write_text("not a directory\n")
    return path


@pytest.mark.parametrize(
    "args",
    [
        ["capture", "{file}/snapshot"],
        ["capture", "--tar", "{file}/snapshot.tar.gz"],
        ["check", "--snapshot", "{file}/snapshot"],
        ["check", "--demo", "--config", "{dir}"],
        ["check", "--demo", "--config", "{file}/pinchpoint.toml"],
        ["inventory", "--snapshot", "{file}/snapshot"],
        ["inventory", "--snapshot", "{missing}"],
        ["simulate", "{file}/spec.toml", "--out", "{dir}/out"],
        ["simulate", "{dir}", "--out", "{dir}/out"],
        ["simulate", "{missing}.toml", "--out", "{dir}/out"],
        ["stats", "import", "{file}/stats.json"],
        ["stats", "import", "{dir}"],
        ["stats", "import", "{missing}"],
        ["serve", "--config", "{dir}", "--data-dir", "{dir}/data"],
        ["check", "--demo", "--previous", "{missing}"],
        ["stats", "diff", "{missing}", "{file}"],
        ["stats", "show", "--snapshot", "{file}/snapshot"],
    ],
)
def test_an_error_is_one_line_exit_2(args: list[str], a_file: Path, tmp_path: Path) -> None:
    values = {"file": a_file, "dir": tmp_path, "missing": tmp_path / "nothing-here"}
    argv = [arg.format(**values) for arg in args]
    line = _one_error_line(runner.invoke(app, argv))
    assert str(tmp_path) in line
    named = [p for p in argv if p.startswith(str(tmp_path))]
    for path in named:
        assert line.count(path) <= 1, line  # no doubled path


def test_capture_into_a_path_under_a_file_says_what_to_do(a_file: Path) -> None:
    line = _one_error_line(runner.invoke(app, ["capture", str(a_file / "snapshot")]))
    assert f"({a_file / 'snapshot'})" in line
    assert "not a directory" in line and "check the path" in line


def test_a_spec_error_names_the_file_once(tmp_path: Path) -> None:
    spec = tmp_path / "host.json"
    spec.write_text("{}")
    line = _one_error_line(runner.invoke(app, ["simulate", str(spec), "--out", str(tmp_path)]))
    assert line.count(str(spec)) == 1, line
    assert "use .toml, .yaml or .yml" in line


def _failing_app() -> typer.Typer:
    """An app built as `pinchpoint`'s is, whose one command hits an unexpected error."""
    broken = typer.Typer(cls=PinchpointGroup)

    @broken.command()
    def explode() -> None:
        {}["no such key"]

    @broken.command()
    def other() -> None:
        pass

    return broken


def test_an_unexpected_error_is_one_line_with_the_way_to_the_traceback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(DEBUG_VARIABLE, raising=False)
    line = _one_error_line(runner.invoke(_failing_app(), ["explode"]))
    assert "unexpected failure" in line and f"{DEBUG_VARIABLE}=1" in line
    assert "KeyError" not in line


def test_the_debug_variable_lets_the_traceback_through(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DEBUG_VARIABLE, "1")
    result = runner.invoke(_failing_app(), ["explode"])
    assert isinstance(result.exception, KeyError)


def test_os_errors_say_what_where_and_what_to_do() -> None:
    line = error_message(PermissionError(13, "Permission denied", "/srv/x"))
    assert line == (
        "permission denied (/srv/x) — run as a user allowed to use it "
        "(root for a host's /sys and tools)"
    )
    assert error_message(FileExistsError(17, "File exists", "/srv/y")).endswith("choose a new path")


def test_a_multi_line_message_prints_as_one_line(tmp_path: Path) -> None:
    config = tmp_path / "pinchpoint.toml"
    config.write_text("[rules\nbroken")
    line = _one_error_line(runner.invoke(app, ["check", "--demo", "--config", str(config)]))
    assert "not valid TOML" in line


# --- text from hosts on the terminal -------------------------------------------------------


@pytest.fixture
def evil_snapshot(procfs_copy: Path) -> Path:
    """The real mpt3sas capture, its manifest naming the host with escape sequences, a bidi
    override and Rich markup."""
    manifest = procfs_copy / "manifest.json"
    data = json.loads(manifest.read_text())
    data["hostname"] = EVIL_HOST
    manifest.write_text(json.dumps(data))
    return procfs_copy


@pytest.mark.parametrize(
    "args",
    [
        ["inventory"],
        ["inventory", "--disks"],
        ["check"],
        ["check", "--format", "markdown"],
        ["inventory", "--format", "markdown"],
    ],
)
def test_a_host_name_with_escape_sequences_prints_as_visible_text(
    evil_snapshot: Path, args: list[str]
) -> None:
    result = runner.invoke(app, [*args, "--snapshot", str(evil_snapshot)])
    assert result.exit_code in (0, 1), result.output  # 1: the capture has critical findings
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "\u202e" not in result.output
    assert "evil\\x1b[2J\\x1b]0;pwn" in result.output
    assert "[bold]x[/]" in result.output  # markup in data is printed, not obeyed


def test_a_path_with_markup_is_printed_as_given(tmp_path: Path) -> None:
    out = tmp_path / "[red]snap[/]"
    result = runner.invoke(app, ["simulate", str(SPECS / "healthy_host.toml"), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "[red]snap[/]" in result.output
    shutil.rmtree(out)


def test_serve_help_keeps_square_brackets() -> None:
    result = runner.invoke(app, ["serve", "--help"])
    assert result.exit_code == 0
    assert "[service]" in result.output


def test_json_output_carries_c1_and_bidi_controls_as_escapes(evil_snapshot: Path) -> None:
    manifest = evil_snapshot / "manifest.json"
    data = json.loads(manifest.read_text())
    data["hostname"] = "csi\x9b2J\u202eevil"
    manifest.write_text(json.dumps(data))
    for args in (["inventory", "--json"], ["check", "--format", "json"]):
        result = runner.invoke(app, [*args, "--snapshot", str(evil_snapshot)])
        assert "\x9b" not in result.stdout and "\u202e" not in result.stdout
        assert json.loads(result.stdout)["host"]["hostname"] == "csi\x9b2J\u202eevil"
