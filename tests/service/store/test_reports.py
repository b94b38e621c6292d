"""Reports in the store, on SQLite and PostgreSQL: round trip, latest, paging and filters, diff,
repeated and late reports, and refused input that leaves the store as it was."""

from __future__ import annotations

import math
from datetime import timedelta

import pytest
from service.store.storetest import (
    T0,
    CheckedHost,
    at,
    reseverity,
    table_rows,
    with_findings,
)

from pinchpoint.model.findings import Severity
from pinchpoint.service.store import Store, StoreInputError


def test_a_report_comes_back_equal_to_the_model_it_was(store: Store, demo: CheckedHost) -> None:
    saved = store.save_report(demo.report, duration_s=4.25, origin="cli", now=T0)
    stored = store.report(saved.id)
    assert stored is not None
    assert stored.report == demo.report
    assert stored.report.generated_at.tzinfo is not None
    assert (stored.origin, stored.duration_s, stored.stored_at) == ("cli", 4.25, T0)
    assert stored.has_inventory is False
    assert saved.host == "demo-storage-head"
    assert store.report(saved.id + 1000) is None


def test_the_summary_counts_findings_by_severity(store: Store, demo: CheckedHost) -> None:
    saved = store.save_report(demo.report)
    summary = store.report_summaries().items[0]
    assert summary.id == saved.id
    assert (summary.findings.critical, summary.findings.warning, summary.findings.info) == (2, 1, 0)
    assert summary.worst is Severity.CRITICAL
    assert summary.rules_evaluated == demo.report.rules_evaluated
    assert summary.skipped == len(demo.report.skipped)
    assert summary.collection_problems == len(demo.report.collection)


def test_latest_is_the_newest_by_generation_time_per_host_and_overall(
    store: Store, demo: CheckedHost, recabled: CheckedHost
) -> None:
    first = store.save_report(at(demo.report, 0))
    second = store.save_report(at(recabled.report, 5))
    other = store.save_report(at(demo.report, 3, host="store02"))
    late = store.save_report(at(demo.report, 1))  # arrives last, generated before `second`
    latest = store.latest_report("demo-storage-head")
    assert latest is not None and latest.id == second.id
    newest = store.latest_report()
    assert newest is not None and newest.id == second.id
    store02 = store.latest_report("store02")
    assert store02 is not None and store02.id == other.id
    assert store.latest_report("nobody") is None
    assert {first.id, late.id}.isdisjoint({latest.id, store02.id})


def test_summaries_page_newest_first_and_filter_by_host_and_time(
    store: Store, demo: CheckedHost
) -> None:
    ids = [store.save_report(at(demo.report, 5 * i)).id for i in range(7)]
    store.save_report(at(demo.report, 2, host="store02"))
    page = store.report_summaries(host="demo-storage-head", limit=3, offset=0)
    assert [s.id for s in page.items] == ids[::-1][:3]
    assert (page.total, page.limit, page.offset) == (7, 3, 0)
    last = store.report_summaries(host="demo-storage-head", limit=3, offset=6)
    assert [s.id for s in last.items] == [ids[0]]
    window = store.report_summaries(
        since=T0 + timedelta(minutes=5), until=T0 + timedelta(minutes=15)
    )
    assert [s.generated_at for s in window.items] == [
        T0 + timedelta(minutes=10),
        T0 + timedelta(minutes=5),
    ]
    every = store.report_summaries(limit=100)
    assert every.total == 8
    assert {s.host for s in every.items} == {"demo-storage-head", "store02"}
    naive = store.report_summaries(since=(T0 + timedelta(minutes=29)).replace(tzinfo=None))
    assert [s.id for s in naive.items] == [ids[6]]  # a naive time is taken as UTC


