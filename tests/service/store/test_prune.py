"""Retention: old reports go (never a host's newest), with the inventories, parts, resolved
finding states and expired mutes nothing needs any more."""

from __future__ import annotations

from datetime import timedelta

import pytest
from service.store.storetest import T0, CheckedHost, at, table_rows, with_findings

from pinchpoint.model.findings import Mute
from pinchpoint.service.store import PruneResult, Store, StoreInputError

DAY = 24 * 60


def test_prune_keeps_each_hosts_newest_report(
    store: Store, demo: CheckedHost, recabled: CheckedHost
) -> None:
    # store01 reported for 10 days, store02 once, 9 days ago
    ids = [store.save_report(at(demo.report, day * DAY, host="store01")).id for day in range(10)]
    lonely = store.save_report(at(demo.report, DAY, host="store02")).id
    result = store.prune(keep_reports_days=3, now=T0 + timedelta(days=9))
    assert result.reports == 6  # days 0-5 of store01: day 6 is exactly 3 days old
    kept = store.report_summaries(limit=100).items
    assert sorted(s.id for s in kept) == sorted([*ids[6:], lonely])
    assert store.latest_report("store02") is not None
    everything = store.prune(keep_reports_days=0, now=T0 + timedelta(days=30))
    assert everything.reports == 3
    assert sorted(s.id for s in store.report_summaries().items) == [ids[-1], lonely]


def test_prune_removes_inventories_and_parts_no_report_uses(
    store: Store, demo: CheckedHost, recabled: CheckedHost
) -> None:
    old = store.save_report(at(demo.report, 0), inventory=demo.inventory)
    new = store.save_report(at(recabled.report, 2 * DAY), inventory=recabled.inventory)
    assert old.inventory_id != new.inventory_id
    result = store.prune(keep_reports_days=1, now=T0 + timedelta(days=2))
    assert (result.reports, result.inventories) == (1, 1)
    changed = [
        name
        for name in ("sas", "network", "fc", "multipath", "pcie", "block", "health", "zfs")
        if getattr(demo.inventory, name) != getattr(recabled.inventory, name)
    ]
    assert result.inventory_parts == len(changed)  # the parts both shared are kept
    assert store.inventory_of(new.id) == recabled.inventory
    assert store.inventory_of(old.id) is None


def test_prune_forgets_resolved_findings_not_seen_since_and_expired_mutes(
    store: Store, demo: CheckedHost
) -> None:
    store.save_report(at(demo.report, 0))
    store.save_report(at(demo.report, 5))
    store.save_report(with_findings(at(demo.report, 10), []))
    store.save_report(with_findings(at(demo.report, 15), []))  # all three resolved
    store.add_mute(
        Mute(rule="r", entity_id="e", reason="short", until=T0 + timedelta(hours=1)), now=T0
    )
    store.add_mute(Mute(rule="r", entity_id="e", reason="for good"), now=T0)
    assert store.findings().total == 3
    result = store.prune(keep_reports_days=1, now=T0 + timedelta(days=1, hours=2))
    assert result == PruneResult(reports=3, finding_states=3, mutes=1)
    assert store.findings().total == 0
    assert [m.reason for m in store.mutes(active_only=False)] == ["for good"]


def test_prune_with_nothing_old_changes_nothing(
    store: Store, store_url: str, demo: CheckedHost
) -> None:
    store.save_report(at(demo.report, 0), inventory=demo.inventory)
    store.save_report(at(demo.report, 5), inventory=demo.inventory)
    before = table_rows(store_url)
    assert store.prune(keep_reports_days=30, now=T0 + timedelta(days=1)) == PruneResult()
    assert table_rows(store_url) == before


def test_a_negative_retention_is_refused(store: Store, store_url: str, demo: CheckedHost) -> None:
    store.save_report(demo.report)
    before = table_rows(store_url)
    with pytest.raises(StoreInputError, match="keep_reports_days must be 0 or more, not -1"):
        store.prune(keep_reports_days=-1)
    assert table_rows(store_url) == before
