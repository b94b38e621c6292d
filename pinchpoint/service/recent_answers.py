"""Answers read from the store kept for a moment: `GET /v1/findings` asked hundreds of times a
second (a dashboard per operator, a few scripts) costs one query and one serialisation per
second instead of one each (a query of the findings of a 1,920-path host and its JSON take
5-10 ms of the GIL, and 200 of them a second saturate both cores).

An answer is kept until this service stores something that may change it (its `generation`
moves: a sweep, a push, an upload, a mute) and never longer than `MAX_AGE_S`: another process
writing to the same store (a second central instance) and mutes expiring show within that
time. One caller per key computes; those asking for the same key meanwhile wait for it.

An answer past half its age limit is still served, and the first caller to see it that old
starts its next read on a thread of its own (stale while revalidate): a key asked at least
every half second is read again before it expires, so its callers never wait for the store.
An answer with no age limit (kept by generation alone) is never read again.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from typing import NamedTuple

MAX_AGE_S = 1.0
KEPT = 256  # answers kept at most (the least recently made are dropped first)


class Kept(NamedTuple):
    """One kept answer: when its read began, the generation it is of, its bytes, and how to
    read it again."""

    started: float
    generation: int
    body: bytes
    make: Callable[[], bytes]


class RecentAnswers:
    """Bytes by key, made at most once per `max_age_s` and generation, read again in the
    background once older than `refresh_after_s`."""

    def __init__(
        self,
        max_age_s: float = MAX_AGE_S,
        kept: int = KEPT,
        refresh_after_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_age_s = max_age_s
        # an answer this old is read again in the background, still served (default: half
        # the age limit; none for an answer without one)
        self.refresh_after_s = max_age_s / 2 if refresh_after_s is None else refresh_after_s
        self.kept = kept
        self.made = 0  # answers computed (tests count them)
        self.refreshed = 0  # of those, read again in the background
        self._clock = clock
        self._lock = threading.Lock()
        self._answers: OrderedDict[Hashable, Kept] = OrderedDict()
        self._making: dict[Hashable, Future[bytes]] = {}

    def _kept(self, key: Hashable, generation: int) -> bytes | None:
        """The kept answer if it is of `generation` and young enough; starts its background
        read when it is getting old. Called with the lock held."""
        kept = self._answers.get(key)
        if kept is None or kept.generation != generation:
            return None
        age = self._clock() - kept.started
        if age > self.max_age_s:
            return None
        if age > self.refresh_after_s and key not in self._making:
            self._making[key] = Future()
            threading.Thread(
                target=self._make,
                args=(key, generation, kept.make, self._making[key], True),
                name="recent-answer-refresh",
                daemon=True,
            ).start()
        return kept.body

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
            if pending is not None:
                mine = False
            else:
                mine = True
                pending = self._making[key] = Future()
        if not mine:
            return pending.result()
        return self._make(key, generation, make, pending)

    def _make(
        self,
        key: Hashable,
        generation: int,
        make: Callable[[], bytes],
        pending: Future[bytes],
        background: bool = False,
    ) -> bytes:
        """Read the answer, keep it and hand it to whoever waits on `pending` (a failed read
        is handed to them too, and not kept; a background read's failure is raised to no one:
        the next caller past `max_age_s` reads again and meets it)."""
        started = self._clock()  # an answer is as old as the read it came from
        try:
            body = make()
        except BaseException as err:
            with self._lock:
                self._making.pop(key, None)
            pending.set_exception(err)
            if background:
                return b""
            raise
        with self._lock:
            self._making.pop(key, None)
            self.made += 1
            self.refreshed += background
            self._answers[key] = Kept(started, generation, body, make)
            self._answers.move_to_end(key)
            while len(self._answers) > self.kept:
                self._answers.popitem(last=False)
        pending.set_result(body)
        return body
