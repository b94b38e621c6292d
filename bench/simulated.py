"""The simulated host a benchmark reads: simulated from a spec into the directory given with
`--keep` (on first use; reused after, so that before/after runs read the same host), or into a
scratch directory removed when the benchmark ends."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pinchpoint.checks.source.choose import scratch_dir
from pinchpoint.simulator import load_spec, write_snapshot


@contextmanager
def simulated_host(spec: Path, keep: Path | None, name: str) -> Iterator[Path]:
    """The snapshot of `spec`'s host: `keep` (simulated there if it does not exist yet), else
    `name` in a scratch directory for the length of the block."""
    with tempfile.TemporaryDirectory(dir=scratch_dir()) as scratch:
        snapshot = keep or Path(scratch, name)
        if not snapshot.exists():
            start = time.perf_counter()
            write_snapshot(load_spec(spec), snapshot)
            print(f"  simulated {spec.name}: {(time.perf_counter() - start) * 1000:,.0f} ms")
        yield snapshot
