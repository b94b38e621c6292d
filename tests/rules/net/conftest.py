"""The hosts the network rule tests share — simulated hosts of field cases 3 and 5 and the
demo, simulated once per session on tmpfs; the real procfs capture with a real `ethtool` sample
as its NIC's — and how they run the network rules."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from fixture_paths import FIXTURES, ROOT, SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.findings import Finding
from pinchpoint.rules import net
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.engine import evaluate
from pinchpoint.simulator.snapshot_writer import write_snapshot
from pinchpoint.simulator.spec import load_spec
from pinchpoint.stats.gather import gather_statistics

ETHTOOL = FIXTURES / "network" / "ethtool"
SNAPSHOTS = FIXTURES / "network" / "snapshots"
DEMO = ROOT / "pinchpoint" / "simulator" / "specs" / "demo.toml"


def simulated(spec: Path, out: Path) -> RuleContext:
    """The context `check` builds for a simulated host: inventory and /proc/net/dev figures."""
    write_snapshot(load_spec(spec), out)
    source = SnapshotSource(out)
    inventory = collect_inventory(source)
    stats = gather_statistics(source, inventory, live=False, disks=False)
    return RuleContext(inventory=inventory, net_intervals=stats.net_intervals)


@pytest.fixture(scope="session")
def hosts() -> Iterator[dict[str, RuleContext]]:
    """The simulated hosts, written to tmpfs where there is one (simulating is disk-bound)."""
    shm = Path("/dev/shm")
    scratch = tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None)
    root = Path(scratch.name)
    specs = {
        "downgraded_nic": SPECS / "downgraded_nic.toml",
        "nic_peer_outlier": SPECS / "nic_peer_outlier.toml",
        "degraded_network": SPECS / "degraded_network.toml",
        "all_dual_pathed": SPECS / "all_dual_pathed.toml",
        "demo": DEMO,
    }
    with scratch:
        yield {name: simulated(spec, root / name) for name, spec in specs.items()}


def findings(context: RuleContext) -> list[Finding]:
    found, _, _ = evaluate(context, net.RULES)
    return found


def by_rule(context: RuleContext, rule: str) -> dict[str, Finding]:
    """The findings of one rule (folded ones too) by entity name's first word."""
    found, _, _ = evaluate(context, [r for r in net.RULES if r.id == rule])
    return {f.entity.name.split()[0]: f for f in found}


def with_ethtool(tmp_path: Path, sample: str, speed: int) -> RuleContext:
    """The real procfs e1000e capture with a real `ethtool` sample as its eth0's and its speed
    in sysfs (the NIC's speed file made to agree with the sample, as the kernel's would). A
    sample taken of another interface gets its "Settings for" line renamed to eth0."""
    root = tmp_path / "snapshot"
    shutil.copytree(SNAPSHOTS / "procfs-e1000e", root, symlinks=True)
    text = (ETHTOOL / sample).read_text()
    (root / "commands/ethtool/eth0.txt").write_text(
        text.replace("Settings for eth1:", "Settings for eth0:")
    )
    (root / "sys/class/net/eth0/speed").write_text(f"{speed}\n")
    return RuleContext(inventory=collect_inventory(SnapshotSource(root)))
