"""A snapshot's diskstats samples read by the inventory's child process give the same
statistics and report as read in this process."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from demo_host import shared_demo_root

from pinchpoint.checks.collect.inventory import ReadBeside
from pinchpoint.checks.source.choose import open_source
from pinchpoint.rules.catalog import CATALOG
from pinchpoint.rules.config import Config
from pinchpoint.rules.engine import build_report, rule_context
from pinchpoint.service.checkup import check_source
from pinchpoint.stats.gather import HostStatistics, gather_statistics

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")


def _figures(found: HostStatistics) -> list[str]:
    return [
        repr(found.tables),
        *(i.model_dump_json() for i in found.intervals),
        *(i.model_dump_json() for i in found.imported),
        repr(found.notes),
        repr(found.latency),
    ]


def test_the_samples_the_child_read_give_what_reading_here_gives(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    taken: list[bool] = []
    take = ReadBeside.take

    def noted(self: ReadBeside[object], done: tuple[object] | None) -> None:
        taken.append(done is not None)
        take(self, done)

    monkeypatch.setattr(ReadBeside, "take", noted)
    with open_source(Path(shared_demo_root())) as (source, kind):
        checkup = check_source(source, kind=kind, live=False, config=Config())
        here = gather_statistics(source, checkup.inventory, live=False)
    assert taken == [True]  # read by the child, and come back
    assert _figures(checkup.statistics) == _figures(here)
    report = build_report(rule_context(checkup.inventory, here), CATALOG)
    assert checkup.report.findings == report.findings
