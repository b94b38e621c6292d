"""The store's advisory locks on the real PostgreSQL: `lock_each` takes its locks in the order
given (so writers that sort their names never deadlock), and holds them to the transaction's end.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.orm import Session

from pinchpoint.service.store.database import LOCK_SPACE, _lock_key, lock, lock_each

NAMES = ["fleet:nic:a", "fleet:nic:b", "fleet:nic:c"]


@pytest.fixture
def engine(postgres_url: str) -> Iterator[Engine]:
    engine = create_engine(postgres_url)
    yield engine
    engine.dispose()


def _held_by(engine: Engine, pid: int) -> set[int]:
    """The advisory keys (of our space) that backend `pid` holds, seen from another session."""
    with engine.connect() as connection:
        rows = connection.execute(
            text(
                "SELECT objid FROM pg_locks WHERE locktype = 'advisory' AND granted "
                "AND classid = :space AND pid = :pid"
            ),
            {"space": LOCK_SPACE, "pid": pid},
        )
        return {int(row[0]) for row in rows}


def _waiting(engine: Engine, pid: int) -> bool:
    with engine.connect() as connection:
        return bool(
            connection.execute(
                text("SELECT count(*) FROM pg_locks WHERE pid = :pid AND NOT granted"),
                {"pid": pid},
            ).scalar_one()
        )


def test_lock_each_holds_every_lock_until_the_transaction_ends(engine: Engine) -> None:
    with Session(engine) as session, session.begin():
        lock_each(session, NAMES)
        pid = session.execute(text("SELECT pg_backend_pid()")).scalar_one()
        assert _held_by(engine, pid) == {_lock_key(name) for name in NAMES}
    assert _held_by(engine, pid) == set()


def test_lock_each_takes_the_locks_in_the_order_given(engine: Engine) -> None:
    """With the middle name held elsewhere, the first is taken and the last not yet: the
    locks go one after the other, in the list's order."""
    holder = Session(engine)
    holder.begin()
    lock(holder, NAMES[1])
    started = threading.Event()
    pids: list[int] = []

    def take_all() -> None:
        with Session(engine) as session, session.begin():
            pids.append(session.execute(text("SELECT pg_backend_pid()")).scalar_one())
            started.set()
            lock_each(session, NAMES)

    taker = threading.Thread(target=take_all)
    taker.start()
    try:
        assert started.wait(10)
        deadline = time.monotonic() + 10
        while not _waiting(engine, pids[0]):
            assert time.monotonic() < deadline, "lock_each never waited for the held lock"
            time.sleep(0.02)
        assert _held_by(engine, pids[0]) == {_lock_key(NAMES[0])}
    finally:
        holder.rollback()
        holder.close()
        taker.join(10)
    assert not taker.is_alive()


def test_lock_each_on_sqlite_is_a_no_op() -> None:
    engine = create_engine("sqlite://")
    with Session(engine) as session, session.begin():
        lock_each(session, NAMES)
    engine.dispose()
