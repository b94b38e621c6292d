"""Every rule pinchpoint has, in one list: the order reports, `pinchpoint rules` and
docs/rules.md use. Rule ids are a contract: reports, mutes and history key on them. Each domain
package (`rules/sas/`, `rules/latency/` …) lists its rules, one module each, in `RULES`."""

from __future__ import annotations

from pinchpoint.rules import (
    disk,
    enclosure,
    fc,
    firmware,
    fleet,
    iscsi,
    latency,
    multipath,
    net,
    nvme,
    pcie,
    queue,
    san,
    sas,
    zfs,
)
from pinchpoint.rules.base import Input, Rule

CATALOG: tuple[Rule, ...] = (
    *sas.RULES,
    *latency.RULES,
    *queue.RULES,
    *san.RULES,
    *fc.RULES,
    *multipath.RULES,
    *net.RULES,
    *pcie.RULES,
    *disk.RULES,
    *zfs.RULES,
    *firmware.RULES,
    *enclosure.RULES,
    *fleet.RULES,
    *nvme.RULES,
    *iscsi.RULES,
)

# The rules a central service runs across its hosts (`GET /v1/fleet/findings`).
FLEET_RULES: tuple[Rule, ...] = tuple(rule for rule in CATALOG if Input.FLEET in rule.needs)


def rule_by_id(rule_id: str) -> Rule | None:
    """The rule with this id, or None."""
    return next((rule for rule in CATALOG if rule.id == rule_id), None)
