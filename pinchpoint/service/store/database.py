"""The store's database plumbing: connecting, bringing the schema to the current version, a
session per call, locks, the dialect's INSERT, pages and times.

SQLite: WAL (readers go on while a sweep writes), foreign keys on, a busy timeout, and
`synchronous=NORMAL` (a power cut may lose the last committed report, never leave a half
written one). Writes begin with `BEGIN IMMEDIATE` so that two writers queue on the busy timeout
instead of failing when one upgrades its read lock. PostgreSQL: psycopg 3, a pool with pre-ping.

Migrations are Alembic scripts shipped in `migrations/`, run in process.

Each call of the store opens its own session (the API reads from several threads while a sweep
writes); each write is one transaction, so a failure part-way leaves what was stored before
intact.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from importlib.util import find_spec
from pathlib import Path
from typing import Any, cast

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, CursorResult, Engine, create_engine, event, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, InterfaceError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

MIGRATIONS = Path(__file__).parent / "migrations"
BUSY_TIMEOUT_S = 30
# PostgreSQL: one advisory lock key space for the store (the first key of a two-key lock).
LOCK_SPACE = 0x70696E63  # "pinc"
MAX_PAGE = 1000  # items in one page of a list


class StoreError(Exception):
    """The store cannot be used as asked: a bad URL, an unreachable database, an old schema."""


class StoreInputError(StoreError, ValueError):
    """An argument the store refuses (a report without a host name, a negative limit …)."""


class MissingPartsError(StoreError):
    """An inventory pushed by digest names parts the store does not hold: send their JSON."""

    def __init__(self, names: list[str]) -> None:
        super().__init__(f"the store does not hold these inventory parts: {', '.join(names)}")
        self.names = names


def store_unavailable(err: BaseException) -> bool:
    """Whether `err` says the database cannot be reached or dropped the connection (a restart,
    a failover, SQLite busy past its timeout): worth trying again, not a fault of the request."""
    if isinstance(err, (OperationalError, InterfaceError)):
        return True
    return isinstance(err, DBAPIError) and err.connection_invalidated


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
        if parsed.drivername == "postgresql+psycopg" and find_spec("psycopg") is None:
            raise StoreError(
                "a PostgreSQL store needs the psycopg driver, which is not installed: "
                "pip install 'pinchpoint[postgres]'"
            )
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


class Database:
    """A store's two engines (the same one twice for PostgreSQL) and a session per call: the
    base of each part of the store (`Store` in store.py joins them)."""

    def __init__(self, writer: Engine, reader: Engine) -> None:
        self._writer = writer
        self._reader = reader
        self._write_session = sessionmaker(writer, expire_on_commit=False)
        self._read_session = sessionmaker(reader, expire_on_commit=False)

    def close(self) -> None:
        """Close every pooled connection."""
        self._writer.dispose()
        if self._reader is not self._writer:
            self._reader.dispose()

    @property
    def dialect(self) -> str:
        """The database behind the store: "sqlite" or "postgresql"."""
        return self._writer.dialect.name

    def ping(self) -> bool:
        """Whether the database answers (for /readyz)."""
        try:
            with self._reader.connect() as connection:
                connection.execute(text("SELECT 1"))
        except DBAPIError:
            return False
        return True

    @contextmanager
    def _writing(self) -> Iterator[Session]:
        """A session in one write transaction: committed at the end, rolled back on error."""
        with self._write_session() as session, session.begin():
            yield session

    @contextmanager
    def _reading(self) -> Iterator[Session]:
        with self._read_session() as session:
            yield session


def utc(moment: datetime) -> datetime:
    """`moment` as an aware UTC datetime (a naive one is taken as UTC). A moment that has no
    UTC (`0001-01-01T00:00+01:00`, from a pushed report) is refused with a `StoreInputError`."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    try:
        return moment.astimezone(UTC)
    except OverflowError:
        raise StoreInputError(f"{moment.isoformat()} lies outside the dates UTC can hold") from None


def moment_or_now(now: datetime | None) -> datetime:
    """`now` in UTC, or the current time when None (callers pass a time in tests)."""
    return utc(now) if now is not None else datetime.now(UTC)


def check_page(limit: int, offset: int) -> None:
    """Refuse a page the store does not serve."""
    if not 1 <= limit <= MAX_PAGE:
        raise StoreInputError(f"limit must be between 1 and {MAX_PAGE}, not {limit}")
    if offset < 0:
        raise StoreInputError(f"offset must be 0 or more, not {offset}")


def _lock_key(name: str) -> int:
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=4).digest(), "big") >> 1


def lock(session: Session, name: str, *, shared: bool = False) -> None:
    """PostgreSQL: hold an advisory lock on `name` until the transaction ends (SQLite writers
    are serialised by `BEGIN IMMEDIATE` already)."""
    if session.get_bind().dialect.name != "postgresql":
        return
    function = "pg_advisory_xact_lock_shared" if shared else "pg_advisory_xact_lock"
    session.execute(
        text(f"SELECT {function}(:space, :key)"), {"space": LOCK_SPACE, "key": _lock_key(name)}
    )


def lock_each(session: Session, names: list[str]) -> None:
    """`lock` each of `names` (exclusive), one after the other in the order given, in one
    statement (one round trip however many). A PL/pgSQL loop takes them, so the order is the
    language's, not a query plan's; the keys are our own hashes (integers), written into it."""
    if session.get_bind().dialect.name != "postgresql" or not names:
        return
    keys = ",".join(str(_lock_key(name)) for name in names)
    session.execute(
        text(
            "DO $$DECLARE k integer; BEGIN "
            f"FOREACH k IN ARRAY ARRAY[{keys}]::integer[] LOOP "
            f"PERFORM pg_advisory_xact_lock({int(LOCK_SPACE)}, k); END LOOP; END$$"
        )
    )


def dialect_insert(session: Session, model: type[Any]) -> Any:
    """The dialect's INSERT (for ON CONFLICT DO NOTHING)."""
    if session.get_bind().dialect.name == "postgresql":
        return postgresql.insert(model)
    return sqlite.insert(model)


def rowcount(result: Any) -> int:
    """Rows an INSERT or DELETE touched."""
    return int(cast(CursorResult[Any], result).rowcount)
