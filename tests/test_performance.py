"""The cyclic garbage collector is paused while a host's model is built, and resumed after: also
when pauses nest, overlap across threads, or the building fails; never resumed when it was off.
Work forked into a child process gives back its result and its progress; a child that dies
gives None (the caller does the work itself); no fork while another thread runs."""

from __future__ import annotations

import gc
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from demo_host import shared_demo_root

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.performance import (
    ForkedWork,
    fork_is_safe,
    gc_paused,
    return_free_memory,
    start_forked,
)
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
    assert_paused_while_reading(SnapshotSource(shared_demo_root()))


def assert_paused_while_reading(source: SnapshotSource) -> None:
    seen: list[bool] = []
    inventory = collect_inventory(source, progress=lambda _: seen.append(gc.isenabled()))
    assert seen and not any(seen)
    assert gc.isenabled()
    gathered = gather_statistics(source, inventory, live=False)
    assert gc.isenabled()
    result = breakdown(inventory, intervals=gathered.intervals, imports=gathered.imported)
    assert gc.isenabled() and result.levels


# -- work forked into a child process -----------------------------------------------------------

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")


def counted(say: Callable[[str], None]) -> tuple[int, list[int]]:
    """Work for the child: says two lines, returns its process id and a list."""
    say("one")
    say("two")
    return os.getpid(), [1, 2, 3]


def dies(say: Callable[[str], None]) -> int:
    say("about to die")
    os._exit(3)


@needs_fork
def test_forked_work_returns_its_result_and_its_progress() -> None:
    said: list[str] = []
    forked = ForkedWork(counted, name="pinchpoint-test-child")
    pid, numbers = forked.result(said.append) or (None, [])
    assert pid != os.getpid() and numbers == [1, 2, 3]
    assert said == ["one", "two"]


@needs_fork
def test_a_child_that_dies_gives_none_after_what_it_said() -> None:
    said: list[str] = []
    forked = ForkedWork(dies, name="pinchpoint-test-child")
    assert forked.result(said.append) is None
    assert said == ["about to die"]


@needs_fork
def test_a_result_that_cannot_come_back_gives_none() -> None:
    forked = ForkedWork(lambda say: threading.Lock(), name="pinchpoint-test-child")
    assert forked.result(lambda _: None) is None


@needs_fork
def test_no_fork_while_another_thread_runs() -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, args=(10,))
    thread.start()
    try:
        assert not fork_is_safe()
        assert start_forked(counted, name="pinchpoint-test-child") is None
    finally:
        stop.set()
        thread.join(10)


def _rss_kib() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        line = next(line for line in status if line.startswith("VmRSS:"))
    return int(line.split()[1])


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="Linux /proc")
def test_free_memory_goes_back_to_the_system() -> None:
    """Freed heap pages in the middle of the C heap stay with the process until trimmed: 64 MiB
    of 60 KiB blocks (below glibc's mmap threshold), nine in ten freed, the rest pinning the
    heap's top; after `return_free_memory` most of the freed 57 MiB has left the RSS."""
    blocks = [bytearray(60 * 1024) for _ in range(1_100)]
    kept = blocks[9::10]
    del blocks
    before = _rss_kib()
    assert return_free_memory()  # glibc here
    after = _rss_kib()
    assert before - after > 30 * 1024, (before, after)
    assert len(kept) == 110
