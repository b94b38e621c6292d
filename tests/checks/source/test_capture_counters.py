"""A capture without `--samples` keeps the host's counters (`/proc/diskstats`, `/proc/uptime`,
`/proc/net/dev`) at its top level, so that the snapshot is itself one sample and two captures
compare with `stats diff A B` (docs/snapshot-format.md promised it; the counters were left out,
and `stats diff` refused both snapshots)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from typer.testing import CliRunner

from pinchpoint.checks.collect.diskstats import read_table_series
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.checks.source.capture import capture
from pinchpoint.cli import app


def _write_through_the_disk(where: Path) -> None:
    """Some writes that reach a block device between the two captures."""
    with open(where / "written", "wb") as out:
        for _ in range(64):
            out.write(os.urandom(65536))
            out.flush()
            os.fsync(out.fileno())


def test_two_captures_compare_as_two_samples(tmp_path: Path) -> None:
    capture(tmp_path / "a")
    _write_through_the_disk(tmp_path)
    time.sleep(0.1)  # /proc/uptime counts hundredths: the two samples are apart
    capture(tmp_path / "b")
    for name in ("a", "b"):
        proc = tmp_path / name / "proc"
        assert (proc / "diskstats").is_file() and (proc / "uptime").is_file()
        assert (proc / "net" / "dev").is_file()
        (table,) = read_table_series(SnapshotSource(tmp_path / name))
        assert table.problems == [] and table.names and table.uptime_s
    result = CliRunner().invoke(
        app, ["stats", "diff", str(tmp_path / "a"), str(tmp_path / "b"), "--json"]
    )
    assert result.exit_code == 0, result.output
    diff = json.loads(result.stdout)
    assert diff["interval_s"] > 0
    assert diff["devices"]
    if os.major(os.stat(tmp_path).st_dev) != 0:  # on a block device (not tmpfs): its writes
        assert sum(device["wkB/s"] for device in diff["devices"]) > 0
