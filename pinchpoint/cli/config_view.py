"""The terminal rendering of `pinchpoint config show`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text


def _shown(value: object) -> str:
    if value is None or value == []:
        return "—"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def configuration_tables(facts: dict[str, Any]) -> Iterator[RenderableType]:
    """The file in force, the service settings with their origins, the rules the file changes."""
    file = facts["file"]
    yield Text.assemble(
        ("config file: ", "bold"),
        (file or "none", "cyan" if file else "dim"),
        f" ({facts['file_origin']})",
    )
    yield Text("looked for, in order: " + ", ".join(facts["search_order"]), style="dim")
    service = Table(title="service settings", title_justify="left", expand=False)
    service.add_column("setting", no_wrap=True)
    service.add_column("value", overflow="fold")
    service.add_column("from", overflow="fold")
    for name, entry in facts["service"].items():
        origin = entry["from"]
        style = "dim" if origin == "default" else "green"
        service.add_row(name, _shown(entry["value"]), Text(origin, style=style))
    yield service
    rules = Table(title="rules changed by the file", title_justify="left", expand=False)
    rules.add_column("rule", no_wrap=True)
    rules.add_column("enabled")
    rules.add_column("severity")
    rules.add_column("thresholds", overflow="fold")
    rules.add_column("overrides", justify="right")
    for rule_id, one in facts["rules"].items():
        thresholds = ", ".join(f"{k} = {v}" for k, v in one["thresholds"].items()) or "—"
        rules.add_row(
            rule_id,
            "yes" if one["enabled"] else "no",
            one["severity"] or "default",
            thresholds,
            str(one["overrides"]),
        )
    if facts["rules"]:
        yield rules
    else:
        yield Text("rules: every rule at its defaults", style="dim")
    slow, mutes = facts["slower_than_ms"], facts["mutes"]
    yield Text(f"slow I/O line: {slow:g} ms; mutes in the file: {mutes}")
