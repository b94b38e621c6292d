"""Packaging: the Dockerfile, the systemd unit, the example config and the Prometheus files.

No image can be built here (no registry to pull the base from), so the Dockerfile is parsed and
its essentials checked, and linted with hadolint where it is installed; the unit is parsed as
an INI file and verified by `systemd-analyze`; the Prometheus rules are unit-tested by promtool.
"""

from __future__ import annotations

import ast
import configparser
import json
import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from fixture_paths import ROOT
from typer.testing import CliRunner

from pinchpoint.cli import app
from pinchpoint.rules.catalog import CATALOG
from pinchpoint.rules.config import load_config
from pinchpoint.service.settings import DEFAULT_PORT, load_settings

DOCKERFILE = ROOT / "Dockerfile"
UNIT = ROOT / "deploy" / "pinchpoint.service"
PROMETHEUS = ROOT / "deploy" / "prometheus"
TOOLS = {"sg3-utils", "smartmontools", "ethtool", "lsscsi", "multipath-tools", "sysstat"}


def instructions(path: Path) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order: continuation lines joined, comments dropped."""
    found: list[tuple[str, str]] = []
    pending = ""
    for line in path.read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        pending += " " + stripped.removesuffix("\\").strip()
        if stripped.endswith("\\"):
            continue
        keyword, _, rest = pending.strip().partition(" ")
        found.append((keyword.upper(), rest.strip()))
        pending = ""
    assert not pending, "the Dockerfile ends inside a continued line"
    return found


def one(found: list[tuple[str, str]], keyword: str) -> str:
    values = [rest for key, rest in found if key == keyword]
    assert len(values) == 1, f"{keyword}: {len(values)} instructions"
    return values[0]


@pytest.fixture(scope="module")
def dockerfile() -> list[tuple[str, str]]:
    return instructions(DOCKERFILE)


def test_the_image_is_debian_slim_python_with_the_storage_tools(
    dockerfile: list[tuple[str, str]],
) -> None:
    assert one(dockerfile, "FROM") == "python:3.11-slim-bookworm"
    runs = [rest for key, rest in dockerfile if key == "RUN"]
    apt = next(r for r in runs if "apt-get install" in r)
    assert "--no-install-recommends" in apt
    assert set(apt.split()) >= TOOLS, TOOLS - set(apt.split())
    assert "rm -rf /var/lib/apt/lists/*" in apt
    pip = next(r for r in runs if "pip install" in r)
    assert re.search(r"pip install .*\s\"?\./?(\[postgres\])?\"?(\s|$)", pip), (
        "the package, from the source"
    )
    assert "[postgres]" in pip, "a central service's store needs the PostgreSQL driver"
    assert "[dev]" not in pip


def test_the_copied_sources_exist_and_are_not_ignored(dockerfile: list[tuple[str, str]]) -> None:
    copied = [source for key, rest in dockerfile if key == "COPY" for source in rest.split()[:-1]]
    assert copied
    allowed = [
        line[1:].rstrip("/")
        for line in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
        if line.startswith("!")
    ]
    ignore = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith(("#", "!"))
    ]
    assert ignore[0] == "*", ".dockerignore sends only what it lists"
    assert {".venv", ".git", "tests/fixtures"} <= set(ignore)
    for source in copied:
        assert (ROOT / source).exists(), source
        assert source.rstrip("/") in allowed, f"{source} is not sent to the builder"


def test_it_runs_the_service_as_a_user_of_its_own(dockerfile: list[tuple[str, str]]) -> None:
    entrypoint = json.loads(one(dockerfile, "ENTRYPOINT"))
    assert entrypoint[:2] == ["pinchpoint", "serve"]
    assert entrypoint[entrypoint.index("--host") + 1] == "0.0.0.0"
    arguments = [*entrypoint[2:], *json.loads(one(dockerfile, "CMD"))]
    serve_help = CliRunner().invoke(app, ["serve", "--help"], env={"COLUMNS": "200"})
    assert serve_help.exit_code == 0, serve_help.output
    for option in (a for a in arguments if a.startswith("--")):
        assert option in serve_help.output, f"`pinchpoint serve` has no {option}"
    user = one(dockerfile, "USER").split(":")[0]
    assert user not in ("0", "root")
    assert any(key == "RUN" and f"--uid {user}" in rest for key, rest in dockerfile)
    assert one(dockerfile, "EXPOSE") == str(DEFAULT_PORT)
    volume = json.loads(one(dockerfile, "VOLUME"))
    assert volume == ["/var/lib/pinchpoint"]
    assert f"PINCHPOINT_DATA_DIR={volume[0]}" in one(dockerfile, "ENV")


def test_the_healthcheck_asks_healthz_with_python(dockerfile: list[tuple[str, str]]) -> None:
    check = one(dockerfile, "HEALTHCHECK")
    options, _, command = check.partition(" CMD ")
    assert "--interval=" in options and "--timeout=" in options
    argv = json.loads(command)
    assert argv[:2] == ["python", "-c"]
    ast.parse(argv[2])  # the snippet is valid Python
    assert f"http://127.0.0.1:{DEFAULT_PORT}/healthz" in argv[2]


HADOLINT = shutil.which("hadolint") or str(Path(sys.executable).with_name("hadolint"))


@pytest.mark.tools
@pytest.mark.skipif(not Path(HADOLINT).exists(), reason="hadolint not installed")
def test_hadolint_finds_nothing() -> None:
    lint = subprocess.run([HADOLINT, str(DOCKERFILE)], capture_output=True, text=True, check=False)
    assert lint.returncode == 0, lint.stdout + lint.stderr


# --- the systemd unit ------------------------------------------------------------------


def unit_values() -> dict[str, dict[str, list[str]]]:
    """Section -> key -> values (a key may repeat, as DeviceAllow does)."""
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(UNIT, encoding="utf-8")  # fails on anything that is not INI
    values: dict[str, dict[str, list[str]]] = {s: {} for s in parser.sections()}
    section = ""
    for line in UNIT.read_text(encoding="utf-8").splitlines():
        if line.startswith("["):
            section = line.strip("[]")
        elif "=" in line and not line.startswith("#"):
            key, _, value = line.partition("=")
            values[section].setdefault(key.strip(), []).append(value.strip())
    return values


def test_the_unit_starts_pinchpoint_serve_as_its_own_user() -> None:
    unit = unit_values()
    assert set(unit) == {"Unit", "Service", "Install"}
    service = unit["Service"]
    (exec_start,) = service["ExecStart"]
    argv = shlex.split(exec_start)
    assert Path(argv[0]).name == "pinchpoint" and Path(argv[0]).is_absolute()
    assert argv[1] == "serve"
    assert argv[argv.index("--data-dir") + 1] == "${STATE_DIRECTORY}"
    assert service["User"] not in (["root"], ["0"])
    assert service["StateDirectory"] == ["pinchpoint"]
    assert service["AmbientCapabilities"] == service["CapabilityBoundingSet"]
    assert "CAP_SYS_RAWIO" in service["AmbientCapabilities"][0]
    assert service["NoNewPrivileges"] == ["yes"] and service["ProtectSystem"] == ["strict"]
    assert service["PrivateDevices"] == ["no"]  # it reads the real disks
    assert "char-sg rw" in service["DeviceAllow"] and "block-sd r" in service["DeviceAllow"]
    assert unit["Install"]["WantedBy"] == ["multi-user.target"]
    documented = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    for key in service:
        if key not in ("Type", "ExecStart", "RestartSec", "Group"):
            assert f"`{key}=" in documented, f"docs/deploy.md does not explain {key}="


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd not installed")
def test_systemd_accepts_the_unit(tmp_path: Path) -> None:
    """`systemd-analyze verify` knows every key and value; the venv's path is swapped for an
    executable that exists here."""
    text = UNIT.read_text(encoding="utf-8")
    executable = shlex.split(unit_values()["Service"]["ExecStart"][0])[0]
    copy = tmp_path / "pinchpoint.service"
    copy.write_text(text.replace(executable, sys.executable), encoding="utf-8")
    verify = subprocess.run(
        ["systemd-analyze", "verify", str(copy)], capture_output=True, text=True, check=False
    )
    assert verify.returncode == 0 and not verify.stderr.strip(), verify.stderr


# --- the example config and the Prometheus files ----------------------------------------


def test_the_example_config_is_valid_for_the_service_and_the_rules() -> None:
    example = ROOT / "deploy" / "pinchpoint.toml.example"
    settings = load_settings(example)
    assert settings.port == DEFAULT_PORT and settings.listen == "0.0.0.0"
    assert [w.format.value for w in settings.webhooks] == ["alertmanager", "json"]
    assert "replace-me" not in repr(settings.webhooks)  # header values stay out of reprs
    config = load_config(example, CATALOG)
    assert config.rules["sas.chain.too_deep"].thresholds == {"max_enclosures": 3}


def test_the_documented_alert_rules_are_the_shipped_ones() -> None:
    doc = (ROOT / "docs" / "prometheus.md").read_text(encoding="utf-8")
    marker = "<!-- deploy/prometheus/pinchpoint-alerts.yml -->\n```yaml\n"
    shown = doc[doc.index(marker) + len(marker) :].split("```", 1)[0]
    assert shown == (PROMETHEUS / "pinchpoint-alerts.yml").read_text(encoding="utf-8")


@pytest.mark.tools
@pytest.mark.skipif(shutil.which("promtool") is None, reason="promtool (Debian: prometheus)")
def test_promtool_accepts_the_rules_and_their_unit_tests_pass(tmp_path: Path) -> None:
    def promtool(*args: str, cwd: Path = PROMETHEUS) -> None:
        done = subprocess.run(
            ["promtool", *args], capture_output=True, text=True, cwd=cwd, check=False
        )
        assert done.returncode == 0, done.stdout + done.stderr

    promtool("check", "rules", "pinchpoint-alerts.yml")
    promtool("test", "rules", "pinchpoint-alerts.test.yml")
    token = tmp_path / "read.token"
    token.write_text("x\n")
    scrape = (PROMETHEUS / "scrape.yml").read_text(encoding="utf-8")
    (tmp_path / "scrape.yml").write_text(
        scrape.replace("/etc/prometheus/pinchpoint-read.token", str(token))
    )
    shutil.copy(PROMETHEUS / "pinchpoint-alerts.yml", tmp_path)
    promtool("check", "config", "scrape.yml", cwd=tmp_path)


def test_the_installed_package_holds_every_file_of_the_source(tmp_path: Path) -> None:
    """The image runs `pip install .`, not an editable install: every file under pinchpoint/
    (templates, static assets, migrations) must be in the wheel, or the image lacks it. Builds
    the wheel of a copy (so nothing is written into the checkout) with pip's build isolation."""
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source)
    shutil.copytree(
        ROOT / "pinchpoint", source / "pinchpoint", ignore=shutil.ignore_patterns("__pycache__")
    )
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), "."],
        cwd=source,
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = tmp_path.glob("pinchpoint-*.whl")
    with zipfile.ZipFile(wheel) as packed:
        installed = set(packed.namelist())
    files = {
        path.relative_to(source).as_posix()
        for path in (source / "pinchpoint").rglob("*")
        if path.is_file()
    }
    missing = sorted(files - installed)
    assert not missing, f"not installed by `pip install .` (pyproject package-data): {missing}"


