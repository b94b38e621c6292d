"""Hosts for the ZFS rules: real `zpool status` captures, and a simulated pool across two
JBODs with a FAULTED, an OFFLINE and an erroring disk (tests/fixtures/specs/zfs_faults.toml)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_paths import FIXTURES, SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.parse.zpool_status import parse_zpool_status
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.findings import Finding
from pinchpoint.model.inventory import HostInfo, Inventory, SourceKind
from pinchpoint.model.zfs import ZfsInventory
from pinchpoint.rules import zfs
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.engine import evaluate
from pinchpoint.simulator import load_spec, write_snapshot

ZFS = FIXTURES / "zfs"
OSM_FAULTED = ZFS / "osm-fr_issue482__zpool_status_mirror_DEGRADED_FAULTED_r1_w29_c4.txt"
COSIUM_CKSUM = (
    ZFS / "cosium-zabbix_issue6__zpool_status_ONLINE_2x_mirror_cksum33_no_errors_line.txt"
)
UNRAID_RESILVER = (
    ZFS / "unraid-webgui_pr2547__zpool_status_raidz2_resilvering_replacing_UNAVAIL_cksum_"
    "author_elided.txt"
)
HEALTHY_REAL = ZFS / "jc__zpool_status_-v.txt"


def captured(path: Path) -> Inventory:
    """An inventory holding only the pools of a real `zpool status` capture. The Cosium paste
    starts with a shell prompt and stops after the config table; `zpool status` ends every
    pool with its `errors:` line (the parser leaves out a pool cut before it), so the prompt is
    dropped and the line zpool prints for a pool without data errors is added."""
    text = path.read_text()
    text = text[text.index("  pool:") :]
    if "errors:" not in text:
        text = text.rstrip("\n") + "\n\nerrors: No known data errors\n"
    status = parse_zpool_status(text)
    return Inventory(
        host=HostInfo(hostname=path.stem[:20], source=SourceKind.SNAPSHOT),
        zfs=ZfsInventory(pools=status.pools),
    )


def zfs_findings(inventory: Inventory, rule: str) -> list[Finding]:
    found, skipped, _ = evaluate(RuleContext(inventory=inventory), zfs.RULES)
    assert not [s for s in skipped if s.reason.startswith("rule failed")], skipped
    return [f for f in found if f.rule == rule]


@pytest.fixture(scope="session")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> Inventory:
    out = tmp_path_factory.mktemp("zfs") / "zfs_faults"
    write_snapshot(load_spec(SPECS / "zfs_faults.toml"), out)
    return collect_inventory(SnapshotSource(out))


@pytest.fixture(scope="session")
def balanced(tmp_path_factory: pytest.TempPathFactory) -> Inventory:
    out = tmp_path_factory.mktemp("zfs") / "zfs_mirror"
    write_snapshot(load_spec(SPECS / "zfs_mirror.toml"), out)
    return collect_inventory(SnapshotSource(out))


@pytest.fixture(scope="session")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Inventory:
    out = tmp_path_factory.mktemp("zfs") / "zfs_mixed"
    write_snapshot(load_spec(SPECS / "zfs_mixed.toml"), out)
    return collect_inventory(SnapshotSource(out))
