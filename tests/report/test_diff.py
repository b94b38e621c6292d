"""How two reports of a host differ, finding by finding: new, resolved (with the earlier body),
persisting and worsened (with the later body)."""

from __future__ import annotations

from report.findings_made import finding, report

from pinchpoint.model.findings import Severity
from pinchpoint.report.diff import findings_diff


def test_findings_are_matched_by_rule_and_entity() -> None:
    single_003 = finding("sas.enclosure.single_path", "jbod-003", Severity.CRITICAL)
    single_012 = finding("sas.enclosure.single_path", "jbod-012", Severity.CRITICAL)
    chain = finding("sas.chain.imbalance", "port-0", Severity.INFO)
    latency = finding("latency.disk.slow", "disk-1", Severity.WARNING)
    before = report(single_003, single_012, chain)
    worse_chain = chain.model_copy(update={"severity": Severity.WARNING})
    after = report(worse_chain, latency, single_012)
    diff = findings_diff(before, after)
    assert diff.new == [latency]
    assert diff.resolved == [single_003]
    assert diff.persisting == [worse_chain, single_012]  # the later body, in its order
    assert diff.worsened == [worse_chain]


def test_a_finding_that_got_milder_persists_without_worsening() -> None:
    loud = finding("sas.chain.imbalance", "port-0", Severity.CRITICAL)
    milder = loud.model_copy(update={"severity": Severity.INFO})
    diff = findings_diff(report(loud), report(milder))
    assert diff.persisting == [milder] and diff.worsened == []
    assert diff.new == [] and diff.resolved == []


def test_a_report_against_itself_changes_nothing() -> None:
    same = report(finding("sas.chain.imbalance", "port-0"))
    diff = findings_diff(same, same)
    assert diff.persisting == same.findings
    assert diff.new == diff.resolved == diff.worsened == []
