"""Finding states across reports: raised after N consecutive reports, resolved after N clean
ones, worsened when the severity rises; the transitions to notify; the findings query."""

from __future__ import annotations

from datetime import timedelta

import pytest
from service.store.storetest import T0, CheckedHost, at, reseverity, with_findings

from pinchpoint.model.findings import Finding, Report, Severity
from pinchpoint.service.events import TransitionKind
from pinchpoint.service.store import FindingState, Store


def _single_path(demo: CheckedHost, name: str) -> Finding:
    return next(f for f in demo.report.findings if f.entity.name == name)


def _sweeps(
    store: Store, reports: list[Report], start: int = 0, **kwargs: int
) -> list[list[tuple[str, str]]]:
    """Save each report 5 minutes after the one before (the first `start` minutes after T0);
    the (kind, finding id) of the transitions of each save."""
    out = []
    for index, report in enumerate(reports):
        saved = store.save_report(at(report, start + 5 * index), **kwargs)  # type: ignore[arg-type]
        out.append([(t.kind.value, t.finding.id) for t in saved.transitions])
    return out


def test_raised_after_two_reports_and_resolved_after_two_clean_ones(
    store: Store, demo: CheckedHost
) -> None:
    jbod3 = _single_path(demo, "JBOD-003")
    on, off = with_findings(demo.report, [jbod3]), with_findings(demo.report, [])
    assert _sweeps(store, [on, on, on, off, off, off]) == [
        [],
        [("new", jbod3.id)],
        [],
        [],
        [("resolved", jbod3.id)],
        [],
    ]
    record = store.findings(host="demo-storage-head").items[0]
    assert record.state is FindingState.RESOLVED
    assert (record.first_seen, record.last_seen, record.times_seen) == (
        T0,
        T0 + timedelta(minutes=10),
        3,
    )
    assert record.opened_at == T0 + timedelta(minutes=5)
    assert record.resolved_at == T0 + timedelta(minutes=20)
    assert record.finding == jbod3


def test_a_flapping_finding_never_opens(store: Store, demo: CheckedHost) -> None:
    """On, off, on, off …: never two consecutive reports, so nobody is paged."""
    jbod3 = _single_path(demo, "JBOD-003")
    on, off = with_findings(demo.report, [jbod3]), with_findings(demo.report, [])
    assert _sweeps(store, [on, off, on, off, on, off, on]) == [[]] * 7
    record = store.findings().items[0]
    assert record.state is FindingState.PENDING
    assert record.times_seen == 4


def test_an_open_finding_that_flaps_does_not_resolve(store: Store, demo: CheckedHost) -> None:
    jbod3 = _single_path(demo, "JBOD-003")
    on, off = with_findings(demo.report, [jbod3]), with_findings(demo.report, [])
    assert _sweeps(store, [on, on, off, on, off, on, off]) == [[], [("new", jbod3.id)]] + [[]] * 5
    assert store.findings().items[0].state is FindingState.OPEN


def test_a_resolved_finding_that_returns_counts_again_from_one(
    store: Store, demo: CheckedHost
) -> None:
    jbod3 = _single_path(demo, "JBOD-003")
    on, off = with_findings(demo.report, [jbod3]), with_findings(demo.report, [])
    transitions = _sweeps(store, [on, on, off, off, on, on])
    assert transitions[4] == []
    assert transitions[5] == [("new", jbod3.id)]
    record = store.findings().items[0]
    assert (record.state, record.times_seen) == (FindingState.OPEN, 4)
    assert record.opened_at == T0 + timedelta(minutes=25)


def test_other_thresholds(store: Store, demo: CheckedHost) -> None:
    jbod3 = _single_path(demo, "JBOD-003")
    on, off = with_findings(demo.report, [jbod3]), with_findings(demo.report, [])
    assert _sweeps(store, [on, off], raise_after=1, resolve_after=1) == [
        [("new", jbod3.id)],
        [("resolved", jbod3.id)],
    ]
    later = [on, on, on, off, off, off]
    assert _sweeps(store, later, start=60, raise_after=3, resolve_after=3)[2:] == [
        [("new", jbod3.id)],
        [],
        [],
        [("resolved", jbod3.id)],
    ]