def _top_level_imports(package: Path) -> set[str]:
    """The top-level module names `package`'s code imports (absolute imports only)."""
    names: set[str] = set()
    for source in package.rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module.split(".")[0])
    return names


def _distribution(requirement: str) -> str:
    """The normalised distribution name of a requirement (`uvicorn[standard]>=0.30` → uvicorn)."""
    name = re.split(r"[\[<>=!~; (]", requirement.strip(), maxsplit=1)[0]
    return re.sub(r"[-_.]+", "-", name).lower()


def test_the_runtime_dependencies_are_what_the_code_imports() -> None:
    """Every third-party module pinchpoint imports comes with a declared dependency (itself or
    one it requires, as `starlette` comes with FastAPI), every declared dependency is imported,
    each has an upper bound, and the PostgreSQL driver is the `postgres` extra."""
    import tomllib
    from importlib.metadata import packages_distributions, requires

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {_distribution(d): d for d in project["dependencies"]}
    assert all("<" in spec for spec in declared.values()), declared
    assert "python-multipart" not in declared and "psycopg" not in declared
    assert any(d.startswith("psycopg") for d in project["optional-dependencies"]["postgres"])

    def with_requirements(name: str) -> set[str]:
        needed = [r for r in requires(name) or [] if "extra ==" not in r]
        return {name} | {_distribution(r) for r in needed}

    provided = set().union(*(with_requirements(name) for name in declared))
    distributions = packages_distributions()
    imported = _top_level_imports(ROOT / "pinchpoint") - set(sys.stdlib_module_names)
    imported_from = {
        module: {_distribution(d) for d in distributions.get(module, [])}
        for module in imported - {"pinchpoint"}
    }
    unsatisfied = {m: d for m, d in imported_from.items() if not d & provided}
    assert not unsatisfied, f"imported but not declared: {unsatisfied}"
    used = set().union(*imported_from.values())
    assert not {name for name in declared if name not in used}, "declared but never imported"
