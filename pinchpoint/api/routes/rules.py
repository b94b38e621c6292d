"""The rule catalog with the thresholds in force on this service."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel

from pinchpoint.api.auth import ReadAccess, ServiceDep
from pinchpoint.api.problems import ProblemError
from pinchpoint.model.findings import Severity
from pinchpoint.report.markup import markdown_html
from pinchpoint.rules.base import Rule, ThresholdValue
from pinchpoint.rules.catalog import CATALOG, rule_by_id
from pinchpoint.rules.config import Config, ConfigError
from pinchpoint.rules.docs import inputs_text, rule_markdown

router = APIRouter(prefix="/v1", tags=["rules"])


class ThresholdDoc(BaseModel):
    name: str
    default: ThresholdValue
    in_force: ThresholdValue
    unit: str | None
    doc: str


class RuleDoc(BaseModel):
    id: str
    title: str
    category: str
    default_severity: Severity
    severity: Severity  # in force
    enabled: bool
    inputs: str
    remediation: str  # Markdown
    remediation_html: str  # … rendered, raw HTML escaped (`report/markup.py`)
    thresholds: list[ThresholdDoc]
    overrides: dict[str, dict[str, ThresholdValue]]
    doc: str  # Markdown: what it finds and why
    markdown: str | None = None  # the whole `pinchpoint explain` text (single rule only)


def _config(service: ServiceDep) -> Config:
    try:
        return service.rules_config()
    except ConfigError as err:
        raise ProblemError(500, "config", f"the rules' config file cannot be used: {err}") from None


def _doc(rule: Rule, config: Config, with_markdown: bool = False) -> RuleDoc:
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


@router.get("/rules", response_model=list[RuleDoc], dependencies=[ReadAccess])
def list_rules(service: ServiceDep) -> list[RuleDoc]:
    """Every rule with the severity and thresholds in force."""
    config = _config(service)
    return [_doc(rule, config) for rule in CATALOG]


@router.get("/rules/{rule_id}", response_model=RuleDoc, dependencies=[ReadAccess])
def get_rule(rule_id: str, service: ServiceDep) -> RuleDoc:
    """One rule, with its documentation as `pinchpoint explain` prints it."""
    rule = rule_by_id(rule_id)
    if rule is None:
        raise ProblemError(404, "not-found", f"no rule {rule_id!r}")
    return _doc(rule, _config(service), with_markdown=True)
