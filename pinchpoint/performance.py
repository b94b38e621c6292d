"""Where the performance tricks live, each with the reason it is there.

- `gc_paused`: the cyclic garbage collector paused while one host's model is built;
- `settle_heap`, `keep_long_lived`: the service's long-lived objects moved out of the collector's
  sight (with a full collection first, or without one: at a swap of views, see below), and
  `return_free_memory`: the old view's freed pages given back to the system;
- `start_forked` (`ForkedWork`): work forked into a child process, for the second core.
"""

from __future__ import annotations

import gc
import logging
import multiprocessing
import os
import threading
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from multiprocessing.connection import Connection
from typing import Generic, TypeVar

__all__ = [
    "ForkedWork",
    "fork_is_safe",
    "gc_paused",
    "keep_long_lived",
    "return_free_memory",
    "settle_heap",
    "start_forked",
]

log = logging.getLogger(__name__)

# -- the garbage collector paused ---------------------------------------------------------------
#
# Reading a large host allocates a few hundred thousand small objects that live on (models,
# their dicts and lists), and each time enough have piled up the collector walks every object of
# the process looking for cycles: on the 1,920-path benchmark host four full collections took
# 0.25-0.3 s of a 1.5 s `check`, for nothing (the models hold no cycles). Paused during the
# building, the collector runs once afterwards, on the young objects only.
#
# `pinchpoint check` keeps it paused for the whole command, its imports included, and drops the
# check's models before it resumes: otherwise a full collection fell among the imports and the
# first allocation after the check's pause walked every model (0.26 s of collections in all,
# 0.03-0.09 s after; docs/benchmarks.md, "third pass").
#
# Pauses nest and may overlap across threads (the service checks hosts in worker threads): the
# collector is paused while any pause is open and resumed when the last one closes, and only if
# it was running when the first one opened.

_lock = threading.Lock()
_open = 0  # pauses open, in every thread
_resume = False  # whether the collector ran when the first of them opened


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic garbage collection inside the block (reference counting frees as usual)."""
    global _open, _resume
    with _lock:
        if _open == 0:
            _resume = gc.isenabled()
            gc.disable()
        _open += 1
    try:
        yield
    finally:
        with _lock:
            _open -= 1
            if _open == 0 and _resume:
                gc.enable()


# -- long-lived objects out of the collector's sight ---------------------------------------------
#
# The service keeps the newest report and inventory of each host in memory, and a 1,000-disk
# host's inventory is a million long-lived objects; a full collection walking them all stalls
# every request for a quarter of a second (p99 of /healthz: 262 ms, see docs/benchmarks.md).
# Frozen, they are left out of every later collection.


_settled_count = 0  # objects out of the collector's sight after the last full collection
settles = 0  # full collections run by `settle_heap` (tests count them)


def settle_heap() -> None:
    """Collect once, then move every object alive now out of the collector's sight (a
    stop-the-world pause: at startup, when `keep_long_lived` finds it necessary, at the
    service's daily chores)."""
    global _settled_count, settles
    gc.unfreeze()
    gc.collect()
    gc.freeze()
    _settled_count = gc.get_freeze_count()
    settles += 1


# A full collection walks every object of the process with the GIL held: 150-200 ms on the
# 1,920-path host, during which no request is answered. When the service swaps in a new view of
# a host it does not need one: `gc.freeze()` alone (a splice of the collector's lists, O(1)) moves
# the new view's objects out of the collector's sight, and the old view's objects, once nothing
# refers to them, are freed by reference counting like any other (the models hold no cycles;
# tests/service/test_view_swap.py checks that the old view dies at the swap and that memory
# stays flat over repeated swaps). What the freeze costs: garbage in a cycle that was young at
# that moment (requests' garbage made while a sweep held the collector paused) stays until the
# next full collection. That one runs at the service's daily chores, at the first swap, and as a
# safety net when the objects out of sight have tripled since the last full collection. Not
# less: at a swap the old view is often still held by a request being answered, so twice a
# view's objects out of sight for a moment is normal (a threshold of 1.25 made every swap of
# the 1,920-path host a 0.45 s full collection in bench/swap_pause_bench.py).
# The models do hold no cycles now; one did keep every sweep's inventory alive until the
# threefold net fired (an error cached with its traceback, `checks/source/sysfs.py`). After the
# freeze, the C allocator's free pages go back to the system (`return_free_memory`).

