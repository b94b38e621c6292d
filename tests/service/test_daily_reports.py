"""Daily report files are named from host names through `naming.host_token`: whatever a pushed
report or an uploaded snapshot calls its host, the files stay in `<data dir>/reports/` and name
their host back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fixture_paths import FIXTURES

from pinchpoint.checks.source import open_snapshot
from pinchpoint.model.findings import Report
from pinchpoint.rules.config import Config
from pinchpoint.service.checkup import check_source
from pinchpoint.service.runtime import Service, daily_report_host
from pinchpoint.service.settings import ServiceSettings, TargetKind
from pinchpoint.service.store import Store

# Escapes that stay inside the test's own directory on code without the fix (the data directory
# is three levels below it), and the one from the issue, which there would aim at /etc.
HOSTS = (
    "../../escaped",
    "../../../etc/cron.d/x",
    "..",
    ".",
    "a\x00b",
    "x" * 300,
    "ünïcødé 東京",
    "plain.example.com",
    "plain.example.com (snapshot)",
)


@pytest.fixture(scope="module")
def real_report() -> Report:
    """The report of the real mpt3sas capture."""
    with open_snapshot(FIXTURES / "snapshots" / "procfs-mpt3sas") as source:
        return check_source(source, kind=None, live=False, config=Config()).report


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    data = tmp_path / "deep" / "er" / "data"
    data.mkdir(parents=True)
    settings = ServiceSettings(data_dir=data, target=TargetKind.DEMO)
    store = Store.open(f"sqlite:///{data / 'pinchpoint.db'}")
    running = Service(settings, store=store)
    try:
        yield running
    finally:
        store.close()


def test_daily_reports_stay_in_the_store_and_name_their_host(
    service: Service, real_report: Report, tmp_path: Path
) -> None:
    for name in HOSTS:
        host = real_report.host.model_copy(update={"hostname": name})
        service.store.save_report(
            real_report.model_copy(update={"host": host}), origin="push", raise_after=1
        )
    before = {p for p in tmp_path.rglob("*") if p.is_file()}
    service.write_daily_report()
    written = {p for p in tmp_path.rglob("*") if p.is_file()} - before
    reports = service.settings.resolved_data_dir() / "reports"
    assert written, "no daily report written"
    outside = [p for p in written if not p.resolve().is_relative_to(reports.resolve())]
    assert not outside
    day = real_report.generated_at.strftime("%Y-%m-%d")
    for suffix in ("html", "md"):
        named = {daily_report_host(reports, p) for p in written if p.suffix == f".{suffix}"}
        assert named == set(HOSTS)
    plain = reports / f"plain.example.com-{day}.md"
    assert "plain.example.com" in plain.read_text(encoding="utf-8")
    assert (reports / f"plain.example.com%20%28snapshot%29-{day}.html").is_file()