def test_diff_names_new_resolved_persisting_and_worsened_findings(
    store: Store, demo: CheckedHost, recabled: CheckedHost
) -> None:
    before = store.save_report(at(demo.report, 0))
    chain = next(f for f in recabled.report.findings if f.rule == "sas.chain.imbalance")
    worse = [
        reseverity(f, Severity.CRITICAL) if f.id == chain.id else f
        for f in recabled.report.findings
    ]
    after = store.save_report(with_findings(at(recabled.report, 5), worse))
    diff = store.diff(before.id, after.id)
    assert diff is not None
    assert (diff.a.id, diff.b.id) == (before.id, after.id)
    # recabling fixed the single paths of JBOD-003 and JBOD-012; the 4 + 2 chains remain
    assert sorted(f.entity.name for f in diff.resolved) == ["JBOD-003", "JBOD-012"]
    assert {f.rule for f in diff.resolved} == {"sas.enclosure.single_path"}
    assert [f.id for f in diff.persisting] == [chain.id]
    assert [(f.id, f.severity) for f in diff.worsened] == [(chain.id, Severity.CRITICAL)]
    demo_ids = {f.id for f in demo.report.findings}
    assert diff.new == [f for f in worse if f.id not in demo_ids]
    same = store.diff(after.id, after.id)
    assert same is not None and not same.new and not same.resolved and not same.worsened
    assert store.diff(before.id, 999_999) is None
    assert store.diff(999_999, after.id) is None


def test_a_report_saved_twice_is_stored_once(store: Store, demo: CheckedHost) -> None:
    first = store.save_report(at(demo.report, 0), raise_after=1)
    again = store.save_report(at(demo.report, 0), raise_after=1)
    assert again.duplicate and again.id == first.id and not again.transitions
    assert store.report_summaries().total == 1
    assert store.findings().items[0].times_seen == 1


def test_a_late_report_is_history_and_does_not_move_finding_states(
    store: Store, demo: CheckedHost, recabled: CheckedHost
) -> None:
    store.save_report(at(demo.report, 0))
    store.save_report(at(demo.report, 10))
    late = store.save_report(at(recabled.report, 5))
    assert not late.states_advanced and not late.transitions
    assert store.report_summaries().total == 3
    single = store.findings(rule="sas.enclosure.single_path").items
    assert {record.state for record in single} == {"open"}
    assert {record.id for record in store.findings().items} == {f.id for f in demo.report.findings}


BAD_SAVES = [
    ({"report_host": None}, "names no host"),
    ({"report_host": "  "}, "names no host"),
    ({"origin": "carrier-pigeon"}, "origin must be one of sweep, push, upload, cli"),
    ({"raise_after": 0}, "raise_after must be 1 or more, not 0"),
    ({"resolve_after": -1}, "resolve_after must be 1 or more, not -1"),
    ({"duration_s": -1.0}, "duration_s must be a duration in seconds, not -1.0"),
    ({"duration_s": math.nan}, "duration_s must be a duration in seconds, not nan"),
    ({"inventory_host": "other-host"}, "the inventory is of host 'other-host'"),
]


@pytest.mark.parametrize(("bad", "message"), BAD_SAVES)
def test_a_refused_report_says_why_and_leaves_the_store_as_it_was(
    store: Store, store_url: str, demo: CheckedHost, bad: dict[str, object], message: str
) -> None:
    bad = dict(bad)  # the parameter is shared by both databases' runs
    store.save_report(at(demo.report, 0), inventory=demo.inventory)
    before = table_rows(store_url)
    report = at(demo.report, 5)
    if "report_host" in bad:
        host = report.host.model_copy(update={"hostname": bad.pop("report_host")})
        report = report.model_copy(update={"host": host})
    inventory = demo.inventory
    if "inventory_host" in bad:
        host = inventory.host.model_copy(update={"hostname": bad.pop("inventory_host")})
        inventory = inventory.model_copy(update={"host": host})
    with pytest.raises(StoreInputError, match=message):
        store.save_report(report, inventory=inventory, **bad)  # type: ignore[arg-type]
    assert table_rows(store_url) == before
    latest = store.latest_report()
    assert latest is not None and latest.report == at(demo.report, 0)


@pytest.mark.parametrize(
    ("limit", "offset", "message"),
    [
        (0, 0, "limit must be between 1 and 1000, not 0"),
        (1001, 0, "limit must be between 1 and 1000, not 1001"),
        (10, -1, "offset must be 0 or more, not -1"),
    ],
)
def test_a_bad_page_is_refused_with_a_clear_message(
    store: Store, demo: CheckedHost, limit: int, offset: int, message: str
) -> None:
    store.save_report(demo.report)
    with pytest.raises(StoreInputError, match=message):
        store.report_summaries(limit=limit, offset=offset)
    with pytest.raises(StoreInputError, match=message):
        store.findings(limit=limit, offset=offset)
    assert store.report_summaries().total == 1


def test_ping_and_dialect(store: Store, store_url: str) -> None:
    assert store.ping()
    assert store.dialect == ("sqlite" if store_url.startswith("sqlite") else "postgresql")
