"""Fixtures of the report store tests: every store test runs on SQLite (a file in tmp_path) and
on PostgreSQL (a database of its own per test session, created and dropped here), with real
reports and inventories made by the check pipeline from simulated hosts.

PostgreSQL: the admin URL is `PINCHPOINT_TEST_POSTGRES_URL` (default the local server as user
postgres). When the server cannot be reached the PostgreSQL tests fail and say so, unless
`PINCHPOINT_SKIP_POSTGRES=1` is set.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from fixture_paths import ROOT
from postgres_db import create_database, drop_database
from service.store.storetest import T0, CheckedHost
from sqlalchemy import Engine, create_engine

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.checks.source.choose import scratch_dir
from pinchpoint.rules.catalog import CATALOG
from pinchpoint.rules.engine import build_report, rule_context
from pinchpoint.service.store import Store
from pinchpoint.service.store.schema import Base
from pinchpoint.simulator import load_spec, write_snapshot
from pinchpoint.simulator.spec.host import HostSpec
from pinchpoint.stats.gather import gather_statistics

DEMO_SPEC = ROOT / "pinchpoint" / "simulator" / "specs" / "demo.toml"
RECABLED_SPEC = ROOT / "tests" / "fixtures" / "specs" / "field_case_1_recabled.toml"
# -- real reports ---------------------------------------------------------------------------


def _field_case_1(spec: Path) -> HostSpec:
    """The host of `spec` with its cabling and workload only: the demo's failed power supply
    (a fault of another kind, for the demo's viewers) is left out, so the store's tests count
    field case 1's findings alone."""
    loaded = load_spec(spec)
    enclosures = [e.model_copy(update={"element_fault": []}) for e in loaded.enclosure]
    return loaded.model_copy(update={"enclosure": enclosures})


def _check(spec: Path) -> CheckedHost:
    with tempfile.TemporaryDirectory(dir=scratch_dir()) as scratch:
        snapshot = Path(scratch, spec.stem)
        write_snapshot(_field_case_1(spec), snapshot)
        source = SnapshotSource(snapshot)
        inventory = collect_inventory(source)
        statistics = gather_statistics(source, inventory, live=False)
        report = build_report(rule_context(inventory, statistics), CATALOG, now=T0)
    return CheckedHost(report=report, inventory=inventory)


@pytest.fixture(scope="session")
def demo() -> CheckedHost:
    """Field case 1: JBOD-003 and JBOD-012 single-pathed (2 critical) and a 4 + 2 chain."""
    return _check(DEMO_SPEC)


@pytest.fixture(scope="session")
def recabled() -> CheckedHost:
    """The same host recabled: the single paths gone, the 4 + 2 chain imbalance left."""
    return _check(RECABLED_SPEC)


# -- databases ------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def postgres_url(postgres_admin: Engine) -> Iterator[str]:
    """This test session's PostgreSQL database, migrated to the current schema."""
    url = create_database(postgres_admin)
    try:
        Store.open(url).close()
        yield url
    finally:
        drop_database(postgres_admin, url)


@pytest.fixture
def fresh_postgres_url(postgres_admin: Engine) -> Iterator[str]:
    """An empty PostgreSQL database for this test alone (migration tests)."""
    url = create_database(postgres_admin)
    yield url
    drop_database(postgres_admin, url)


def _empty_tables(url: str) -> None:
    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            names = ", ".join(table.name for table in Base.metadata.sorted_tables)
            connection.exec_driver_sql(f"TRUNCATE {names} RESTART IDENTITY CASCADE")
    finally:
        engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of an empty store: a new SQLite file, or the session's PostgreSQL database
    with every table emptied."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'store' / 'pinchpoint.db'}"
    url: str = request.getfixturevalue("postgres_url")
    _empty_tables(url)
    return url


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    with Store.open(store_url) as opened:
        yield opened
