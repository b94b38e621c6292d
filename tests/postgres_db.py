"""PostgreSQL for the tests: the admin connection and throwaway databases.

The admin URL is `PINCHPOINT_TEST_POSTGRES_URL` (default: the local server as user postgres, which
`scripts/start-postgres.sh` starts). When the server cannot be reached the PostgreSQL tests fail
and say so, unless `PINCHPOINT_SKIP_POSTGRES=1` is set.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, create_engine
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

ADMIN_URL = os.environ.get(
    "PINCHPOINT_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)


@pytest.fixture(scope="session")
def postgres_admin() -> Iterator[Engine]:
    """An AUTOCOMMIT engine on the admin database; fails clearly when PostgreSQL is down."""
    if os.environ.get("PINCHPOINT_SKIP_POSTGRES") == "1":
        pytest.skip("PINCHPOINT_SKIP_POSTGRES=1: the PostgreSQL tests are off")
    engine = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            connection.exec_driver_sql("SELECT 1")
    except OperationalError as err:
        engine.dispose()
        pytest.fail(
            f"PostgreSQL is not reachable at {make_url(ADMIN_URL).render_as_string()} "
            f"({err.orig}). Start it (sh scripts/start-postgres.sh), point "
            "PINCHPOINT_TEST_POSTGRES_URL at one, or set PINCHPOINT_SKIP_POSTGRES=1 to run "
            "the SQLite half only.",
            pytrace=False,
        )
    yield engine
    engine.dispose()


def create_database(admin: Engine) -> str:
    """A new, empty database with a unique name; its URL."""
    name = f"pinchpoint_test_{uuid.uuid4().hex[:12]}"
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    return make_url(ADMIN_URL).set(database=name).render_as_string(hide_password=False)


def drop_database(admin: Engine, url: str) -> None:
    name = make_url(url).database
    with admin.connect() as connection:
        connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
