"""The bundled demo host simulated once per test process and shared, read-only.

The demo is six 60-bay shelves: 80,000 small files that take 2–4 s to write and 1–2 s to
remove. Every demo service, every in-process `--demo` run and every test that only reads the
demo's snapshot uses this one copy (its bytes are the same on every simulation:
`tests/simulator/test_same_spec_same_bytes`). A test that changes a snapshot copies it first.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from pathlib import Path

from pinchpoint.checks.source import choose
from pinchpoint.checks.source.choose import scratch_dir
from pinchpoint.simulator import demo_spec, write_snapshot

REAL_SIMULATE_DEMO = choose.simulate_demo  # for the tests of the simulation and its removal

_lock = threading.Lock()
_parent: Path | None = None


def shared_demo_parent() -> Path:
    """The directory whose `demo` folder holds this process's one demo snapshot (written on
    first use, where `simulate_demo` would write it: /dev/shm when roomy)."""
    global _parent
    with _lock:
        if _parent is None:
            parent = Path(tempfile.mkdtemp(prefix="pinchpoint-test-demo-", dir=scratch_dir()))
            write_snapshot(demo_spec(), parent / "demo")
            _parent = parent
        return _parent


def shared_demo_root() -> Path:
    """This process's demo snapshot (read-only for tests)."""
    return shared_demo_parent() / "demo"


def remove_shared_demo() -> None:
    """Remove the demo snapshot at the end of the session, if one was written."""
    global _parent
    with _lock:
        if _parent is not None:
            shutil.rmtree(_parent, ignore_errors=True)
            _parent = None


class SharedDemoScratch:
    """What `simulate_demo` returns in tests: the shared copy, which `cleanup` leaves in place
    (the session removes it)."""

    def __init__(self) -> None:
        self.name = str(shared_demo_parent())

    def cleanup(self) -> None:
        """The shared copy outlives each user."""

    def __enter__(self) -> str:
        return self.name

    def __exit__(self, *exc: object) -> None:
        self.cleanup()
