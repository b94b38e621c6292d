"""Python's cyclic garbage collector paused while one host's model is built.

Reading a large host allocates a few hundred thousand small objects that live on (models,
their dicts and lists), and each time enough have piled up the collector walks every object of
the process looking for cycles: on the 1,920-path benchmark host four full collections took
0.25-0.3 s of a 1.5 s `check`, for nothing (the models hold no cycles). Paused during the
building, the collector runs once afterwards, on the young objects only.

Pauses nest and may overlap across threads (the service checks hosts in worker threads): the
collector is paused while any pause is open and resumed when the last one closes, and only if
it was running when the first one opened.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["gc_paused", "settle_heap"]

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


def settle_heap() -> None:
    """Collect once, then move every object alive now out of the collector's sight.

    Why: the service keeps the newest report and inventory of each host in memory, and a
    1,000-disk host's inventory is a million long-lived objects; a full collection walking them
    all stalls every request for a quarter of a second (p99 of /healthz: 262 ms, see
    docs/benchmarks.md). Frozen, they are left out of every later collection. The service calls
    this when it loads a new report, every few minutes."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
