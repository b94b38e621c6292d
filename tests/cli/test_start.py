"""The `pinchpoint` command starts light: `--version` and `--help` import no command module, no
Typer, Rich, pydantic or service; a command imports its own module only; and the quick help is
what Typer prints for the same app."""

from __future__ import annotations

import importlib
import inspect
import json
import subprocess
import sys

import pytest
import typer
import typer.main
from typer.testing import CliRunner

from pinchpoint import __version__
from pinchpoint.cli.application import app, load_command
from pinchpoint.cli.commands import COMMANDS
from pinchpoint.cli.quick import top_help

HEAVY = ("fastapi", "sqlalchemy", "uvicorn", "pinchpoint.service", "pinchpoint.api")
# what `--help` and `--version` must not need either
FRAMEWORKS = ("typer", "rich", "pydantic", "pinchpoint.model", "pinchpoint.cli.application")

RUN = """
import json, sys
sys.argv = ["pinchpoint", *json.loads(sys.argv[1])]
from pinchpoint.cli import main
try:
    main()
except SystemExit:
    pass
sys.stderr.write(json.dumps(sorted(sys.modules)))
"""


def modules_after(argv: list[str]) -> tuple[str, set[str]]:
    """What `pinchpoint ARGV` prints and which modules it imported, in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, "-c", RUN, json.dumps(argv)],
        capture_output=True,
        text=True,
        check=True,
        env={"COLUMNS": "80", "PATH": "/usr/bin:/bin", "PYTHONPATH": ":".join(sys.path)},
    )
    return done.stdout, set(json.loads(done.stderr))


def loaded(modules: set[str], packages: tuple[str, ...]) -> list[str]:
    return sorted(
        m for m in modules if m in packages or m.startswith(tuple(p + "." for p in packages))
    )


@pytest.mark.parametrize("argv", [["--help"], ["--version"], []])
def test_help_and_version_import_nothing_heavy(argv: list[str]) -> None:
    output, modules = modules_after(argv)
    assert loaded(modules, HEAVY + FRAMEWORKS) == []
    assert (
        ("Commands" in output) if argv != ["--version"] else output == f"pinchpoint {__version__}\n"
    )


def test_importing_the_cli_package_imports_nothing_heavy() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, json, pinchpoint.cli; print(json.dumps(sorted(sys.modules)))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert loaded(set(json.loads(done.stdout)), HEAVY + FRAMEWORKS) == []


def test_a_command_imports_its_own_module_only() -> None:
    output, modules = modules_after(["check", "--help"])
    assert "--fail-on" in output
    assert "pinchpoint.cli.check" in modules
    others = {module for _, module, _ in COMMANDS if module and module != "pinchpoint.cli.check"}
    assert loaded(modules, tuple(others) + HEAVY) == []


@pytest.mark.parametrize("width", [60, 80, 120])
def test_quick_help_is_what_typer_prints(width: int) -> None:
    typer_help = CliRunner().invoke(app, ["--help"], env={"COLUMNS": str(width)})
    assert typer_help.exit_code == 0
    assert top_help(width) == typer_help.output


def test_the_command_table_is_what_the_modules_declare() -> None:
    for name, module, help_text in COMMANDS:
        command = load_command(name) if module else typer.main.get_group(app).commands[name]
        assert inspect.cleandoc(command.help or "").split("\n\n")[0].strip() == help_text, name
    declared: dict[str, set[str]] = {}
    for name, module, _ in COMMANDS:
        declared.setdefault(module, set()).add(name)
    for module, names in declared.items():
        if module:
            each = typer.Typer()
            importlib.import_module(module).register(each)
            assert set(typer.main.get_group(each).commands) == names, module


def test_version_option_and_command_through_typer() -> None:
    runner = CliRunner()
    assert runner.invoke(app, ["--version"]).output == f"pinchpoint {__version__}\n"
    assert runner.invoke(app, ["version"]).output == f"pinchpoint {__version__}\n"
