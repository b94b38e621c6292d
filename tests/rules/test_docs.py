"""docs/rules.md is what the catalog says now, and every rule documents itself fully."""

from __future__ import annotations

from fixture_paths import ROOT

from pinchpoint.rules.catalog import CATALOG
from pinchpoint.rules.config import Config
from pinchpoint.rules.docs import REGENERATE, catalog_markdown, rule_markdown, value_text
from pinchpoint.rules.sas.chain_too_deep import RULE as CHAIN_TOO_DEEP

RULES_MD = ROOT / "docs" / "rules.md"


def test_docs_rules_md_is_up_to_date() -> None:
    assert RULES_MD.read_text(encoding="utf-8") == catalog_markdown(CATALOG), (
        f"docs/rules.md is stale: run `{REGENERATE}`"
    )


def test_every_rule_has_an_entry_and_a_row_in_the_index() -> None:
    text = catalog_markdown(CATALOG)
    for rule in CATALOG:
        assert f"\n## `{rule.id}`\n" in text
        assert f"| [`{rule.id}`](#" in text


def test_a_rule_entry_gives_thresholds_with_units_and_the_fix() -> None:
    text = rule_markdown(CHAIN_TOO_DEEP)
    assert "| `max_enclosures` | 4 enclosures | Most enclosures a chain may hold. |" in text
    assert "needs sas" in text and "default severity **warning**" in text
    assert text.rstrip().endswith(CHAIN_TOO_DEEP.remediation.strip())


def test_with_a_config_the_values_in_force_are_shown() -> None:
    config = Config.model_validate(
        {
            "source": "site.toml",
            "rules": {
                CHAIN_TOO_DEEP.id: {
                    "enabled": False,
                    "thresholds": {"max_enclosures": 3},
                    "overrides": [{"entity": "chain:c1", "thresholds": {"max_enclosures": 6}}],
                }
            },
        }
    )
    text = rule_markdown(CHAIN_TOO_DEEP, config)
    assert "In force from site.toml: **disabled**" in text
    assert "| 4 enclosures | 3 enclosures (chain:c1: 6 enclosures) |" in text


def test_values_read_as_a_person_writes_them() -> None:
    assert value_text(15.0, "ms") == "15 ms"
    assert value_text(0.25) == "0.25"
    assert value_text(True) == "true"
    assert value_text("zfs") == "zfs"