GROWTH_BEFORE_SETTLING = 3.0


def keep_long_lived() -> None:
    """Move every object alive now out of the collector's sight, without collecting (O(1));
    called right after a new long-lived view is built, while the collector is paused. A full
    collection (`settle_heap`) only when what is out of sight tripled since the last."""
    gc.freeze()
    if gc.get_freeze_count() > _settled_count * GROWTH_BEFORE_SETTLING:
        settle_heap()
    return_free_memory()


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's `malloc_trim`, looked up when first needed: finding libc runs `ldconfig -p`
    and imports ctypes, which a one-shot command (`pinchpoint check`) never needs."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    trim = getattr(ctypes.CDLL(name), "malloc_trim", None) if name else None
    return trim if callable(trim) else None


def return_free_memory() -> bool:
    """Give the C allocator's free pages back to the system (glibc's `malloc_trim`; a no-op
    elsewhere). Once an old view is freed its pages stay with the process otherwise: on the
    1,920-path host RSS was 35 MB lower after eight sweeps with it (docs/benchmarks.md). The GIL
    is released while it runs (ctypes), 8-50 ms."""
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True


# -- a second process for a second core -------------------------------------------------------
#
# Reading a large host is pure Python work (parsing sysfs attributes, smartctl JSON, building
# models), and the GIL lets only one thread run it at a time: threads make it no faster. A
# forked child process runs on the other core: on the 1,920-path benchmark host the block
# devices, disk health and ZFS pools (a third of the work) are read in a child while the parent
# walks the SAS fabric. The child's result comes back pickled over a pipe, and its progress
# lines with it. Forking copies only the forking thread: a lock another thread held at that
# moment stays held forever in the child, so a process with other threads running (the
# service's workers) does not fork. A child that dies, or whose result cannot come back, costs
# time, never facts: the caller does the work itself.
#
# The child finished its part 0.1 s before the parent's SAS walk ended, and its core then idled
# while the parent went on to read the snapshot's statistics files: `collect_inventory` gives
# it more reading that needs none of the inventory (`ReadBeside`: a snapshot's diskstats
# samples), whose result comes back with the child's. More than that (the zpool histograms
# too) made the child the one waited for (docs/benchmarks.md, "fourth pass").

Say = Callable[[str], None]
T = TypeVar("T")


def fork_is_safe() -> bool:
    """Whether this process may fork a worker now: `fork` exists and no other thread runs."""
    return hasattr(os, "fork") and threading.active_count() == 1


class ForkedWork(Generic[T]):
    """`work(say)` running in a forked child while this process goes on; what it says and what
    it returns come back over a pipe."""

    def __init__(self, work: Callable[[Say], T], name: str) -> None:
        context = multiprocessing.get_context("fork")
        self._receive, send = context.Pipe(duplex=False)
        self._process = context.Process(
            target=_run_in_child, args=(work, send), name=name, daemon=True
        )
        self._process.start()
        send.close()  # the child holds the other end; EOF here means it is gone

    def result(self, say: Say) -> T | None:
        """What `work` returned, its progress passed to `say` meanwhile; None when the child
        died or its result could not come back (the caller then does the work itself)."""
        try:
            while True:
                kind, payload = self._receive.recv()
                if kind == "progress":
                    say(payload)
                else:
                    return payload  # type: ignore[no-any-return]
        except Exception:  # EOF, a broken pipe or an unpicklable result: fall back
            log.debug("forked child %s failed:\n%s", self._process.name, traceback.format_exc())
            return None
        finally:
            self._receive.close()
            self._process.join(timeout=10)
            if self._process.is_alive():
                self._process.kill()


def _run_in_child(work: Callable[[Say], T], send: Connection) -> None:
    try:
        result = work(lambda message: send.send(("progress", message)))
        send.send(("result", result))
    finally:
        send.close()


def start_forked(work: Callable[[Say], T], name: str) -> ForkedWork[T] | None:
    """`work` started in a forked child named `name`; None when forking is not safe here (the
    caller then does the work itself)."""
    return ForkedWork(work, name) if fork_is_safe() else None
