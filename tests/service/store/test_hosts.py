"""The fleet as the store sees it: each host with its reports and open findings."""

from __future__ import annotations

from datetime import timedelta

from service.store.storetest import T0, CheckedHost, at

from pinchpoint.service.store import SeverityCounts, Store


def test_hosts_list_reports_latest_and_open_findings(
    store: Store, demo: CheckedHost, recabled: CheckedHost
) -> None:
    assert store.hosts() == []
    store.save_report(at(demo.report, 0, host="store02"))
    store.save_report(at(demo.report, 0, host="store01"))
    store.save_report(at(demo.report, 5, host="store01"))
    newest = store.save_report(at(recabled.report, 10, host="store01"))
    store.save_report(at(demo.report, 1, host="store01"))  # late: history only
    store01, store02 = store.hosts()
    assert (store01.name, store02.name) == ("store01", "store02")
    assert store01.reports == 4 and store02.reports == 1
    assert store01.latest_report_id == newest.id
    assert (store01.first_seen, store01.last_seen) == (T0, T0 + timedelta(minutes=10))
    # after demo, demo, recabled: the single paths and the chain are open, anything new pending
    assert store01.open_findings == SeverityCounts(critical=2, warning=1)
    demo_ids = {f.id for f in demo.report.findings}
    assert store01.pending_findings == len(
        [f for f in recabled.report.findings if f.id not in demo_ids]
    )
    assert store02.open_findings == SeverityCounts()
    assert store02.pending_findings == 3
    assert store01.host is not None and store01.host.hostname == "store01"
    assert store01.muted_findings == 0
