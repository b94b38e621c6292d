"""Text that is not UTF-8 — Latin-1 and random bytes in vendor and model strings, in any sysfs
attribute, in a tool's captured output, in a file name, in the manifest's host name — is kept as
`\\xNN` escapes end to end: `check --format json` and `inventory --json` stay valid JSON, and a
service sweeps such a snapshot, stores the report and sweeps it again."""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fixture_paths import SPECS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source.snapshot import SnapshotSource
from pinchpoint.cli import app
from pinchpoint.model.findings import Report
from pinchpoint.model.inventory import Inventory
from pinchpoint.service.settings import TargetKind
from pinchpoint.simulator import load_spec, write_snapshot
from tests.api.conftest import ADMIN_TOKEN, READ_TOKEN, Server, demo_settings, start_server

runner = CliRunner()
LATIN1_VENDOR = "Séagaté Ünïon".encode("latin-1")  # not UTF-8


def _attributes(root: Path, name: str) -> list[Path]:
    return sorted(p for p in (root / "sys").rglob(name) if p.is_file() and not p.is_symlink())


def spoil(root: Path, rnd: random.Random) -> None:
    """Rewrite a simulated snapshot as a hostile host would hand it over."""
    for path in _attributes(root, "vendor")[:6] + _attributes(root, "model")[:6]:
        path.write_bytes(LATIN1_VENDOR + b"\n")
    for path in rnd.sample(_attributes(root, "*"), 40):
        path.write_bytes(rnd.randbytes(rnd.randint(1, 40)))
    for path in sorted((root / "commands").rglob("*"))[:8]:
        if path.is_file():
            path.write_bytes(path.read_bytes() + b"\n\xff\xfe bad \x80\n")
    net = os.fsencode(root / "sys" / "class" / "net")
    first = sorted(n for n in os.listdir(net) if n not in (b"lo", b"bonding_masters"))[0]
    os.rename(os.path.join(net, first), os.path.join(net, b"eth\xe9\xff"))
    manifest = root / "manifest.json"
    data = json.loads(manifest.read_text())
    data["hostname"] = "head\udce9-01"  # `json.dumps` writes it as the escape "\udce9"
    data["kernel"] = "6.1.0-\udcff"
    manifest.write_text(json.dumps(data))


@pytest.fixture(scope="module")
def spoiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("spoiled") / "snapshot"
    write_snapshot(load_spec(SPECS / "san_host.toml"), root)
    spoil(root, random.Random(14))
    return root


def test_check_json_stays_valid(spoiled: Path) -> None:
    result = runner.invoke(app, ["check", "--snapshot", str(spoiled), "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    report = Report.model_validate_json(result.stdout)
    assert report.host.hostname == "head\\xe9-01"
    assert report.host.kernel == "6.1.0-\\xff"


def test_inventory_json_keeps_the_bytes_as_escapes(spoiled: Path) -> None:
    result = runner.invoke(app, ["inventory", "--snapshot", str(spoiled), "--json"])
    assert result.exit_code == 0, result.output
    Inventory.model_validate_json(result.stdout)
    assert "S\\\\xe9agat\\\\xe9 \\\\xdcn\\\\xefon" in result.stdout  # JSON of S\xe9agat\xe9 …


@pytest.mark.parametrize("args", [["inventory"], ["inventory", "--disks"], ["check"]])
def test_the_terminal_views_show_escapes(spoiled: Path, args: list[str]) -> None:
    result = runner.invoke(app, [*args, "--snapshot", str(spoiled)])
    assert result.exit_code in (0, 1), result.output
    assert "head\\xe9-01" in result.output


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), raw=st.binary(min_size=1, max_size=64))
def test_random_bytes_in_any_attribute_never_break_the_json(
    tmp_path_factory: pytest.TempPathFactory, seed: int, raw: bytes
) -> None:
    root = tmp_path_factory.mktemp("random") / "snapshot"
    write_snapshot(load_spec(SPECS / "san_host.toml"), root)
    rnd = random.Random(seed)
    for path in rnd.sample(_attributes(root, "*"), 60):
        path.write_bytes(raw)
    inventory = collect_inventory(SnapshotSource(root))
    Inventory.model_validate_json(inventory.model_dump_json())


@pytest.fixture
def spoiled_server(spoiled: Path, tmp_path: Path) -> Iterator[Server]:
    server = start_server(
        demo_settings(tmp_path / "data", target=TargetKind.SNAPSHOT, snapshot=spoiled)
    )
    try:
        server.wait_for_report()
        yield server
    finally:
        server.stop()


def test_a_service_stores_the_report_and_sweeps_again(spoiled_server: Server) -> None:
    url = spoiled_server.url
    admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    read = {"Authorization": f"Bearer {READ_TOKEN}"}
    sweep = httpx.post(f"{url}/v1/checks", headers=admin, timeout=60).json()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        state = httpx.get(f"{url}/v1/checks/{sweep['id']}", headers=read, timeout=60).json()
        if state["state"] in ("done", "failed"):
            break
        time.sleep(0.2)
    assert state["state"] == "done", state
    listed = httpx.get(f"{url}/v1/reports", headers=read, timeout=60).json()
    assert len(listed["items"]) == 2
    latest = httpx.get(f"{url}/v1/reports/latest", headers=read, timeout=60)
    assert latest.status_code == 200
    assert latest.json()["host"]["hostname"] == "head\\xe9-01"
