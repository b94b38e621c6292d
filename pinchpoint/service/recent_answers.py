"""Answers read from the store kept for a moment: `GET /v1/findings` asked hundreds of times a
second (a dashboard per operator, a few scripts) costs one query and one serialisation per
second instead of one each (a query of the findings of a 1,920-path host and its JSON take
5-10 ms of the GIL, and 200 of them a second saturate both cores).

An answer is kept until this service stores something that may change it (its `generation`
moves: a sweep, a push, an upload, a mute) and never longer than `MAX_AGE_S`: another process
writing to the same store (a second central instance) and mutes expiring show within that
time. One caller per key computes; those asking for the same key meanwhile wait for it.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import Future

MAX_AGE_S = 1.0
KEPT = 256  # answers kept at most (the least recently made are dropped first)


class RecentAnswers:
    """Bytes by key, made at most once per `max_age_s` and generation."""

    def __init__(self, max_age_s: float = MAX_AGE_S, kept: int = KEPT) -> None:
        self.max_age_s = max_age_s
        self.kept = kept
        self.made = 0  # answers computed (tests count them)
        self._lock = threading.Lock()
        self._answers: OrderedDict[Hashable, tuple[float, int, bytes]] = OrderedDict()
        self._making: dict[Hashable, Future[bytes]] = {}

    def _kept(self, key: Hashable, generation: int) -> bytes | None:
        kept = self._answers.get(key)
        fresh = kept is not None and kept[1] == generation
        if kept is not None and fresh and time.monotonic() - kept[0] <= self.max_age_s:
            return kept[2]
        return None

    def peek(self, key: Hashable, generation: int) -> bytes | None:
        """The answer of `key` if one is kept, without waiting (an event loop may ask)."""
        with self._lock:
            return self._kept(key, generation)

    def get(self, key: Hashable, generation: int, make: Callable[[], bytes]) -> bytes:
        """The answer of `key`: kept, or made now by `make()` (once for every caller)."""
        with self._lock:
            kept = self._kept(key, generation)
            if kept is not None:
                return kept
            pending = self._making.get(key)
            mine = pending is None
            if pending is None:
                pending = self._making[key] = Future()
        if not mine:
            return pending.result()
        started = time.monotonic()  # an answer is as old as the read it came from
        try:
            body = make()
        except BaseException as err:
            pending.set_exception(err)
            raise
        finally:
            with self._lock:
                self._making.pop(key, None)
        with self._lock:
            self.made += 1
            self._answers[key] = (started, generation, body)
            self._answers.move_to_end(key)
            while len(self._answers) > self.kept:
                self._answers.popitem(last=False)
        pending.set_result(body)
        return body
