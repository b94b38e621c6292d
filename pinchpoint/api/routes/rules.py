"""The rule catalog with the thresholds in force on this service."""

from __future__ import annotations

from fastapi import APIRouter

from pinchpoint.api.auth import ReadAccess, ServiceDep
from pinchpoint.api.problems import ProblemError
from pinchpoint.rules.catalog import CATALOG, rule_by_id
from pinchpoint.rules.config import Config, ConfigError
from pinchpoint.rules.docs import RuleDoc, rule_doc

router = APIRouter(prefix="/v1", tags=["rules"])


def _config(service: ServiceDep) -> Config:
    try:
        return service.rules_config()
    except ConfigError as err:
        raise ProblemError(500, "config", f"the rules' config file cannot be used: {err}") from None


@router.get("/rules", response_model=list[RuleDoc], dependencies=[ReadAccess])
def list_rules(service: ServiceDep) -> list[RuleDoc]:
    """Every rule with the severity and thresholds in force."""
    config = _config(service)
    return [rule_doc(rule, config) for rule in CATALOG]


@router.get("/rules/{rule_id}", response_model=RuleDoc, dependencies=[ReadAccess])
def get_rule(rule_id: str, service: ServiceDep) -> RuleDoc:
    """One rule, with its documentation as `pinchpoint explain` prints it."""
    rule = rule_by_id(rule_id)
    if rule is None:
        raise ProblemError(404, "not-found", f"no rule {rule_id!r}")
    return rule_doc(rule, _config(service), with_markdown=True)
