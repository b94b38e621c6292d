"""The topology simulator: a snapshot directory of an imagined storage host, from a small spec.

The snapshot looks like what `capture` writes from a real host (real sysfs layout and formats,
real relative symlinks, `sg_ses` text outputs), so the same collectors read it. It serves the
bundled demo host, tests of scenarios real captures cannot show, and benchmarks. How to write
a spec: docs/simulator.md.
"""

from __future__ import annotations

from pathlib import Path

from pinchpoint.simulator.snapshot_writer import kernel_view, write_snapshot
from pinchpoint.simulator.spec import HostSpec, SpecError, load_spec, spec_from_data

DEMO_SPEC_PATH = Path(__file__).parent / "specs" / "demo.toml"


def demo_spec() -> HostSpec:
    """The bundled demo host: field case 1, three HBAs and six miscabled JBODs (and a healthy
    rest of host: an LACP bond of two 10 GbE ports, a management port, SMART for every disk)."""
    return load_spec(DEMO_SPEC_PATH)


__all__ = [
    "DEMO_SPEC_PATH",
    "HostSpec",
    "SpecError",
    "demo_spec",
    "kernel_view",
    "load_spec",
    "spec_from_data",
    "write_snapshot",
]
