"""The PCIe rules together (`pinchpoint.rules.pcie.RULES`): nothing on the real mpt3sas capture,
no failure on links whose figures are unknown."""

from __future__ import annotations

from fixture_paths import FIXTURES

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.rules import pcie
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.engine import evaluate
from tests.rules.pcie.conftest import findings

MPT3SAS = FIXTURES / "snapshots" / "procfs-mpt3sas"


def test_real_mpt3sas_capture_gives_no_pcie_finding() -> None:
    context = RuleContext(inventory=collect_inventory(SnapshotSource(MPT3SAS)))
    assert findings(context) == []


def test_unknown_links_do_not_crash(hosts: dict[str, RuleContext]) -> None:
    inventory = hosts["degraded_network"].inventory.model_copy(deep=True)
    for function in inventory.pcie.functions:
        function.link.current_width = None
        function.link.max_speed_gts = None
        function.upstream_link = None
    found, skipped, ran = evaluate(RuleContext(inventory=inventory), pcie.RULES)
    assert (found, skipped, ran) == ([], [], 2)
