"""The rules engine on made-up rules: skipping with the reason, failures contained, config
applied (enablement, severity, per-entity thresholds), mutes, correlation and sorting."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from pinchpoint.model.findings import (
    EntityKind,
    EntityRef,
    Evidence,
    Fact,
    Mute,
    Severity,
    SkippedRule,
)
from pinchpoint.model.inventory import HostInfo, Inventory, SourceKind
from pinchpoint.model.problems import CollectionProblem, ProblemKind
from pinchpoint.rules.base import Hit, Input, Judge, Limits, Role, Rule, RuleContext, Threshold
from pinchpoint.rules.config import parse_config
from pinchpoint.rules.engine import build_report, evaluate

NOW = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
JBOD_1 = EntityRef(kind=EntityKind.ENCLOSURE, id="enclosure:1", name="JBOD-001")
JBOD_2 = EntityRef(kind=EntityKind.ENCLOSURE, id="enclosure:2", name="JBOD-002")
DEPTHS = {"enclosure:1": 3.0, "enclosure:2": 9.0}  # the made-up measure the rules look at


def context() -> RuleContext:
    return RuleContext(inventory=Inventory(host=HostInfo(hostname="h1", source=SourceKind.DEMO)))


def _hit(entity: EntityRef, rule: str, value: float) -> Hit:
    summary = f"{entity.name}: {value:g}"
    fact = Fact(name="depth", value=value, unit="I/Os")
    return Hit(
        entity=entity, title=summary, evidence=[Evidence(rule=rule, summary=summary, facts=[fact])]
    )


def deep(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    for entity in (JBOD_1, JBOD_2):
        if DEPTHS[entity.id] > limits.number("max_depth", entity.id):
            yield _hit(entity, "t.deep", DEPTHS[entity.id])


def rule(
    rule_id: str = "t.deep",
    judge: Judge = deep,
    needs: tuple[Input, ...] = (),
    role: Role = Role.ALONE,
    severity: Severity = Severity.WARNING,
) -> Rule:
    return Rule(
        id=rule_id,
        title="made up",
        severity=severity,
        needs=needs,
        remediation="fix it",
        judge=judge,
        doc="A rule for the engine's tests.",
        thresholds={"max_depth": Threshold(5, "Deepest allowed.", "I/Os")},
        role=role,
    )


def test_a_rule_runs_and_its_hits_become_findings() -> None:
    findings, skipped, ran = evaluate(context(), [rule()], now=NOW)
    assert ran == 1 and skipped == []
    (finding,) = findings
    assert finding.id == "t.deep@enclosure:2"
    assert finding.severity is Severity.WARNING and finding.remediation == "fix it"
    assert finding.category == "t" and finding.evidence[0].facts[0].value == 9.0


def test_a_rule_whose_input_is_missing_is_skipped_with_the_reason() -> None:
    findings, skipped, ran = evaluate(context(), [rule(needs=(Input.SAS, Input.DISK_STATS))])
    assert findings == [] and ran == 0
    (skip,) = skipped
    assert skip.rule == "t.deep"
    assert "no SAS HBA on this host" in skip.reason
    assert "no diskstats samples" in skip.reason


def test_an_input_that_failed_to_collect_is_named_in_the_reason() -> None:
    ctx = context()
    ctx.inventory.problems.append(
        CollectionProblem(
            part="sas", subject="/sys/class/sas_host", kind=ProblemKind.PERMISSION, reason="denied"
        )
    )
    _, skipped, _ = evaluate(ctx, [rule(needs=(Input.SAS,))])
    assert skipped[0].reason == "sas not collected: denied"


def test_a_failing_rule_is_skipped_and_the_others_still_run() -> None:
    def broken(context: RuleContext, limits: Limits) -> Iterator[Hit]:
        yield _hit(JBOD_1, "t.broken", 1)
        raise ZeroDivisionError("division by zero")

    findings, skipped, ran = evaluate(context(), [rule("t.broken", broken), rule()])
    assert [f.rule for f in findings] == ["t.deep"] and ran == 1
    assert skipped[0].rule == "t.broken"
    assert skipped[0].reason == "rule failed: ZeroDivisionError: division by zero"


def test_a_rule_disabled_in_the_config_is_skipped() -> None:
    catalog = [rule()]
    config = parse_config({"rules": {"t.deep": {"enabled": False}}}, catalog, "test.toml")
    findings, skipped, _ = evaluate(context(), catalog, config)
    assert findings == []
    assert skipped[0].reason == "disabled in the configuration"


def test_the_config_overrides_the_severity() -> None:
    catalog = [rule()]
    config = parse_config({"rules": {"t.deep": {"severity": "critical"}}}, catalog, "test.toml")
    findings, _, _ = evaluate(context(), catalog, config)
    assert findings[0].severity is Severity.CRITICAL


def test_thresholds_come_from_the_entity_override_then_the_config_then_the_default() -> None:
    catalog = [rule()]
    host_wide = {"rules": {"t.deep": {"max_depth": 2}}}
    findings, _, _ = evaluate(context(), catalog, parse_config(host_wide, catalog, "a.toml"))
    assert {f.entity.name for f in findings} == {"JBOD-001", "JBOD-002"}
    per_entity = {
        "rules": {
            "t.deep": {"max_depth": 2, "override": [{"entity": "enclosure:1", "max_depth": 4}]}
        }
    }
    findings, _, _ = evaluate(context(), catalog, parse_config(per_entity, catalog, "b.toml"))
    assert [f.entity.name for f in findings] == ["JBOD-002"]


def _muted(mute: dict[str, object], severity: Severity = Severity.WARNING) -> Mute | None:
    catalog = [rule(severity=severity)]
    config = parse_config(
        {"mute": [{"rule": "t.deep", "entity": "enclosure:2", **mute}]}, catalog, "m"
    )
    report = build_report(context(), catalog, config, NOW)
    (finding,) = report.findings
    return finding.muted


def test_an_active_mute_is_shown_as_muted_and_does_not_count() -> None:
    mute = _muted({"reason": "booked", "until": NOW + timedelta(days=1)})
    assert mute is not None and mute.reason == "booked"
    catalog = [rule()]
    config = parse_config(
        {"mute": [{"rule": "t.deep", "entity": "enclosure:2", "reason": "booked"}]}, catalog, "m"
    )
    report = build_report(context(), catalog, config, NOW)
    assert report.worst() is None and len(report.findings) == 1


def test_an_expired_mute_no_longer_holds() -> None:
    assert _muted({"reason": "old", "until": NOW - timedelta(seconds=1)}) is None


def test_a_mute_without_timezone_is_read_as_utc() -> None:
    naive = (NOW + timedelta(hours=1)).replace(tzinfo=None)
    assert _muted({"reason": "naive", "until": naive}) is not None


def test_a_mute_lifts_when_the_finding_got_worse() -> None:
    worse = {"reason": "was a warning", "severity": "warning"}
    assert _muted(worse, severity=Severity.CRITICAL) is None
    assert _muted(worse, severity=Severity.WARNING) is not None


def test_a_symptom_on_the_entity_of_a_cause_joins_the_cause() -> None:
    def missing_path(context: RuleContext, limits: Limits) -> Iterator[Hit]:
        yield _hit(JBOD_2, "t.cause", 1)

    def queueing(context: RuleContext, limits: Limits) -> Iterator[Hit]:
        yield _hit(JBOD_2, "t.symptom", 9)
        yield _hit(JBOD_1, "t.symptom", 7)

    catalog = [
        rule("t.cause", missing_path, role=Role.CAUSE, severity=Severity.CRITICAL),
        rule("t.symptom", queueing, role=Role.SYMPTOM),
    ]
    findings, _, _ = evaluate(context(), catalog, now=NOW)
    by_id = {f.id: f for f in findings}
    assert set(by_id) == {"t.cause@enclosure:2", "t.symptom@enclosure:1"}
    cause = by_id["t.cause@enclosure:2"]
    assert [e.rule for e in cause.evidence] == ["t.cause", "t.symptom"]
    assert cause.related == ["t.symptom@enclosure:2"]


def test_two_hits_on_one_entity_are_one_finding_with_both_evidences() -> None:
    def twice(context: RuleContext, limits: Limits) -> Iterator[Hit]:
        yield _hit(JBOD_1, "t.twice", 1)
        yield _hit(JBOD_1, "t.twice", 2)

    findings, _, _ = evaluate(context(), [rule("t.twice", twice)])
    (finding,) = findings
    assert len(finding.evidence) == 2


def test_findings_are_sorted_worst_first_then_by_rule_and_entity() -> None:
    def both(context: RuleContext, limits: Limits) -> Iterator[Hit]:
        yield _hit(JBOD_2, "t.x", 1)
        yield _hit(JBOD_1, "t.x", 1)

    def critical(context: RuleContext, limits: Limits) -> Iterator[Hit]:
        yield Hit(entity=JBOD_2, title="bad", evidence=[], severity=Severity.CRITICAL)

    catalog = [rule("t.b", both, severity=Severity.INFO), rule("t.a", both), rule("t.z", critical)]
    findings, _, _ = evaluate(context(), catalog)
    order = [(f.severity.value, f.rule, f.entity.name) for f in findings]
    assert order == [
        ("critical", "t.z", "JBOD-002"),
        ("warning", "t.a", "JBOD-001"),
        ("warning", "t.a", "JBOD-002"),
        ("info", "t.b", "JBOD-001"),
        ("info", "t.b", "JBOD-002"),
    ]


def test_the_report_carries_host_skips_collection_problems_and_the_rule_count() -> None:
    ctx = context()
    problem = CollectionProblem(
        part="smart", subject="smartctl", kind=ProblemKind.TOOL_MISSING, reason="not installed"
    )
    ctx.inventory.problems.append(problem)
    report = build_report(ctx, [rule(), rule("t.fc", needs=(Input.FC,))], now=NOW)
    assert report.host.hostname == "h1" and report.generated_at == NOW
    assert report.rules_evaluated == 1
    assert [s.rule for s in report.skipped] == ["t.fc"]
    assert report.collection == [problem]
    assert report.worst() is Severity.WARNING


# -- derived facts, the evidence's rule id and a finding's key ------------------------------


def total_depth(context: RuleContext) -> float:
    """A made-up derived fact: counts how often it is computed."""
    COMPUTED.append("total_depth")
    return sum(DEPTHS.values())


COMPUTED: list[str] = []


def reads_total(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    yield _hit(JBOD_1, "any", context.derived(total_depth))


def test_a_derived_fact_is_computed_once_per_check_for_every_rule_that_declares_it() -> None:
    COMPUTED.clear()
    catalog = [
        replace(rule("t.a", reads_total), derived=(total_depth,)),
        replace(rule("t.b", reads_total), derived=(total_depth,)),
    ]
    findings, _, ran = evaluate(context(), catalog)
    assert ran == 2 and COMPUTED == ["total_depth"]
    assert [f.evidence[0].facts[0].value for f in findings] == [12.0, 12.0]
    evaluate(context(), catalog)  # another check: computed again
    assert COMPUTED == ["total_depth", "total_depth"]


def test_a_rule_whose_input_is_missing_gets_no_derived_fact_and_says_why() -> None:
    COMPUTED.clear()
    catalog = [replace(rule("t.a", reads_total, needs=(Input.SAS,)), derived=(total_depth,))]
    findings, skipped, _ = evaluate(context(), catalog)
    assert findings == [] and COMPUTED == []
    assert skipped[0].reason == "no SAS HBA on this host"


def test_a_derived_fact_that_fails_costs_only_the_rules_that_read_it() -> None:
    def no_chains(context: RuleContext) -> list[str]:
        raise ValueError("no chains today")

    catalog = [replace(rule("t.a"), derived=(no_chains,)), rule("t.deep")]
    findings, skipped, ran = evaluate(context(), catalog)
    assert [f.rule for f in findings] == ["t.deep"] and ran == 1
    assert skipped == [SkippedRule(rule="t.a", reason="rule failed: ValueError: no chains today")]


def test_the_engine_stamps_the_rule_id_on_the_evidence() -> None:
    def unsigned(context: RuleContext, limits: Limits) -> Iterator[Hit]:
        yield Hit(entity=JBOD_1, title="t", evidence=[Evidence(summary="no id typed")])
        yield Hit(entity=JBOD_2, title="t", evidence=[Evidence(rule="wrong", summary="typo")])

    findings, _, _ = evaluate(context(), [rule("t.signed", unsigned)])
    assert [e.rule for f in findings for e in f.evidence] == ["t.signed", "t.signed"]


def test_a_hit_may_key_its_finding_on_more_than_the_entity() -> None:
    def keyed(context: RuleContext, limits: Limits) -> Iterator[Hit]:
        yield Hit(entity=JBOD_1, title="t", evidence=[], key=f"h1/{JBOD_1.id}")

    (finding,) = evaluate(context(), [rule("t.keyed", keyed)])[0]
    assert finding.id == "t.keyed@h1/enclosure:1" and finding.entity == JBOD_1


def test_the_category_is_the_ids_first_part() -> None:
    assert rule("sas.chain.made_up").category == "sas"
