"""Every field a collector may not find renders as "unknown" (or is left out), never as a crash
or a bare "None": inventories of a real capture and of the demo host, with random optional
fields emptied, rendered through every renderer — the terminal's inventory view, the JSON, the
enclosure maintenance view, and the report of the rules as a table, Markdown, HTML and JSON."""

from __future__ import annotations

import io
import json
import random
import types
import typing
from typing import Any

import pytest
from demo_host import shared_demo_root
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from rich.console import Console

from pinchpoint.api.views.maintenance import enclosure_maintenance
from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source.snapshot import SnapshotSource
from pinchpoint.cli.inventory_view import inventory_view
from pinchpoint.model.findings import Report
from pinchpoint.model.inventory import Inventory
from pinchpoint.report import ReportFormat
from pinchpoint.report.table import report_view
from pinchpoint.report.text import report_text
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.catalog import CATALOG
from pinchpoint.rules.engine import build_report
from tests.conftest import PROCFS_SNAPSHOT


def _optional(annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return type(None) in typing.get_args(annotation)
    return False


def punch_holes(model: BaseModel, rnd: random.Random, share: float) -> int:
    """Set a random `share` of the optional fields found under `model` to None, in place (as a
    collector that could not read them leaves them); the number emptied."""
    emptied = 0
    for name, info in type(model).model_fields.items():
        value = getattr(model, name)
        if value is None:
            continue
        if _optional(info.annotation) and rnd.random() < share:
            model.__dict__[name] = None
            emptied += 1
            continue
        emptied += _punch_in(value, rnd, share)
    return emptied


def _punch_in(value: Any, rnd: random.Random, share: float) -> int:
    if isinstance(value, BaseModel):
        return punch_holes(value, rnd, share)
    if isinstance(value, list | tuple):
        return sum(_punch_in(item, rnd, share) for item in value)
    if isinstance(value, dict):
        return sum(_punch_in(item, rnd, share) for item in value.values())
    return 0


@pytest.fixture(scope="module")
def inventories(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Inventory]:
    demo = shared_demo_root()
    return {
        "procfs capture": collect_inventory(SnapshotSource(PROCFS_SNAPSHOT)),
        "demo": collect_inventory(SnapshotSource(demo)),
    }


def _terminal(renderable: Any) -> str:
    buffer = io.StringIO()
    Console(file=buffer, width=120, no_color=True).print(renderable)
    return buffer.getvalue()


def _checked(inventory: Inventory) -> Report:
    report = build_report(RuleContext(inventory=inventory), CATALOG)
    assert [s for s in report.skipped if s.reason.startswith("rule failed")] == []
    return report


@pytest.fixture(scope="module")
def reports(inventories: dict[str, Inventory]) -> dict[str, Report]:
    return {name: _checked(inventory) for name, inventory in inventories.items()}


HOLES = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
WHICH = st.sampled_from(["procfs capture", "demo"])
SEEDS = st.integers(0, 2**32 - 1)
SHARES = st.sampled_from([0.05, 0.3, 1.0])


@HOLES
@given(which=WHICH, seed=SEEDS, share=SHARES)
def test_an_inventory_with_holes_renders_everywhere(
    inventories: dict[str, Inventory], which: str, seed: int, share: float
) -> None:
    inventory = inventories[which].model_copy(deep=True)
    assert punch_holes(inventory, random.Random(seed), share) > 0
    shown = _terminal(inventory_view(inventory, with_disks=True))
    assert "None" not in shown
    Inventory.model_validate(json.loads(inventory.model_dump_json()))
    enclosure_maintenance(inventory, [])


@settings(HOLES, max_examples=6)
@given(which=WHICH, seed=SEEDS, share=SHARES)
def test_the_rules_judge_an_inventory_with_holes(
    inventories: dict[str, Inventory], which: str, seed: int, share: float
) -> None:
    inventory = inventories[which].model_copy(deep=True)
    punch_holes(inventory, random.Random(seed), share)
    report = _checked(inventory)
    for form in ReportFormat:
        assert report_text(report, form)


@HOLES
@given(which=WHICH, seed=SEEDS, share=SHARES)
def test_a_report_with_holes_renders_in_every_form(
    reports: dict[str, Report], which: str, seed: int, share: float
) -> None:
    report = reports[which].model_copy(deep=True)
    punch_holes(report, random.Random(seed), share)
    assert "None" not in _terminal(report_view(report))
    for form in ReportFormat:
        text = report_text(report, form)
        if form is not ReportFormat.JSON:
            assert "None" not in text
    Report.model_validate_json(report_text(report, ReportFormat.JSON))


def test_a_pcie_link_of_unknown_width_says_so(inventories: dict[str, Inventory]) -> None:
    inventory = inventories["demo"].model_copy(deep=True)
    hba = inventory.sas.hbas[0]
    assert hba.pcie is not None
    hba.pcie.max_width = None
    hba.pcie.current_width = None
    shown = _terminal(inventory_view(inventory))
    assert "GT/s, width unknown" in shown
