"""Every rule pinchpoint has, in one list: the order reports, `pinchpoint rules` and
docs/rules.md use. Rule ids are a contract: reports, mutes and history key on them."""

from __future__ import annotations

from pinchpoint.rules import disk, latency, net, pcie, queue, san, sas
from pinchpoint.rules.base import Rule

CATALOG: tuple[Rule, ...] = (
    *sas.RULES,
    *latency.RULES,
    *queue.RULES,
    *san.RULES,
    *net.RULES,
    *pcie.RULES,
    *disk.RULES,
)


def rule_by_id(rule_id: str) -> Rule | None:
    """The rule with this id, or None."""
    return next((rule for rule in CATALOG if rule.id == rule_id), None)
