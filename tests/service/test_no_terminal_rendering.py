"""Nothing the service runs pulls in terminal rendering: no module of `pinchpoint.service`
imports Rich, the CLI or the API above it (not even inside a function), and importing them all
loads neither `pinchpoint.cli`, `pinchpoint.api` nor the Rich report table."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap

from fixture_paths import ROOT

SERVICE = ROOT / "pinchpoint" / "service"
FORBIDDEN = ("rich", "pinchpoint.cli", "pinchpoint.api", "pinchpoint.report.table")


def imported_names(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def forbidden(name: str) -> bool:
    return any(name == f or name.startswith(f + ".") for f in FORBIDDEN)


def test_no_service_module_imports_rendering_or_the_api() -> None:
    found = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in SERVICE.rglob("*.py")
        for name in imported_names(ast.parse(path.read_text(encoding="utf-8")))
        if forbidden(name)
    }
    assert found == set()


IMPORT_EVERY_SERVICE_MODULE = textwrap.dedent(
    """
    import importlib, pkgutil, sys
    import pinchpoint.service

    for module in pkgutil.walk_packages(pinchpoint.service.__path__, "pinchpoint.service."):
        if ".migrations" not in module.name:
            importlib.import_module(module.name)
    print("\\n".join(name for name in sys.modules if name.startswith("pinchpoint.")))
    """
)


def test_importing_the_service_loads_no_rendering_and_no_api() -> None:
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_EVERY_SERVICE_MODULE],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    loaded = done.stdout.split()
    assert "pinchpoint.service.runtime" in loaded
    assert [name for name in loaded if forbidden(name)] == []
