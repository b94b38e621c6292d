"""`pinchpoint rules` and `pinchpoint explain`: the rule catalog, and one rule in full."""

from __future__ import annotations

import difflib
import sys
from typing import Annotated

import typer

from pinchpoint.cli.console import fail, output_console
from pinchpoint.cli.options import ConfigOption, rules_config


def rules_command(
    markdown: Annotated[
        bool, typer.Option("--markdown", help="Print the catalog as docs/rules.md holds it.")
    ] = False,
) -> None:
    """The rule catalog: id, default severity, category, title and the inputs each needs."""
    from rich.table import Table

    from pinchpoint.rules.catalog import CATALOG
    from pinchpoint.rules.docs import catalog_markdown, inputs_text

    if markdown:
        sys.stdout.write(catalog_markdown(CATALOG))
        return
    table = Table(title=f"{len(CATALOG)} rules", title_justify="left")
    for column in ("id", "severity", "category", "title", "inputs"):
        table.add_column(column)
    for rule in CATALOG:
        table.add_row(rule.id, rule.severity.value, rule.category, rule.title, inputs_text(rule))
    output_console().print(table)


MAX_CLOSE_MATCHES = 5


def close_matches(rule_id: str, known: list[str]) -> list[str]:
    """Rule ids a mistyped `rule_id` may have meant: the close spellings; only when there is
    none, the ids of the same family (`sas.…`). At most `MAX_CLOSE_MATCHES` either way."""
    found = difflib.get_close_matches(rule_id, known, n=MAX_CLOSE_MATCHES, cutoff=0.6)
    if found:
        return found
    prefix = rule_id.split(".")[0] + "."
    return [r for r in known if r.startswith(prefix)][:MAX_CLOSE_MATCHES]


def explain_command(
    rule_id: Annotated[str, typer.Argument(help="A rule id, e.g. sas.chain.too_deep.")],
    config_file: ConfigOption = None,
) -> None:
    """One rule: what it finds and why, its inputs, thresholds (default and in force), and fix."""
    from rich.markdown import Markdown

    from pinchpoint.rules.catalog import CATALOG, rule_by_id
    from pinchpoint.rules.docs import rule_markdown

    rule = rule_by_id(rule_id)
    if rule is None:
        matches = close_matches(rule_id, [r.id for r in CATALOG])
        hint = f"; did you mean {', '.join(matches)}?" if matches else ""
        raise fail(f"no rule {rule_id!r}{hint} — `pinchpoint rules` lists them")
    config = rules_config(config_file, CATALOG)
    output_console().print(Markdown(rule_markdown(rule, config, level=1)))


def register(app: typer.Typer) -> None:
    """Add `rules` and `explain` to the `pinchpoint` command."""
    app.command("rules")(rules_command)
    app.command("explain")(explain_command)
