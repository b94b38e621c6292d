"""`pinchpoint rules` and `pinchpoint explain`: the rule catalog, and one rule in full."""

from __future__ import annotations

import difflib
import json
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from pinchpoint.cli.console import fail, output_console
from pinchpoint.cli.examples import examples_epilog
from pinchpoint.cli.options import (
    ConfigOption,
    JsonOption,
    chosen_format,
    format_option,
    rules_config,
)
from pinchpoint.report import ReportFormat

if TYPE_CHECKING:
    from pinchpoint.rules.docs import RuleDoc

RULE_FORMATS = (ReportFormat.TABLE, ReportFormat.JSON, ReportFormat.MARKDOWN)


def _write_json(data: object) -> None:
    """Rules as JSON on stdout, as the API's `/v1/rules` serves them."""
    from pinchpoint.text import json_printable

    sys.stdout.write(json_printable(json.dumps(data, indent=2, ensure_ascii=False)) + "\n")


def _docs_json(docs: list[RuleDoc]) -> list[dict[str, object]]:
    return [doc.model_dump(mode="json") for doc in docs]


def rules_command(
    form: Annotated[ReportFormat | None, format_option(*RULE_FORMATS)] = None,
    as_json: JsonOption = False,
    markdown: Annotated[
        bool,
        typer.Option(
            "--markdown", help="Short for --format markdown: the catalog as docs/rules.md holds it."
        ),
    ] = False,
) -> None:
    """The rule catalog: id, default severity, category, title and the inputs each needs.

    JSON lists every rule at its defaults as the API's /v1/rules does (`explain ID` shows
    the settings in force)."""
    from rich.table import Table

    from pinchpoint.rules.catalog import CATALOG
    from pinchpoint.rules.config import Config
    from pinchpoint.rules.docs import catalog_markdown, inputs_text, rule_doc

    chosen = chosen_format(form, as_json, markdown)
    if chosen is ReportFormat.MARKDOWN:
        sys.stdout.write(catalog_markdown(CATALOG))
        return
    if chosen is ReportFormat.JSON:
        _write_json(_docs_json([rule_doc(rule, Config()) for rule in CATALOG]))
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
    form: Annotated[ReportFormat | None, format_option(*RULE_FORMATS)] = None,
    as_json: JsonOption = False,
) -> None:
    """One rule: what it finds and why, its inputs, thresholds (default and in force), and fix.

    JSON is the rule as the API's /v1/rules/ID serves it; markdown the text as written."""
    from rich.markdown import Markdown

    from pinchpoint.rules.catalog import CATALOG, rule_by_id
    from pinchpoint.rules.docs import rule_doc, rule_markdown

    chosen = chosen_format(form, as_json)
    rule = rule_by_id(rule_id)
    if rule is None:
        matches = close_matches(rule_id, [r.id for r in CATALOG])
        hint = f"; did you mean {', '.join(matches)}?" if matches else ""
        raise fail(f"no rule {rule_id!r}{hint} — `pinchpoint rules` lists them")
    config = rules_config(config_file, CATALOG)
    if chosen is ReportFormat.JSON:
        _write_json(_docs_json([rule_doc(rule, config, with_markdown=True)])[0])
        return
    text = rule_markdown(rule, config, level=1)
    if chosen is ReportFormat.MARKDOWN:
        sys.stdout.write(text)
        return
    output_console().print(Markdown(text))


RULES_EXAMPLES = (
    "pinchpoint rules",
    "pinchpoint rules --markdown",
    "pinchpoint rules --format json",
)
EXPLAIN_EXAMPLES = (
    "pinchpoint explain sas.chain.too_deep",
    "pinchpoint explain sas.enclosure.single_path --config pinchpoint.toml",
    "pinchpoint explain sas.chain.too_deep --format markdown",
)


def register(app: typer.Typer) -> None:
    """Add `rules` and `explain` to the `pinchpoint` command."""
    app.command("rules", epilog=examples_epilog(RULES_EXAMPLES))(rules_command)
    app.command("explain", epilog=examples_epilog(EXPLAIN_EXAMPLES))(explain_command)
