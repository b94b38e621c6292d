"""The heavy-request limit on its own: slots, the line, the wait's end, no slot lost."""

from __future__ import annotations

import asyncio

import pytest

from pinchpoint.api.heavy import HeavyLimit
from pinchpoint.api.problems import ProblemError


async def _hold(limit: HeavyLimit, release: asyncio.Event, order: list[int], number: int) -> None:
    async with limit.slot():
        order.append(number)
        await release.wait()


def test_slots_go_to_the_waiting_in_turn_and_the_rest_are_refused() -> None:
    async def scenario() -> None:
        limit = HeavyLimit(running=2, waiting=2, wait_s=5)
        release = asyncio.Event()
        order: list[int] = []
        tasks = [asyncio.create_task(_hold(limit, release, order, n)) for n in range(4)]
        await asyncio.sleep(0.01)
        assert (limit.running, limit.waiting, order) == (2, 2, [0, 1])
        with pytest.raises(ProblemError) as refused:
            async with limit.slot():
                pass
        assert refused.value.status == 503
        assert refused.value.headers == {"Retry-After": "2"}
        release.set()
        await asyncio.gather(*tasks)
        assert order == [0, 1, 2, 3]
        assert (limit.running, limit.waiting) == (0, 0)

    asyncio.run(scenario())


def test_a_wait_ends_with_a_503_and_gives_nothing_away() -> None:
    async def scenario() -> None:
        limit = HeavyLimit(running=1, waiting=4, wait_s=0.1)
        release = asyncio.Event()
        holder = asyncio.create_task(_hold(limit, release, [], 0))
        await asyncio.sleep(0.01)
        with pytest.raises(ProblemError, match=r"no slot for a heavy request within 0\.1 s"):
            async with limit.slot():
                pass
        cancelled = asyncio.create_task(_hold(limit, release, [], 1))
        await asyncio.sleep(0.01)
        cancelled.cancel()  # the client went away while waiting
        await asyncio.gather(cancelled, return_exceptions=True)
        release.set()
        await holder
        assert (limit.running, limit.waiting) == (0, 0)
        async with limit.slot():  # the slot is free again
            assert limit.running == 1

    asyncio.run(scenario())
