"""Kernel counters that wrap: how much one grew between two samples.

Counts the kernel keeps as unsigned longs are 32-bit on 32-bit kernels (and in older drivers)
and 64-bit elsewhere, so a count that went down wrapped where that is possible — below 2^32,
or near the top of 64 bits — and was reset (device replaced, driver reloaded) otherwise.
Shared by the block device figures (`iostat`) and the interface figures (`netdev`).
"""

from __future__ import annotations

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
