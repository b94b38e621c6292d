"""Hosts for the multipath rules: real `multipath -ll` captures, and simulated SAN hosts."""

from __future__ import annotations

from pathlib import Path

from fixture_paths import FIXTURES

from pinchpoint.checks.parse.multipath_ll import parse_multipath_ll
from pinchpoint.model.findings import Finding
from pinchpoint.model.inventory import HostInfo, Inventory, SourceKind
from pinchpoint.model.multipath import MultipathInventory
from pinchpoint.rules import multipath
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.engine import evaluate

MULTIPATH = FIXTURES / "multipath"
FAULTY = MULTIPATH / "insights-core_multipath_v4_ll_doc_faulty_paths.txt"
MD36XXI = MULTIPATH / "insights-core_multipath_v4_ll_rhel6_dell_md36xxi.txt"
CLARIION = MULTIPATH / "insights-core_multipath_v4_ll_rhel5_dgc_clariion.txt"


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
