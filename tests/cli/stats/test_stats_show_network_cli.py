"""`pinchpoint stats show --by nic|bond` end to end: simulator → snapshot → inventory →
`/proc/net/dev` samples → NIC and bond figures → table and JSON.

Field case 3 (`downgraded_nic.toml`): the NIC that negotiated 100 Mb/s carries ≈ 11–12 MB/s at
~94 % while its identical 1 Gb/s peers carry three times as much at a third of their speed.
The demo: bond0 (2 × 10 GbE) receives the ≈ 1.5 GB/s streaming write, split over its members.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from demo_host import shared_demo_root
from fixture_paths import SPECS
from typer.testing import CliRunner

from pinchpoint.cli import app
from pinchpoint.model.breakdown import Breakdown, GroupLevel
from pinchpoint.simulator import load_spec, spec_from_data, write_snapshot

runner = CliRunner()
PEERS = ("enp2s0f0", "enp2s0f1", "enp2s0f2")


@pytest.fixture(scope="module")
def downgraded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("downgraded") / "snapshot"
    write_snapshot(load_spec(SPECS / "downgraded_nic.toml"), target)
    return target


@pytest.fixture(scope="module")
def demo() -> Path:
    return shared_demo_root()


def show_json(*args: str) -> Breakdown:
    result = runner.invoke(app, ["stats", "show", *args, "--json"])
    assert result.exit_code == 0, result.output
    return Breakdown.model_validate_json(result.stdout)


def test_field_case_3_the_downgraded_nic_stands_out_by_nic(downgraded: Path) -> None:
    found = show_json("--snapshot", str(downgraded), "--by", "nic")
    assert found.levels == [] and found.notes == []
    (level,) = found.network
    assert level.level is GroupLevel.NIC and level.intervals == 6
    links = {link.name: link for link in level.links}
    assert list(links) == ["eno1", *PEERS]
    slow = links["eno1"]
    assert (slow.speed_mbps, slow.max_speed_mbps) == (100, 1000)
    assert 11.0 < slow.rx_mb_s < 12.0 and 11.0 < slow.tx_mb_s < 12.0
    assert 90.0 < (slow.util_pct or 0.0) < 96.0
    for name in PEERS:
        peer = links[name]
        assert peer.speed_mbps == peer.max_speed_mbps == 1000
        assert peer.mb_s > 2.5 * slow.mb_s
        assert (peer.util_pct or 100.0) < 50.0
        assert not peer.above_capacity


def test_the_table_marks_the_downgraded_speed(downgraded: Path) -> None:
    result = runner.invoke(app, ["stats", "show", "--snapshot", str(downgraded), "--by", "nic"])
    assert result.exit_code == 0, result.output
    assert "by nic" in result.output and "100 of 1,000" in result.output
    assert "6 intervals of /proc/net/dev samples" in result.output


def test_the_demo_bond_carries_the_streaming_write(demo: Path) -> None:
    found = show_json("--snapshot", str(demo), "--by", "bond", "--by", "enclosure")
    assert [lv.level for lv in found.levels] == [GroupLevel.ENCLOSURE]
    (level,) = found.network
    (bond,) = level.links
    assert bond.name == "bond0" and bond.speed_mbps == 20000
    assert 1400.0 < bond.rx_mb_s < 1700.0 and bond.tx_mb_s < 60.0
    assert 50.0 < (bond.util_pct or 0.0) < 75.0
    members = {m.name: m for m in bond.members}
    assert set(members) == {"ens1f0", "ens1f1"}
    assert sum(m.rx_mb_s for m in members.values()) == pytest.approx(bond.rx_mb_s)
    for member in members.values():
        assert member.speed_mbps == 10000
        assert 0.35 < (member.share or 0.0) < 0.65


def test_a_slow_member_of_a_bond_stands_out_by_bond(tmp_path: Path) -> None:
    nics = [
        {"name": f"eno{n}", "pci_address": f"0000:02:00.{n}", "driver": "igb", "bond": "bond0"}
        for n in range(3)
    ]
    nics[2]["partner_mbps"] = [10, 100]  # one switch port left at 10/100
    spec = spec_from_data(
        {
            "nic": nics,
            "bond": [{"name": "bond0"}],
            "workload": {
                "samples": 4,
                "interval_s": 10.0,
                "network": [{"interface": "bond0", "rx_mb_s": 150.0, "tx_mb_s": 10.0}],
            },
        }
    )
    write_snapshot(spec, tmp_path / "snap")
    found = show_json("--snapshot", str(tmp_path / "snap"), "--by", "bond")
    (bond,) = found.network[0].links
    assert bond.speed_mbps == 2100 and bond.max_speed_mbps == 3000
    members = {m.name: m for m in bond.members}
    slow = members["eno2"]
    assert slow.speed_mbps == 100 and 90.0 < (slow.util_pct or 0.0) < 96.0
    assert (slow.share or 1.0) < 0.15
    for name in ("eno0", "eno1"):
        assert (members[name].share or 0.0) > 0.35 and (members[name].util_pct or 100.0) < 60.0


def test_a_snapshot_without_net_dev_samples_says_so(downgraded: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(downgraded, copy, symlinks=True)
    for n in range(7):
        (copy / f"samples/{n}/proc/net/dev").unlink()
    (copy / "samples/3/proc/net").rmdir()
    found = show_json("--snapshot", str(copy), "--by", "nic")
    assert all(link.measured_s == 0.0 for link in found.network[0].links)
    assert any("no network interface counters" in note for note in found.notes)
    result = runner.invoke(app, ["stats", "show", "--snapshot", str(copy), "--by", "nic"])
    assert result.exit_code == 0 and "eno1" in result.output


def test_one_garbled_sample_leaves_the_others_usable(downgraded: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(downgraded, copy, symlinks=True)
    (copy / "samples/3/proc/net/dev").write_bytes(b"\x00\xff garbage:\n" * 4)
    found = show_json("--snapshot", str(copy), "--by", "nic")
    links = {link.name: link for link in found.network[0].links}
    assert 11.0 < links["eno1"].rx_mb_s < 12.0  # intervals 0-1, 1-2, 4-5, 5-6 still count
    assert links["eno1"].measured_s == pytest.approx(40.0)
    assert any("4 lines skipped" in note for note in found.notes)
