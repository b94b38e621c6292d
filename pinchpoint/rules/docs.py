"""The rule catalog as Markdown and as data, written from the rules themselves: one source for
`pinchpoint rules`, `pinchpoint explain ID`, `docs/rules.md` and the API's `/v1/rules`."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel

from pinchpoint.markup import markdown_html
from pinchpoint.model.findings import Severity
from pinchpoint.rules.base import Rule, ThresholdValue
from pinchpoint.rules.config import Config

REGENERATE = "pinchpoint rules --markdown > docs/rules.md"


def _cell(text: str) -> str:
    """Text that fits in one Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


def value_text(value: ThresholdValue, unit: str | None = None) -> str:
    """`4 enclosures`, `15 ms`, `true`: a threshold value as a reader writes it."""
    if isinstance(value, bool):
        shown = "true" if value else "false"
    elif isinstance(value, float) and value.is_integer():
        shown = f"{value:g}"
    else:
        shown = str(value)
    return f"{shown} {unit}" if unit else shown


def inputs_text(rule: Rule) -> str:
    """`sas, disk_stats (uses histograms)`: what the rule needs, and what sharpens it."""
    text = ", ".join(need.value for need in rule.needs) or "none"
    if rule.uses:
        text += f" (uses {', '.join(use.value for use in rule.uses)})"
    return text


def _thresholds(rule: Rule, config: Config | None) -> list[str]:
    if not rule.thresholds:
        return ["No thresholds."]
    settings = config.settings(rule.id) if config is not None else None
    header = "| threshold | default | meaning |"
    rule_line = "|---|---|---|"
    if settings is not None:
        header = "| threshold | default | in force | meaning |"
        rule_line = "|---|---|---|---|"
    lines = [header, rule_line]
    for name, threshold in rule.thresholds.items():
        default = value_text(threshold.default, threshold.unit)
        cells = [f"`{name}`", default]
        if settings is not None:
            value = settings.thresholds.get(name, threshold.default)
            in_force = value_text(value, threshold.unit)
            overrides = [
                f"{o.entity}: {value_text(o.thresholds[name], threshold.unit)}"
                for o in settings.overrides
                if name in o.thresholds
            ]
            if overrides:
                in_force += f" ({'; '.join(overrides)})"
            cells.append(in_force)
        cells.append(_cell(threshold.doc))
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def rule_markdown(rule: Rule, config: Config | None = None, level: int = 2) -> str:
    """One rule: what it finds and why, its inputs, severity, thresholds and fix. With a
    `config`, also the severity, enablement and threshold values in force from it."""
    heading = "#" * level
    severity = rule.severity.value
    lines = [f"{heading} `{rule.id}`", "", f"**{rule.title}**", ""]
    lines.append(
        f"Category `{rule.category}` · default severity **{severity}** · "
        f"needs {inputs_text(rule)} · role {rule.role.value}"
    )
    if config is not None:
        settings = config.settings(rule.id)
        source = config.source or "defaults"
        in_force = (settings.severity or rule.severity).value
        enabled = "enabled" if settings.enabled else "**disabled**"
        lines += ["", f"In force from {source}: {enabled}, severity **{in_force}**."]
        mutes = [m for m in config.mutes if m.rule == rule.id]
        for mute in mutes:
            until = f" until {mute.until.isoformat()}" if mute.until else ""
            lines.append(f"- muted on `{mute.entity_id}`{until}: {mute.reason}")
    lines += ["", rule.doc.strip(), "", *_thresholds(rule, config), ""]
    lines += [f"**Fix:** {rule.remediation.strip()}", ""]
    return "\n".join(lines)


def catalog_markdown(catalog: Iterable[Rule]) -> str:
    """docs/rules.md: an index table, then every rule in catalog order."""
    rules = list(catalog)
    lines = [
        "# Rules",
        "",
        f"<!-- Generated from the rules themselves by `{REGENERATE}`; do not edit. -->",
        "",
        f"{len(rules)} rules. Each is skipped, with the reason, when an input it needs is "
        "missing. Severities, thresholds (host-wide and per entity) and mutes are set in "
        "`pinchpoint.toml` (see `pinchpoint/rules/config.py`); `pinchpoint explain ID` shows the "
        "values in force.",
        "",
        "| id | severity | category | title | inputs |",
        "|---|---|---|---|---|",
    ]
    for rule in rules:
        lines.append(
            f"| [`{rule.id}`](#{_anchor(rule.id)}) | {rule.severity.value} | {rule.category} "
            f"| {_cell(rule.title)} | {inputs_text(rule)} |"
        )
    lines.append("")
    for rule in rules:
        lines.append(rule_markdown(rule))
    return "\n".join(lines)


def _anchor(rule_id: str) -> str:
    """GitHub's heading anchor of "`sas.chain.too_deep`": `saschaintoo_deep`."""
    return "".join(c for c in rule_id.lower() if c.isalnum() or c in "-_")


class ThresholdDoc(BaseModel):
    name: str
    default: ThresholdValue
    in_force: ThresholdValue
    unit: str | None
    doc: str


class RuleDoc(BaseModel):
    """A rule as data: the API's `/v1/rules` and `pinchpoint rules --format json` alike."""

    id: str
    title: str
    category: str
    default_severity: Severity
    severity: Severity  # in force
    enabled: bool
    inputs: str
    remediation: str  # Markdown
    remediation_html: str  # … rendered, raw HTML escaped (`pinchpoint/markup.py`)
    thresholds: list[ThresholdDoc]
    overrides: dict[str, dict[str, ThresholdValue]]
    doc: str  # Markdown: what it finds and why
    markdown: str | None = None  # the whole `pinchpoint explain` text (single rule only)


def rule_doc(rule: Rule, config: Config, with_markdown: bool = False) -> RuleDoc:
    """`rule` with the severity, enablement and thresholds `config` puts in force."""
    settings = config.settings(rule.id)
    return RuleDoc(
        id=rule.id,
        title=rule.title,
        category=rule.category,
        default_severity=rule.severity,
        severity=settings.severity or rule.severity,
        enabled=settings.enabled,
        inputs=inputs_text(rule),
        remediation=rule.remediation,
        remediation_html=markdown_html(rule.remediation),
        thresholds=[
            ThresholdDoc(
                name=name,
                default=t.default,
                in_force=settings.thresholds.get(name, t.default),
                unit=t.unit,
                doc=t.doc,
            )
            for name, t in rule.thresholds.items()
        ],
        overrides=settings.per_entity(),
        doc=rule.doc,
        markdown=rule_markdown(rule, config, level=1) if with_markdown else None,
    )
