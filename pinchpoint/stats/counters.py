"""Kernel counters that wrap: how much one grew between two samples.

Counts the kernel keeps as unsigned longs are 32-bit on 32-bit kernels (and in older drivers)
and 64-bit elsewhere, so a count that went down wrapped where that is possible — below 2^32,
or near the top of 64 bits — and was reset (device replaced, driver reloaded) otherwise.
Shared by the block device figures (`iostat`) and the interface figures (`netdev`).

Error counters compared between two sweeps (`counter_changes`) are another matter: a count that
went down there was reset. Shared by the rules on SAS phys, FC ports and NICs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

COUNT_WRAP_32 = 1 << 32
COUNT_WRAP_64 = 1 << 64
NEAR_64_BIT_TOP = 1 << 63  # a 64-bit count this high may have wrapped; lower, it cannot


def count_delta(before: int, after: int) -> int | None:
    """How much a count grew, across a wrap where one is possible; None if it went back."""
    if after >= before:
        return after - before
    if before < COUNT_WRAP_32:
        return after + COUNT_WRAP_32 - before
    if before >= NEAR_64_BIT_TOP:
        return after + COUNT_WRAP_64 - before
    return None


# --- error counters between two sweeps ---------------------------------------------------------
#
# Error counters (SAS phy, FC port, NIC) are compared between two sweeps minutes or hours apart.
# Errors do not come in billions: a count that went down was reset (link reset, driver reload,
# reboot, `reset_statistics`), never wrapped, and says nothing about the interval.


@dataclass(frozen=True)
class CounterRise:
    """One error counter that rose between two sweeps."""

    name: str
    before: int
    after: int

    @property
    def delta(self) -> int:
        return self.after - self.before


@dataclass(frozen=True)
class CounterChanges:
    """What a set of error counters did between two sweeps: which rose, which were reset."""

    rises: tuple[CounterRise, ...] = ()
    resets: tuple[str, ...] = ()  # counters that went down: reset, not judged

    @property
    def total(self) -> int:
        return sum(r.delta for r in self.rises)


def error_count_rise(before: int, after: int) -> int | None:
    """How much an error counter rose between two sweeps; None when it went down (a reset)."""
    return after - before if after >= before else None


def counter_changes(
    before: Mapping[str, int | None], after: Mapping[str, int | None], names: Iterable[str]
) -> CounterChanges:
    """The counters of `names` that rose from `before` to `after`, in the order of `names`, and
    those that were reset; a counter unknown on either side is left out."""
    rises: list[CounterRise] = []
    resets: list[str] = []
    for name in names:
        then, now = before.get(name), after.get(name)
        if then is None or now is None:
            continue
        grown = error_count_rise(then, now)
        if grown is None:
            resets.append(name)
        elif grown > 0:
            rises.append(CounterRise(name=name, before=then, after=now))
    return CounterChanges(rises=tuple(rises), resets=tuple(resets))
