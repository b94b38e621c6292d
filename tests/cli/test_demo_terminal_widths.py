"""The demo with its real H4060-J shelves (6 × 60 bays, 360 disks) stays legible in a terminal of
80 and of 120 columns: `inventory --demo` and `check --demo` fit the width, cut no name short, and
`check --demo` still finds field case 1 with the same rules as when its shelves had 24 bays."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from pinchpoint.cli import app

runner = CliRunner()

# What `check --demo` found before its shelves had their real 60 bays (main at dd90e0b): each
# finding's rule, entity and severity, and the rules of its evidence (the two single-pathed
# JBODs proven by their latency outlying their peers').
FOUND_WITH_24_BAYS = {
    ("enclosure.element.failed", "JBOD-002", "critical", ("enclosure.element.failed",)),
    (
        "sas.enclosure.single_path",
        "JBOD-003",
        "critical",
        ("latency.group.outlier", "sas.enclosure.single_path"),
    ),
    (
        "sas.enclosure.single_path",
        "JBOD-012",
        "critical",
        ("latency.group.outlier", "sas.enclosure.single_path"),
    ),
    (
        "sas.chain.imbalance",
        "0000:03:00.0 SAS9300-8e connector 0: JBOD-001 → JBOD-003 → JBOD-007 → JBOD-012",
        "warning",
        ("sas.chain.imbalance",),
    ),
}
JBODS = ("JBOD-001", "JBOD-002", "JBOD-003", "JBOD-007", "JBOD-00B", "JBOD-012")


def _run(*args: str, columns: int) -> str:
    result = runner.invoke(app, list(args), env={"COLUMNS": str(columns)})
    assert result.exit_code in (0, 1), result.output
    return result.stdout


def _fits(text: str, columns: int) -> None:
    lines = text.splitlines()
    too_long = [line for line in lines if len(line) > columns]
    assert too_long == [], too_long[:3]
    cut = [line for line in lines if "…" in line]
    assert cut == [], cut[:3]  # no cell cut short with an ellipsis


@pytest.mark.parametrize("columns", [80, 120])
def test_inventory_of_the_demo_fits_the_terminal(columns: int) -> None:
    out = _run("inventory", "--demo", columns=columns)
    _fits(out, columns)
    assert "360 disks, 600 disk paths" in out
    for name in JBODS:
        assert name in out
    assert out.count("slots 60/60 occupied") == 10  # each JBOD under every port it is reached from


@pytest.mark.parametrize("columns", [80, 120])
def test_check_of_the_demo_fits_the_terminal(columns: int) -> None:
    out = _run("check", "--demo", columns=columns)
    _fits(out, columns)
    for name in ("JBOD-003", "JBOD-012"):
        assert name in out


def test_check_of_the_demo_finds_field_case_1_with_the_same_rules() -> None:
    report = json.loads(_run("check", "--demo", "--format", "json", columns=120))
    found = {
        (
            f["rule"],
            f["entity"]["name"],
            f["severity"],
            tuple(sorted({e["rule"] for e in f["evidence"] if e.get("rule")})),
        )
        for f in report["findings"]
    }
    assert found == FOUND_WITH_24_BAYS
    titles = {f["entity"]["name"]: f["title"] for f in report["findings"]}
    assert titles["JBOD-003"] == "JBOD-003 has 1 of 2 SAS paths"
