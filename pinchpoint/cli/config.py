"""`pinchpoint config show`: the configuration in force — which file (and why that one), every
service setting with where it came from, and the rules whose settings the file changes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from pinchpoint.cli.console import output_console
from pinchpoint.cli.errors import exit_for
from pinchpoint.cli.examples import examples_epilog
from pinchpoint.cli.options import ConfigOption, JsonOption, chosen_format, format_option
from pinchpoint.report import ReportFormat

EXAMPLES = (
    "pinchpoint config show",
    "pinchpoint config show --config /etc/pinchpoint/pinchpoint.toml --format json",
)

config_app = typer.Typer(
    name="config",
    help="The configuration in force: `pinchpoint config show`.",
    epilog=examples_epilog(EXAMPLES),
    no_args_is_help=True,
)


def effective_configuration(config_file: Path | None) -> dict[str, Any]:
    """The configuration in force as plain data: the file, the search order, the service
    settings with their origins (tokens never shown), the rules the file changes, the mutes."""
    from pinchpoint.rules.catalog import CATALOG
    from pinchpoint.rules.config import (
        ConfigError,
        config_search_path,
        load_config,
    )
    from pinchpoint.service.settings import SettingsError, explained_settings

    try:
        settings, origins, choice = explained_settings(config_file)
        rules = load_config(settings.config_file, CATALOG)
    except (SettingsError, ConfigError) as err:
        raise exit_for(err) from None
    values = settings.model_dump(mode="json")
    for name in ("read_token", "admin_token", "push_token"):
        if values.get(name) is not None:
            values[name] = "(set)"
    values["data_dir"] = str(settings.resolved_data_dir())
    values["database_url"] = settings.resolved_database_url()
    changed = {
        rule_id: {
            "enabled": one.enabled,
            "severity": one.severity.value if one.severity else None,
            "thresholds": one.thresholds,
            "overrides": len(one.overrides),
        }
        for rule_id, one in sorted(rules.rules.items())
    }
    values["webhooks"] = len(settings.webhooks)  # their URLs may carry credentials
    service: dict[str, dict[str, Any]] = {}
    for name, value in values.items():
        if isinstance(value, dict):  # a table of its own (schedule): one line per key
            for key, inner in value.items():
                dotted = f"{name}.{key}"
                service[dotted] = {"value": inner, "from": origins.get(dotted, "default")}
        else:
            service[name] = {"value": value, "from": origins[name]}
    searched = [str(path) for path, _origin in config_search_path()]
    return {
        "file": str(choice.path) if choice.path else None,
        "file_origin": choice.origin,
        "search_order": ["--config", "$PINCHPOINT_CONFIG", *searched],
        "service": service,
        "rules": changed,
        "slower_than_ms": rules.slower_than_ms,
        "mutes": len(rules.mutes),
    }


@config_app.command("show", epilog=examples_epilog(EXAMPLES))
def show(
    config_file: ConfigOption = None,
    form: Annotated[
        ReportFormat | None,
        format_option(ReportFormat.TABLE, ReportFormat.JSON, ReportFormat.MARKDOWN),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Print the settings in force and where each came from."""
    chosen = chosen_format(form, as_json)
    facts = effective_configuration(config_file)
    console = output_console()
    if chosen is ReportFormat.JSON:
        console.print_json(json.dumps(facts))
        return
    from pinchpoint.cli.config_view import configuration_tables

    if chosen is ReportFormat.MARKDOWN:
        from pinchpoint.cli.markdown import markdown_document

        sys.stdout.write(markdown_document(configuration_tables(facts)))
        return
    for renderable in configuration_tables(facts):
        console.print(renderable)


def register(app: typer.Typer) -> None:
    """Add `config` to the `pinchpoint` command."""
    app.add_typer(config_app, name="config")
