"""A limit on heavy requests, so that a burst of them cannot starve everything else.

`GET /v1/stats?by=disk` on the 1,920-path host once cost 0.44 s of pure Python per request;
forty at once held every worker thread and the GIL, and `/readyz` waited 14.8 s behind them.
Heavy routes now take a slot first: at most `RUNNING` run at once (this is CPU work under one
GIL: more in parallel only makes each slower), at most `WAITING` more wait for a slot, each for
at most `WAIT_S`; any other gets `503` with `Retry-After` at once. Waiting happens on the event
loop, holding no thread, so the probes and the cheap routes are answered meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator

from fastapi import Request

from pinchpoint.api.problems import ProblemError

RUNNING = 2
WAITING = 16
WAIT_S = 10.0
RETRY_AFTER_S = 2


class HeavyLimit:
    """Slots for heavy requests: `running` at once, `waiting` in line for at most `wait_s`.

    Used from the event loop only (no lock needed); a slot that frees goes to the oldest
    request still waiting."""

    def __init__(self, running: int = RUNNING, waiting: int = WAITING, wait_s: float = WAIT_S):
        self.running_max = running
        self.waiting_max = waiting
        self.wait_s = wait_s
        self.running = 0
        self._waiters: deque[asyncio.Future[None]] = deque()

    @property
    def waiting(self) -> int:
        return len(self._waiters)

    def _busy(self, why: str) -> ProblemError:
        return ProblemError(503, "busy", why, {"Retry-After": str(RETRY_AFTER_S)})

    async def _wait_for_slot(self) -> None:
        if len(self._waiters) >= self.waiting_max:
            raise self._busy(
                f"{self.running} heavy requests are running and {len(self._waiters)} waiting: "
                f"try again in {RETRY_AFTER_S} s"
            )
        turn = asyncio.get_running_loop().create_future()
        self._waiters.append(turn)
        try:
            await asyncio.wait_for(turn, self.wait_s)  # a freed slot is handed over running
        except TimeoutError:
            raise self._busy(
                f"no slot for a heavy request within {self.wait_s:g} s: try again in "
                f"{RETRY_AFTER_S} s"
            ) from None
        finally:
            with contextlib.suppress(ValueError):
                self._waiters.remove(turn)

    def _release(self) -> None:
        while self._waiters:
            turn = self._waiters.popleft()
            if not turn.done():
                turn.set_result(None)  # the slot passes on: `running` stays as it is
                return
        self.running -= 1

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold a slot for the block; raises a 503 `ProblemError` when none can be had."""
        if self.running < self.running_max and not self._waiters:
            self.running += 1
        else:
            await self._wait_for_slot()
        try:
            yield
        finally:
            self._release()


def heavy_limit(request: Request) -> HeavyLimit:
    """The application's limit (one per application, made with it)."""
    limit: HeavyLimit = request.app.state.heavy
    return limit
