"""Hosts for the multipath rules: real `multipath -ll` captures, and simulated SAN hosts."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_paths import FIXTURES, SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.parse.multipath_ll import parse_multipath_ll
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.findings import Finding
from pinchpoint.model.inventory import HostInfo, Inventory, SourceKind
from pinchpoint.model.multipath import MultipathInventory
from pinchpoint.rules import multipath
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.engine import evaluate
from pinchpoint.simulator import load_spec, write_snapshot

MULTIPATH = FIXTURES / "multipath"
FAULTY = MULTIPATH / "insights-core_multipath_v4_ll_doc_faulty_paths.txt"
MD36XXI = MULTIPATH / "insights-core_multipath_v4_ll_rhel6_dell_md36xxi.txt"
CLARIION = MULTIPATH / "insights-core_multipath_v4_ll_rhel5_dgc_clariion.txt"
TRIDENT_998 = MULTIPATH / (
    "trident_issue998__multipath_-ll_NETAPP_ontap_alua_ONE_path_prio10_nonoptimized"
    "_with_2_iscsi_sessions.txt"
)


def captured(path: Path) -> Inventory:
    """An inventory holding only the maps of a real `multipath -ll` capture."""
    listing = parse_multipath_ll(path.read_text())
    return Inventory(
        host=HostInfo(hostname=path.stem[:20], source=SourceKind.SNAPSHOT),
        multipath=MultipathInventory(maps=listing.maps),
    )


def multipath_findings(inventory: Inventory) -> list[Finding]:
    found, skipped, _ = evaluate(RuleContext(inventory=inventory), multipath.RULES)
    assert not [s for s in skipped if s.reason.startswith("rule failed")], skipped
    return found


def simulated(factory: pytest.TempPathFactory, spec: Path) -> Inventory:
    """The inventory `check` collects from the snapshot the simulator writes for a spec."""
    out = factory.mktemp("multipath") / "snapshot"
    write_snapshot(load_spec(spec), out)
    return collect_inventory(SnapshotSource(out))


@pytest.fixture(scope="session")
def san_failed_path(tmp_path_factory: pytest.TempPathFactory) -> Inventory:
    """Field case 2's SAN host with the second path of mpathb `failed faulty offline`."""
    return simulated(tmp_path_factory, SPECS / "san_failed_path.toml")


@pytest.fixture(scope="session")
def san_balanced(tmp_path_factory: pytest.TempPathFactory) -> Inventory:
    """Field case 2's SAN host as it is: three maps with both paths ready."""
    return simulated(tmp_path_factory, SPECS / "san_host.toml")
