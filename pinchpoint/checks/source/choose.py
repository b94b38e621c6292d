"""The one place that chooses where a host's facts are read from: this machine, a snapshot
(directory or tarball), or the bundled demo host simulated into a scratch directory. Every
command and the service open their source here."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pinchpoint.checks.source.base import Source
from pinchpoint.checks.source.live import LiveSource
from pinchpoint.checks.source.scratch import Scratch
from pinchpoint.checks.source.snapshot import open_snapshot
from pinchpoint.model.inventory import SourceKind

DEMO_SCRATCH_BYTES = 512 * 1024 * 1024  # the demo's 80,000 small files take ~290 MB of tmpfs


def scratch_dir() -> str | None:
    """Where to write a simulated host: /dev/shm when it is a roomy tmpfs (the demo's small
    files write in 0.8 s there against 5 s on a VM's disk), else the default temp dir (a
    container's /dev/shm is often 64 MB)."""
    shm = "/dev/shm"
    try:
        stats = os.statvfs(shm)
    except OSError:
        return None
    roomy = stats.f_bavail * stats.f_frsize >= DEMO_SCRATCH_BYTES
    return shm if roomy and os.access(shm, os.W_OK | os.X_OK) else None


def simulate_demo() -> Scratch:
    """The bundled demo host simulated into a fresh scratch directory (its snapshot is the
    `demo` folder inside) below this process's scratch (`scratch.py`: what a killed process
    leaves is removed by the next one); the caller cleans it up."""
    from pinchpoint.simulator import demo_spec, write_snapshot

    scratch = Scratch("demo-", base=scratch_dir())
    try:
        write_snapshot(demo_spec(), demo_snapshot(scratch))
    except BaseException:
        scratch.cleanup()
        raise
    return scratch


def demo_snapshot(scratch: Scratch) -> Path:
    """The snapshot directory `simulate_demo` wrote into `scratch`."""
    return Path(scratch.name, "demo")


@contextmanager
def open_source(
    snapshot: Path | None = None, *, demo: bool = False
) -> Iterator[tuple[Source, SourceKind | None]]:
    """The source to read a host through, and the kind to record for it (None: what the source
    says of itself). The demo host when `demo`, else the snapshot when given, else this host.
    Raises FileNotFoundError or ValueError for a snapshot that cannot be opened."""
    if demo and snapshot is not None:
        raise ValueError("a snapshot and the demo host exclude each other")
    if demo:
        with simulate_demo() as scratch, open_snapshot(Path(scratch, "demo")) as source:
            yield source, SourceKind.DEMO
    elif snapshot is not None:
        with open_snapshot(snapshot) as source:
            yield source, None
    else:
        yield LiveSource(), None