def test_a_finding_that_gets_worse_while_open_is_worsened(store: Store, demo: CheckedHost) -> None:
    chain = next(f for f in demo.report.findings if f.rule == "sas.chain.imbalance")
    assert chain.severity is Severity.WARNING
    reports = [
        with_findings(demo.report, [reseverity(chain, Severity.INFO)]),
        with_findings(demo.report, [reseverity(chain, Severity.INFO)]),
        with_findings(demo.report, [chain]),
        with_findings(demo.report, [chain]),
        with_findings(demo.report, [reseverity(chain, Severity.INFO)]),
        with_findings(demo.report, [reseverity(chain, Severity.CRITICAL)]),
    ]
    for index, report in enumerate(reports):
        saved = store.save_report(at(report, 5 * index))
        kinds = [(t.kind, t.severity, t.previous_severity) for t in saved.transitions]
        expected = {
            1: [(TransitionKind.NEW, Severity.INFO, None)],
            2: [(TransitionKind.WORSENED, Severity.WARNING, Severity.INFO)],
            5: [(TransitionKind.WORSENED, Severity.CRITICAL, Severity.INFO)],
        }.get(index, [])
        assert kinds == expected, index
    transition = saved.transitions[0]
    assert transition.host == "demo-storage-head"
    assert transition.report_id == saved.id
    assert transition.at == T0 + timedelta(minutes=25)
    assert transition.finding.severity is Severity.CRITICAL


def test_a_new_finding_at_a_higher_severity_is_new_not_worsened(
    store: Store, demo: CheckedHost
) -> None:
    chain = next(f for f in demo.report.findings if f.rule == "sas.chain.imbalance")
    first = with_findings(demo.report, [reseverity(chain, Severity.INFO)])
    second = with_findings(demo.report, [chain])
    assert _sweeps(store, [first, second]) == [[], [("new", chain.id)]]


def test_states_are_kept_per_host(store: Store, demo: CheckedHost) -> None:
    store.save_report(at(demo.report, 0, host="store01"))
    store.save_report(at(demo.report, 5, host="store01"))
    store.save_report(at(demo.report, 5, host="store02"))
    assert store.findings(host="store01", state=FindingState.OPEN).total == 3
    assert store.findings(host="store02", state=FindingState.PENDING).total == 3
    assert store.findings(state=FindingState.OPEN).total == 3


def test_findings_filter_by_severity_rule_entity_and_page(
    store: Store, demo: CheckedHost, recabled: CheckedHost
) -> None:
    store.save_report(at(demo.report, 0))
    store.save_report(at(demo.report, 5))
    store.save_report(at(recabled.report, 10))
    store.save_report(at(recabled.report, 15))
    before = {f.id: f for f in demo.report.findings}
    after = {f.id: f for f in recabled.report.findings}
    every = {**before, **after}
    everything = store.findings()
    assert everything.total == len(every)
    # worst first, then the most recently seen
    ranks = [r.severity.rank for r in everything.items]
    assert ranks == sorted(ranks, reverse=True)
    critical = [f for f in every.values() if f.severity is Severity.CRITICAL]
    assert store.findings(severity=Severity.CRITICAL).total == len(critical) >= 2
    assert store.findings(rule="sas.enclosure.single_path").total == 2
    resolved = store.findings(state=FindingState.RESOLVED).items
    assert sorted(r.entity.name for r in resolved) == ["JBOD-003", "JBOD-012"]
    assert store.findings(state=FindingState.OPEN).total == len(after)
    assert store.findings(state=FindingState.MUTED).total == 0
    # a part of a name, any case: the JBOD, the chain through it, anything else on it
    jbod3 = store.findings(entity="jbod-003")
    named = {i for i, f in every.items() if "jbod-003" in f.entity.name.lower()}
    assert {r.id for r in jbod3.items} == named
    assert {"sas.enclosure.single_path", "sas.chain.imbalance"} <= {r.rule for r in jbod3.items}
    enclosure = next(r.entity for r in jbod3.items if r.rule == "sas.enclosure.single_path")
    by_id = store.findings(entity=enclosure.id)  # an id, exactly
    assert {r.id for r in by_id.items} == {
        i for i, f in every.items() if f.entity.id == enclosure.id
    }
    assert store.findings(entity="%").total == 0  # a wildcard is a character, not a pattern
    pages = [store.findings(limit=2, offset=o).items for o in range(0, len(every), 2)]
    assert [r.id for p in pages for r in p] == [r.id for r in everything.items]
    record = store.findings(rule="sas.chain.imbalance").items[0]
    assert record.times_seen == 4 and record.entity.kind.value == "chain"
    assert record.title == record.finding.title


def test_an_unknown_state_is_refused(store: Store) -> None:
    with pytest.raises(ValueError, match="'closed' is not a valid FindingState"):
        store.findings(state="closed")  # type: ignore[arg-type]
