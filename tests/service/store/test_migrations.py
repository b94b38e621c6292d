"""Opening a store: the Alembic migrations build exactly the schema of the models, on SQLite
and PostgreSQL; an old or empty schema, a bad URL and an unreachable server are refused with a
message that says what to do."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from service.store.storetest import CheckedHost
from sqlalchemy import create_engine, inspect

from pinchpoint.service.store import Store, StoreError
from pinchpoint.service.store.database import downgrade, head_revision, make_engines
from pinchpoint.service.store.schema import Base


@pytest.fixture(params=["sqlite", "postgresql"])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database with no tables at all."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'empty.db'}"
    url: str = request.getfixturevalue("fresh_postgres_url")
    return url


def _differences(url: str) -> list[object]:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": True})
            return list(compare_metadata(context, Base.metadata))
    finally:
        engine.dispose()


def test_the_migrations_build_the_models_schema(empty_url: str) -> None:
    Store.open(empty_url).close()
    assert _differences(empty_url) == []
    engine = create_engine(empty_url)
    try:
        tables = set(inspect(engine).get_table_names())
    finally:
        engine.dispose()
    assert tables == {t.name for t in Base.metadata.sorted_tables} | {"alembic_version"}


def test_a_store_opened_again_is_not_migrated_twice(empty_url: str, demo: CheckedHost) -> None:
    with Store.open(empty_url) as first:
        saved = first.save_report(demo.report)
    with Store.open(empty_url) as again:
        assert again.report(saved.id) is not None
    with Store.open(empty_url, migrate=False) as unmigrated:
        assert unmigrated.report(saved.id) is not None


def test_an_empty_database_is_refused_without_migrations(empty_url: str) -> None:
    with pytest.raises(StoreError, match=r"is empty \(no pinchpoint tables\).*open it with migr"):
        Store.open(empty_url, migrate=False)


def test_downgrade_and_upgrade_round_trip(empty_url: str) -> None:
    Store.open(empty_url).close()
    writer, reader = make_engines(empty_url)
    try:
        downgrade(writer, "base")
        assert set(inspect(reader).get_table_names()) <= {"alembic_version"}
    finally:
        writer.dispose()
        reader.dispose()
    with pytest.raises(StoreError, match="is empty"):
        Store.open(empty_url, migrate=False)
    Store.open(empty_url).close()
    assert _differences(empty_url) == []
    assert head_revision() == "0003"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("not a url", "not a database URL"),
        ("mysql://root@localhost/pinchpoint", "unsupported database 'mysql'"),
        ("sqlite://", "an in-memory SQLite store cannot be shared"),
        ("sqlite:///:memory:", "an in-memory SQLite store cannot be shared"),
    ],
)
def test_a_bad_url_is_refused_with_a_clear_message(url: str, message: str) -> None:
    with pytest.raises(StoreError, match=message):
        Store.open(url)


def test_an_unreachable_postgresql_is_a_store_error() -> None:
    with pytest.raises(StoreError, match=r"cannot use the store postgresql\+psycopg://.*:1/"):
        Store.open("postgresql://postgres@127.0.0.1:1/pinchpoint")


def test_a_postgresql_store_without_its_driver_says_which_extra_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """psycopg is the `postgres` extra: a runtime-only install asked for PostgreSQL says so."""
    from pinchpoint.service.store import database

    real = database.find_spec
    monkeypatch.setattr(database, "find_spec", lambda n: None if n == "psycopg" else real(n))
    with pytest.raises(StoreError, match=r"pip install 'pinchpoint\[postgres\]'"):
        Store.open("postgresql://postgres@127.0.0.1/pinchpoint")


def test_a_sqlite_store_makes_its_directory_and_uses_wal(tmp_path: Path) -> None:
    path = tmp_path / "data" / "deeper" / "pinchpoint.db"
    with Store.open(f"sqlite:///{path}") as opened:
        assert opened.dialect == "sqlite" and opened.ping()
    engine = create_engine(f"sqlite:///{path}")
    try:
        with engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    finally:
        engine.dispose()


def test_a_postgresql_url_without_a_driver_means_psycopg(postgres_url: str) -> None:
    plain = postgres_url.replace("postgresql+psycopg://", "postgresql://")
    with Store.open(plain, migrate=False) as opened:
        assert opened.dialect == "postgresql" and opened.ping()


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "pinchpoint.db"
    path.write_bytes(b"this is a capture, not a database\n" * 200)
    with pytest.raises(StoreError, match=r"cannot use the store sqlite:///.*is not a database"):
        Store.open(f"sqlite:///{path}")
    assert path.read_bytes().startswith(b"this is a capture")
