"""Values picked out of a column (a list with a value per device) in a given order, for sums
that must add them in that order: the live sampler's groups and disks every tick. A run of
consecutive positions is copied as a slice (a memory copy), not looked up one by one."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from itertools import chain
from operator import itemgetter

Values = Callable[[Sequence[float]], Iterable[float]]


def in_order(positions: Sequence[int]) -> Values:
    """What gives the values at `positions` (two or more) of a list in that order, for a sum:
    slices of its runs of consecutive positions where they are long (an HBA's devices, a
    port's: a copy of the run, not a look-up per device), else an itemgetter."""
    runs: list[list[int]] = []
    for at in positions:
        if runs and runs[-1][1] == at:
            runs[-1][1] = at + 1
        else:
            runs.append([at, at + 1])
    if len(runs) * _SHORTEST_RUN > len(positions):
        return itemgetter(*positions)
    if len(runs) == 1:
        return itemgetter(slice(*runs[0]))
    slices = itemgetter(*(slice(start, stop) for start, stop in runs))
    return lambda values: chain.from_iterable(slices(values))


_SHORTEST_RUN = 8  # positions per run, on average, for slices to beat an itemgetter


def values_at(positions: Sequence[int]) -> Values:
    """`in_order` of any number of positions (one or none too)."""
    if len(positions) > 1:
        return in_order(positions)
    return lambda values: [values[at] for at in positions]
