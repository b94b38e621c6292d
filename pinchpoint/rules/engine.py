"""Evaluate the catalog against one host (or, on a central service, a fleet of hosts): run
each rule that can run, skip the others with the reason, provide the derived facts each rule
declares, stamp the rule's id on the evidence it returns, apply severities, thresholds and mutes
from the config, and fold symptoms into their causes.

Correlation: a rule whose role is `symptom` (latency, queueing) describes what a fault does; when
a `cause` rule (a missing path, a miscabled chain) found something on the same entity, the
symptom's evidence joins the cause's finding instead of standing alone — field case 1's
single-pathed JBOD is one finding, "1 of 2 paths", proven by its disks' queue.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime

from pinchpoint.model.findings import Finding, Mute, Report, Severity, SkippedRule
from pinchpoint.model.fleet import FleetFacts
from pinchpoint.model.inventory import HostInfo, Inventory, SourceKind
from pinchpoint.rules.base import Hit, Limits, Role, Rule, RuleContext
from pinchpoint.rules.config import Config
from pinchpoint.stats.gather import HostStatistics

log = logging.getLogger(__name__)


def rule_context(
    inventory: Inventory,
    statistics: HostStatistics | None = None,
    previous: Inventory | None = None,
    config: Config | None = None,
) -> RuleContext:
    """What the rules look at: the inventory, the gathered statistics, the sweep before, and
    the config's "slow I/O" line."""
    statistics = statistics or HostStatistics()
    return RuleContext(
        inventory=inventory,
        intervals=statistics.intervals,
        imported=statistics.imported,
        net_intervals=statistics.net_intervals,
        previous=previous,
        slower_than_s=(config or Config()).slower_than_ms / 1000,
    )


def fleet_context(fleet: FleetFacts) -> RuleContext:
    """What the fleet rules look at on a central service: the fleet facts of its hosts
    (`rules/derived/fleet_facts.py` takes them from inventories). The context has no host of
    its own (an empty inventory)."""
    nobody = Inventory(host=HostInfo(source=SourceKind.SNAPSHOT))
    return RuleContext(inventory=nobody, fleet=fleet)


def finding_id(rule_id: str, entity_id: str) -> str:
    """`<rule>@<entity id>`: one finding per rule and entity, stable across reports."""
    return f"{rule_id}@{entity_id}"


def _finding(rule: Rule, hit: Hit, severity: Severity) -> Finding:
    for evidence in hit.evidence:
        evidence.rule = rule.id  # a symptom's evidence keeps it when folded into a cause
    return Finding(
        id=finding_id(rule.id, hit.key or hit.entity.id),
        rule=rule.id,
        category=rule.category,
        severity=hit.severity or severity,
        title=hit.title,
        entity=hit.entity,
        evidence=list(hit.evidence),
        remediation=hit.remediation or rule.remediation,
    )


def _run(
    rule: Rule, context: RuleContext, config: Config, explains: dict[str, set[str]]
) -> list[Finding] | str:
    """The rule's findings, or why it did not run; what each explains goes to `explains`."""
    settings = config.settings(rule.id)
    if not settings.enabled:
        return "disabled in the configuration"
    missing = [reason for need in rule.needs if (reason := context.missing(need))]
    if missing:
        return "; ".join(missing)
    limits = Limits(rule.thresholds, settings.thresholds, settings.per_entity())
    try:
        for fact in rule.derived:
            context.derived(fact)  # computed once per check, whichever rule asks first
        hits = list(rule.judge(context, limits))
    except Exception as err:  # a rule's bug must not cost the rest of the report
        log.debug("rule %s failed:\n%s", rule.id, traceback.format_exc())
        return f"rule failed: {type(err).__name__}: {err}"
    findings: dict[str, Finding] = {}
    for hit in hits:
        found = _finding(rule, hit, settings.severity or rule.severity)
        explains.setdefault(found.id, set()).update(hit.explains)
        if found.id in findings:  # a rule that hits one entity twice: one finding
            findings[found.id].evidence.extend(found.evidence)
        else:
            findings[found.id] = found
    return list(findings.values())


def mute_for(finding: Finding, mutes: Sequence[Mute], now: datetime) -> Mute | None:
    """The first of `mutes` that holds for `finding` at `now` (`Mute.holds`), if any."""
    return next((mute for mute in mutes if mute.holds(finding, now)), None)


def correlate(
    findings: list[Finding],
    roles: dict[str, Role],
    explains: Mapping[str, Iterable[str]] | None = None,
) -> list[Finding]:
    """Fold each symptom finding into the cause finding on the same entity, or on an entity the
    cause says it explains (`Hit.explains`); the cause takes the worst severity among what it
    folds in (a cause is as serious as what it does)."""
    explains = explains or {}
    causes: dict[str, Finding] = {}
    for finding in findings:
        if roles.get(finding.rule) is Role.CAUSE:
            for entity_id in (finding.entity.id, *explains.get(finding.id, ())):
                causes.setdefault(entity_id, finding)
    kept = []
    for finding in findings:
        cause = causes.get(finding.entity.id)
        if roles.get(finding.rule) is Role.SYMPTOM and cause is not None:
            cause.evidence.extend(finding.evidence)
            cause.related.append(finding.id)
            cause.severity = max(cause.severity, finding.severity, key=lambda s: s.rank)
            continue
        kept.append(finding)
    return kept


def evaluate(
    context: RuleContext,
    catalog: Iterable[Rule],
    config: Config | None = None,
    now: datetime | None = None,
) -> tuple[list[Finding], list[SkippedRule], int]:
    """Every finding (worst first), every skipped rule, and how many rules ran."""
    config = config or Config()
    now = now or datetime.now(UTC)
    findings: list[Finding] = []
    skipped: list[SkippedRule] = []
    roles: dict[str, Role] = {}
    explains: dict[str, set[str]] = {}
    ran = 0
    for rule in catalog:
        roles[rule.id] = rule.role
        result = _run(rule, context, config, explains)
        if isinstance(result, str):
            skipped.append(SkippedRule(rule=rule.id, reason=result))
            continue
        ran += 1
        findings.extend(result)
    findings = correlate(findings, roles, explains)
    for finding in findings:
        finding.muted = mute_for(finding, config.mutes, now)
    findings.sort(key=lambda f: (-f.severity.rank, f.rule, f.entity.name))
    return findings, skipped, ran


def build_report(
    context: RuleContext,
    catalog: Iterable[Rule],
    config: Config | None = None,
    now: datetime | None = None,
) -> Report:
    """The report of one host: findings, skipped rules and the collectors that failed."""
    now = now or datetime.now(UTC)
    findings, skipped, ran = evaluate(context, catalog, config, now)
    return Report(
        host=context.inventory.host,
        generated_at=now,
        findings=findings,
        skipped=skipped,
        collection=list(context.inventory.problems),
        rules_evaluated=ran,
    )
