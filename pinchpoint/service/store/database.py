"""Connecting to the store's database and bringing its schema to the current version.

SQLite: WAL (readers go on while a sweep writes), foreign keys on, a busy timeout, and
`synchronous=NORMAL` (a power cut may lose the last committed report, never leave a half
written one). Writes begin with `BEGIN IMMEDIATE` so that two writers queue on the busy timeout
instead of failing when one upgrades its read lock. PostgreSQL: psycopg 3, a pool with pre-ping.

Migrations are Alembic scripts shipped in `migrations/`, run in process.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

MIGRATIONS = Path(__file__).parent / "migrations"
BUSY_TIMEOUT_S = 30
# PostgreSQL: one advisory lock key space for the store (the first key of a two-key lock).
LOCK_SPACE = 0x70696E63  # "pinc"


class StoreError(Exception):
    """The store cannot be used as asked: a bad URL, an unreachable database, an old schema."""


class StoreInputError(StoreError, ValueError):
    """An argument the store refuses (a report without a host name, a negative limit …)."""


def store_url(url: str) -> URL:
    """The SQLAlchemy URL of `url`; `postgresql://` means psycopg 3, and a SQLite store must be a
    file (an in-memory database is not shared between the API's threads)."""
    try:
        parsed = make_url(url)
    except ArgumentError as err:
        raise StoreError(f"not a database URL: {url!r} ({err})") from None
    backend = parsed.get_backend_name()
    if backend == "postgresql":
        if parsed.drivername in ("postgresql", "postgres"):
            parsed = parsed.set(drivername="postgresql+psycopg")
        return parsed
    if backend == "sqlite":
        if not parsed.database or parsed.database == ":memory:":
            raise StoreError(
                "an in-memory SQLite store cannot be shared between threads: give a file, "
                "e.g. sqlite:///var/lib/pinchpoint/pinchpoint.db"
            )
        return parsed
    raise StoreError(
        f"unsupported database {backend!r} in {parsed.render_as_string(hide_password=True)}: "
        "use sqlite:///PATH or postgresql+psycopg://USER@HOST/DB"
    )


def _sqlite_engine(url: URL, *, immediate: bool) -> Engine:
    """A SQLite engine whose transactions begin as `BEGIN IMMEDIATE` (writes) or `BEGIN`."""
    Path(url.database or "").expanduser().parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(
        url,
        connect_args={"timeout": BUSY_TIMEOUT_S, "check_same_thread": False},
        pool_size=8,
        max_overflow=8,
    )

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we emit BEGIN ourselves (below)
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_S * 1000}")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


def make_engines(url: str) -> tuple[Engine, Engine]:
    """(writer, reader) engines for `url`; the same engine twice for PostgreSQL."""
    parsed = store_url(url)
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_engine(parsed, immediate=True), _sqlite_engine(parsed, immediate=False)
    engine = create_engine(parsed, pool_pre_ping=True, pool_size=8, max_overflow=8)
    return engine, engine


def alembic_config(connection: Connection | None = None) -> Config:
    """The Alembic configuration of the shipped migrations, bound to `connection`."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def head_revision() -> str | None:
    """The newest schema revision this pinchpoint knows."""
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(connection: Connection) -> str | None:
    """The schema revision of the database behind `connection` (None: no schema yet)."""
    return MigrationContext.configure(connection).get_current_revision()


def migrate_schema(engine: Engine, revision: str = "head") -> None:
    """Bring the schema to `revision`, in one transaction (PostgreSQL: one migrator at a time)."""
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(
                text("SELECT pg_advisory_xact_lock(:space, 0)"), {"space": LOCK_SPACE}
            )
        command.upgrade(alembic_config(connection), revision)


def downgrade(engine: Engine, revision: str) -> None:
    """Take the schema back to `revision` ("base": no tables), for tests and rollbacks."""
    with engine.begin() as connection:
        command.downgrade(alembic_config(connection), revision)


def check_schema(engine: Engine) -> None:
    """Refuse a database whose schema is not the one this pinchpoint writes."""
    with engine.connect() as connection:
        current = current_revision(connection)
    head = head_revision()
    if current != head:
        where = engine.url.render_as_string(hide_password=True)
        found = f"at revision {current}" if current else "empty (no pinchpoint tables)"
        raise StoreError(
            f"the store {where} is {found}; this pinchpoint needs revision {head}: open it "
            "with migrations enabled to upgrade it"
        )
