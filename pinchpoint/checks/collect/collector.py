"""What a domain collector is: one declaration that `inventory.py` runs like every other.

A domain of the inventory (the SAS fabric, PCIe links, NICs and bonds, FC ports, dm-multipath
maps, block devices, disk health, ZFS pools) is one module under `collect/` ending with its
`COLLECTOR`: the part its problems are filed under, the progress line said before it runs, and
`read`, which fills the domain's part of the inventory from a `Source`, recording what it could
not read in the `ProblemLog`. A domain that needs another's facts reads them from the inventory
(multipath paths name the FC ports already read); the list in `inventory.py` runs it after
that one. Adding a domain is one module and one line there.

A collector that fails is recorded as a problem ("collector failed: why") and its part stays
empty: nothing a host or a snapshot holds can make reading the inventory raise.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from pinchpoint.checks.source import Source
from pinchpoint.checks.source.sysfs import ProblemLog
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.problems import ProblemKind

__all__ = ["Collector", "Progress", "guarded", "run_collectors"]

log = logging.getLogger(__name__)

Progress = Callable[[str], None]
T = TypeVar("T")


@dataclass(frozen=True)
class Collector:
    """One domain of the inventory: `part` (in its problems), what progress `says` before it
    runs, and `read(source, problems, inventory, say)`, which fills its part of `inventory`."""

    part: str
    says: str
    read: Callable[[Source, ProblemLog, Inventory, Progress], None]


def _note_failure(problems: ProblemLog, part: str, err: Exception) -> None:
    log.debug("collector %s failed:\n%s", part, traceback.format_exc())
    problems.add(part, part, ProblemKind.FAILED, f"collector failed: {type(err).__name__}: {err}")


def guarded(part: str, problems: ProblemLog, fallback: T, step: Callable[[], T]) -> T:
    """What `step` returns; `fallback` when it fails unexpectedly, the failure a problem of
    `part` (the safety net: a collector bug must not lose the report)."""
    try:
        return step()
    except Exception as err:
        _note_failure(problems, part, err)
        return fallback


def run_collectors(
    collectors: Iterable[Collector],
    source: Source,
    problems: ProblemLog,
    inventory: Inventory,
    say: Progress,
) -> None:
    """Fill `inventory` with each collector in turn; one that fails leaves its part as it was."""
    for collector in collectors:
        say(collector.says)
        try:
            collector.read(source, problems, inventory, say)
        except Exception as err:  # the safety net: a collector bug must not lose the report
            _note_failure(problems, collector.part, err)
