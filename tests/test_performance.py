"""The cyclic garbage collector is paused while a host's model is built, and resumed after: also
when pauses nest, overlap across threads, or the building fails; never resumed when it was off."""

from __future__ import annotations

import gc
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.checks.source.choose import scratch_dir
from pinchpoint.performance import gc_paused
from pinchpoint.simulator import demo_spec, write_snapshot
from pinchpoint.stats.aggregate import breakdown
from pinchpoint.stats.gather import gather_statistics


@pytest.fixture(autouse=True)
def collector_on() -> Iterator[None]:
    """Each test starts with the collector running and leaves it so."""
    was = gc.isenabled()
    gc.enable()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


def test_paused_inside_and_resumed_after() -> None:
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_resumed_when_the_block_raises() -> None:
    with pytest.raises(ValueError, match="bad snapshot"), gc_paused():
        raise ValueError("bad snapshot")
    assert gc.isenabled()


def test_nested_pauses_resume_only_at_the_outermost() -> None:
    with gc_paused():
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_switched_off_before_stays_off() -> None:
    gc.disable()
    with gc_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_overlapping_pauses_in_two_threads() -> None:
    """Thread A opens, B opens, A closes (still paused: B builds), B closes (resumed)."""
    a_open, b_open, a_closed = threading.Event(), threading.Event(), threading.Event()
    seen: dict[str, bool] = {}

    def first() -> None:
        with gc_paused():
            a_open.set()
            b_open.wait(5)
        a_closed.set()

    def second() -> None:
        a_open.wait(5)
        with gc_paused():
            b_open.set()
            a_closed.wait(5)
            seen["after A closed"] = gc.isenabled()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert seen == {"after A closed": False}
    assert gc.isenabled()


def test_reading_a_host_pauses_the_collector_and_resumes_it() -> None:
    with tempfile.TemporaryDirectory(prefix="pinchpoint-gc-", dir=scratch_dir()) as tmp:
        write_snapshot(demo_spec(), Path(tmp, "demo"))
        assert_paused_while_reading(SnapshotSource(Path(tmp, "demo")))


def assert_paused_while_reading(source: SnapshotSource) -> None:
    seen: list[bool] = []
    inventory = collect_inventory(source, progress=lambda _: seen.append(gc.isenabled()))
    assert seen and not any(seen)
    assert gc.isenabled()
    gathered = gather_statistics(source, inventory, live=False)
    assert gc.isenabled()
    result = breakdown(inventory, intervals=gathered.intervals, imports=gathered.imported)
    assert gc.isenabled() and result.levels
