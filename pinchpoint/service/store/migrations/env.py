"""Alembic environment of the report store: runs on the connection `database.migrate` passes
in `config.attributes["connection"]`, or (the `alembic` command) on `sqlalchemy.url` or
`PINCHPOINT_DATABASE_URL`. Leaves logging as the application set it up."""

from __future__ import annotations

import os

from alembic import context
from sqlalchemy import Connection

from pinchpoint.service.store.database import make_engines
from pinchpoint.service.store.schema import Base


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=connection.dialect.name == "sqlite",  # SQLite cannot ALTER much
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def _run_online() -> None:
    connection = context.config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = context.config.get_main_option("sqlalchemy.url") or os.environ.get(
        "PINCHPOINT_DATABASE_URL"
    )
    if not url:
        raise SystemExit("set sqlalchemy.url or PINCHPOINT_DATABASE_URL")
    writer, reader = make_engines(url)
    try:
        with writer.begin() as connection:
            _run(connection)
    finally:
        writer.dispose()
        reader.dispose()


if context.is_offline_mode():
    raise SystemExit("the pinchpoint store migrates online only")
_run_online()
