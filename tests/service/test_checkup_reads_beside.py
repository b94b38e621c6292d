"""A snapshot's statistics files read by the inventory's child process (when their results
have come) give the same statistics and report as read in this process."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from demo_host import shared_demo_root

from pinchpoint.checks.collect import inventory as inventory_module
from pinchpoint.checks.collect.inventory import ReadBeside
from pinchpoint.checks.source import Source
from pinchpoint.checks.source.choose import open_source
from pinchpoint.rules.config import Config
from pinchpoint.service.checkup import Checkup, check_source
from pinchpoint.stats.gather import gather_statistics

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")


def _statistics(checkup: Checkup) -> list[str]:
    found = checkup.statistics
    return [
        repr(found.tables),
        *(i.model_dump_json() for i in found.intervals),
        *(i.model_dump_json() for i in found.imported),
        repr(found.notes),
        repr(found.latency),
    ]


def test_the_childs_reads_give_what_reading_here_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    taken: list[bool] = []
    result = ReadBeside.result

    def from_the_child(self: ReadBeside[object], source: Source) -> object:
        child = self._child
        if child is not None:  # wait for the child, which `result` never does
            child._process.join(60)
            got = child.then_result(self._position)
            taken.append(got is not None)
            self._done = got
        return result(self, source)

    with open_source(Path(shared_demo_root())) as (source, kind):
        alone = check_source(source, kind=kind, live=False, config=Config())
        monkeypatch.setattr(inventory_module.ReadBeside, "result", from_the_child)
        beside = check_source(source, kind=kind, live=False, config=Config())
        here = gather_statistics(source, beside.inventory, live=False)
    assert taken == [True, True]  # the diskstats samples, the zpool histograms
    assert _statistics(beside) == _statistics(alone)
    assert [i.model_dump_json() for i in here.imported] == [
        i.model_dump_json() for i in beside.statistics.imported
    ]
    assert beside.report.model_dump_json(exclude={"generated_at"}) == alone.report.model_dump_json(
        exclude={"generated_at"}
    )
