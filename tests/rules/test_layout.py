"""The shape of the rules package: a rule is a unit — one module per rule under its domain, named
from its id, with its test module beside the others of its domain; the engine stamps the rule id
on evidence; derived facts are declared where they are read; no module too long to read."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest
from fixture_paths import ROOT

from pinchpoint.rules.base import Rule
from pinchpoint.rules.catalog import CATALOG

RULES_DIR = ROOT / "pinchpoint" / "rules"
DOMAINS = (
    "sas",
    "latency",
    "queue",
    "san",
    "fc",
    "multipath",
    "net",
    "pcie",
    "disk",
    "zfs",
    "firmware",
    "enclosure",
    "fleet",
    "nvme",
    "iscsi",
)


def module_of(rule: Rule) -> str:
    """`sas.enclosure.single_path` -> `pinchpoint.rules.sas.enclosure_single_path`."""
    domain, *rest = rule.id.split(".")
    return f"pinchpoint.rules.{domain}.{'_'.join(rest)}"


def source_of(rule: Rule) -> str:
    return (
        (RULES_DIR / module_of(rule).split(".", 2)[2].replace(".", "/"))
        .with_suffix(".py")
        .read_text(encoding="utf-8")
    )


@pytest.mark.parametrize("rule", CATALOG, ids=lambda r: r.id)
def test_each_rule_is_a_module_of_its_domain_named_from_its_id(rule: Rule) -> None:
    assert rule.category in DOMAINS
    module = importlib.import_module(module_of(rule))
    assert module.RULE is rule and rule.judge.__module__ == module.__name__
    domain = importlib.import_module(f"pinchpoint.rules.{rule.category}")
    assert rule in domain.RULES


@pytest.mark.parametrize("rule", CATALOG, ids=lambda r: r.id)
def test_each_rule_has_its_test_module(rule: Rule) -> None:
    domain, name = module_of(rule).split(".")[2:]
    assert (ROOT / "tests" / "rules" / domain / f"test_{name}.py").is_file()


def test_the_domains_list_every_rule_of_the_catalog_once() -> None:
    listed = [
        rule
        for domain in DOMAINS
        for rule in importlib.import_module(f"pinchpoint.rules.{domain}").RULES
    ]
    assert sorted(r.id for r in listed) == sorted(r.id for r in CATALOG)
    assert len({r.id for r in CATALOG}) == len(CATALOG)


@pytest.mark.parametrize("rule", CATALOG, ids=lambda r: r.id)
def test_the_derived_facts_a_rule_reads_are_those_it_declares(rule: Rule) -> None:
    text = source_of(rule)
    read = set(re.findall(r"\.derived\((\w+)\)", text))
    if "group_figures(" in text:
        read.add("breakdown")
    assert {fact.__name__ for fact in rule.derived} == read


def _python_files() -> list[Path]:
    added_stats = ("latency", "queue_samples", "write_back", "disk_names", "sas_phys")
    stats = [ROOT / "pinchpoint" / "stats" / f"{name}.py" for name in added_stats]
    return sorted(RULES_DIR.rglob("*.py")) + stats


def test_no_module_is_over_800_lines() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in _python_files()
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 800
    }
    assert long == {}


def test_no_rule_types_the_rule_id_into_its_evidence() -> None:
    typed = [str(p.relative_to(ROOT)) for p in _python_files() if "Evidence(rule=" in p.read_text()]
    assert typed == []


def _imports(path: Path) -> list[tuple[str, str]]:
    """(module, name) of every `from pinchpoint… import name` in a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        (node.module, alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pinchpoint")
        for alias in node.names
        if node.module is not None
    ]


def test_rule_domains_do_not_import_each_other_nor_private_names() -> None:
    """A domain imports from `rules.base`, `rules.derived` and itself only; nothing imports a
    private name (`_helper`) of another module."""
    crossing = []
    for domain in DOMAINS:
        for path in sorted((RULES_DIR / domain).glob("*.py")):
            for module, _ in _imports(path):
                if not module.startswith("pinchpoint.rules."):
                    continue
                if module.split(".")[2] not in ("base", "derived", domain):
                    crossing.append(f"{path.relative_to(ROOT)} imports {module}")
    for path in _python_files():
        crossing += [
            f"{path.relative_to(ROOT)} imports {module}.{name}"
            for module, name in _imports(path)
            if name.startswith("_")
        ]
    assert crossing == []
