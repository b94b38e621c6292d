"""`pinchpoint capture`: a snapshot of everything the collectors read, for analysis elsewhere.

The collectors run once over a `RecordingSource`, which writes each file, directory, symlink and
command output it hands out into the snapshot at its host path. So the snapshot holds exactly
what the inventory needs, nothing the collectors do not read, and reads back the same offline.
"""

from __future__ import annotations

import json
import os
import shutil
import tarfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from pinchpoint.checks.collect.collector import Progress
from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.collect.latency_recording import RecordingError, record_block_latency
from pinchpoint.checks.collect.samples import record_samples
from pinchpoint.checks.parse.diskstats import DISKSTATS
from pinchpoint.checks.parse.netdev import NET_DEV
from pinchpoint.checks.parse.uptime import UPTIME
from pinchpoint.checks.source import RecordingSource
from pinchpoint.checks.source.commands import Command, run_command
from pinchpoint.checks.source.scratch import Scratch
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.snapshot import Manifest

# Each tool's version flag; sg3_utils print their version on stderr.
TOOL_VERSION_COMMANDS: dict[str, tuple[str, ...]] = {
    "sg_ses": ("sg_ses", "--version"),
    "smartctl": ("smartctl", "--version"),
    "ethtool": ("ethtool", "--version"),
    "lsscsi": ("lsscsi", "--version"),
    "multipath": ("multipath", "-h"),
}
# Read for the manifest only, so a snapshot names its host even without collectors needing it.
IDENTITY_FILES = ("/proc/sys/kernel/hostname", "/proc/sys/kernel/osrelease")
# The host's counters, kept at the top level as the snapshot's own sample (uptime times them).
COUNTERS = (DISKSTATS, UPTIME, NET_DEV)


@dataclass
class CaptureResult:
    path: Path
    inventory: Inventory


def tool_versions() -> dict[str, str]:
    """The first line each installed tool prints about its version."""
    found = {}
    for name, argv in TOOL_VERSION_COMMANDS.items():
        result = run_command(Command(argv=argv, key=f"versions/{name}", timeout_s=5.0))
        text = (result.stdout or result.stderr).strip()
        if result.returncode is not None and text:
            found[name] = text.splitlines()[0].strip()
    return found


def capture(
    out: Path,
    *,
    root: str = "/",
    progress: Progress | None = None,
    samples: int = 0,
    interval_s: float = 10.0,
    record_s: float = 0.0,
) -> CaptureResult:
    """Write a snapshot directory at `out` (which must not exist or be empty), with `samples`
    diskstats samples `interval_s` apart under `samples/<n>/` for `pinchpoint stats diff`, and
    `record_s` seconds of per-I/O latency recorded in the kernel (`docs/ebpf.md`)."""
    if out.exists() and any(out.iterdir()):
        raise FileExistsError(f"{out} exists and is not empty")
    out.mkdir(parents=True, exist_ok=True)
    source = RecordingSource(out, root=root)
    for path in IDENTITY_FILES:
        if source.exists(path):
            source.read_text(path)
    inventory = collect_inventory(source, progress=progress)
    # the counters as of the capture, back to back: a snapshot without samples/ is itself one
    # sample, so two captures compare (`stats diff A B`, docs/snapshot-format.md)
    for path in COUNTERS:
        if source.exists(path):
            source.read_bytes(path)
    if samples > 0:
        if progress is not None:
            progress(f"recording {samples} diskstats samples, {interval_s:g} s apart")
        inventory.problems.extend(record_samples(out, samples, interval_s, root=root))
    if record_s > 0:
        if progress is not None:
            progress(f"recording per-I/O latency for {record_s:g} s (eBPF)")
        try:
            record_block_latency(source, record_s, [])
        except RecordingError as err:
            inventory.problems.append(err.problem())
    manifest = Manifest(
        hostname=inventory.host.hostname,
        kernel=inventory.host.kernel,
        captured_at=datetime.now().astimezone(),
        tools=tool_versions(),
    )
    payload = manifest.model_dump(mode="json", exclude_none=True)
    payload["problems"] = [p.model_dump(mode="json") for p in inventory.problems]
    (out / "manifest.json").write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    return CaptureResult(out, inventory)


def archive_name(out: Path) -> Path:
    name = out.name
    for suffix in (".tar.gz", ".tgz"):
        name = name.removesuffix(suffix)
    return out.with_name(name + ".tar.gz")


def capture_tarball(
    out: Path,
    *,
    root: str = "/",
    progress: Progress | None = None,
    samples: int = 0,
    interval_s: float = 10.0,
    record_s: float = 0.0,
) -> CaptureResult:
    """Capture into a temporary directory and pack it as `OUT.tar.gz` (one top directory)."""
    target = archive_name(out)
    if target.exists():
        raise FileExistsError(f"{target} exists")
    top = target.name.removesuffix(".tar.gz")
    with Scratch("capture-") as tmp:
        staged = Path(tmp, top)
        result = capture(
            staged,
            root=root,
            progress=progress,
            samples=samples,
            interval_s=interval_s,
            record_s=record_s,
        )
        partial = target.with_name(target.name + ".part")
        with tarfile.open(partial, "w:gz") as archive:
            archive.add(staged, arcname=top)
        os.replace(partial, target)
        shutil.rmtree(staged, ignore_errors=True)
    return CaptureResult(target, result.inventory)
