"""Error counters through the command line: `capture` keeps them, `inventory` shows them, and
`check --previous` compares two sweeps (`fc.port.errors`, `net.link.errors`)."""

from __future__ import annotations

import json
from pathlib import Path

from fixture_paths import ROOT
from typer.testing import CliRunner

from pinchpoint.cli import app
from pinchpoint.model.inventory import Inventory

runner = CliRunner()
EXAMPLES = ROOT / "pinchpoint" / "simulator" / "specs"


def test_capture_keeps_this_hosts_nic_counters_for_offline_use(tmp_path: Path) -> None:
    out = tmp_path / "snap"
    result = runner.invoke(app, ["capture", str(out)])
    assert result.exit_code == 0, result.output
    offline = runner.invoke(app, ["inventory", "--snapshot", str(out), "--json"])
    assert offline.exit_code == 0, offline.output
    nics = Inventory.model_validate_json(offline.stdout).network.nics
    for nic in nics:
        assert nic.counters is not None, nic.name
        assert (out / f"sys/class/net/{nic.name}/statistics/rx_errors").is_file()
        assert (out / f"sys/class/net/{nic.name}/carrier_changes").is_file()
        assert "rx_crc_errors" in nic.counters.statistics
        if nic.counters.driver:
            assert (out / f"commands/ethtool-S/{nic.name}.txt").is_file()


def test_check_with_previous_compares_two_simulated_sweeps(tmp_path: Path) -> None:
    for n in (1, 2):
        spec = EXAMPLES / f"counters_rising_{n}.toml"
        result = runner.invoke(app, ["simulate", str(spec), "--out", str(tmp_path / str(n))])
        assert result.exit_code == 0, result.output
    shown = runner.invoke(
        app, ["inventory", "--snapshot", str(tmp_path / "2")], env={"COLUMNS": "220"}
    )
    assert "rx 460 tx 0 crc 460, dropped rx 0 tx 0, carrier 8" in shown.output
    assert "link 4 sync 9 signal 0 crc 57 frames 0" in shown.output
    checked = runner.invoke(
        app,
        [
            "check",
            "--snapshot",
            str(tmp_path / "2"),
            "--previous",
            str(tmp_path / "1"),
            "--format",
            "json",
        ],
    )
    report = json.loads(checked.stdout)
    found = {(f["rule"], f["entity"]["name"].split()[0]) for f in report["findings"]}
    counters = {f for f in found if f[0] in ("net.link.errors", "fc.port.errors")}
    assert counters == {("net.link.errors", "ens2f0"), ("fc.port.errors", "host0")}
    alone = runner.invoke(app, ["check", "--snapshot", str(tmp_path / "2"), "--format", "json"])
    skipped = {s["rule"]: s["reason"] for s in json.loads(alone.stdout)["skipped"]}
    assert skipped["net.link.errors"] == "no earlier sweep of this host to compare with"
    assert skipped["fc.port.errors"] == "no earlier sweep of this host to compare with"
