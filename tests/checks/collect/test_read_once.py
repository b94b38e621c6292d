"""Every file of a host is read at most once per inventory, in one process or with the block
devices read by a forked child beside the SAS walk (issue 17: `inventory` read 1,940 sysfs
files twice). Counted on real captures: an mpt3sas host (its HBA's PCIe link was read by the
SAS walk and by the PCIe collector) and a host with device-mapper devices."""

from __future__ import annotations

import gc
import os
import posixpath
from collections import Counter
from pathlib import Path
from types import FrameType

import pytest

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.simulator import load_spec, write_snapshot
from tests.fixture_paths import FIXTURES, SPECS

CAPTURES = [FIXTURES / "snapshots" / "procfs-mpt3sas", FIXTURES / "block" / "procfs"]


def reads_per_path(
    snapshot: Path, parallel: bool, log: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Counter[str], str]:
    """How often each host path was read while one inventory was taken (reads in a forked child
    counted too: each read is a line appended to `log`), and the inventory as JSON."""
    log.write_bytes(b"")
    fd = os.open(log, os.O_WRONLY | os.O_APPEND)
    real_read = SnapshotSource.read_bytes

    def counted(self: SnapshotSource, path: str, limit: int | None = None) -> bytes:
        os.write(fd, path.encode() + b"\n")
        return real_read(self, path, limit)

    monkeypatch.setattr(SnapshotSource, "read_bytes", counted)
    try:
        inventory = collect_inventory(SnapshotSource(snapshot), parallel=parallel)
    finally:
        os.close(fd)
        monkeypatch.undo()
    return Counter(log.read_text().splitlines()), inventory.model_dump_json()


@pytest.mark.parametrize("snapshot", CAPTURES, ids=lambda p: p.name)
def test_each_file_is_read_once_per_inventory(
    snapshot: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alone, alone_json = reads_per_path(snapshot, False, tmp_path / "alone", monkeypatch)
    forked, forked_json = reads_per_path(snapshot, True, tmp_path / "forked", monkeypatch)
    assert len(alone) > 100  # the capture was read
    assert [p for p, n in alone.items() if n > 1] == []
    assert [p for p, n in forked.items() if n > 1] == []
    assert set(forked) == set(alone)
    assert forked_json == alone_json  # the child's block devices joined to the SAS disks


def test_sas_disks_keep_size_and_rotation_when_the_block_devices_are_read_beside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, forked_json = reads_per_path(CAPTURES[0], True, tmp_path / "log", monkeypatch)
    inventory = collect_inventory(SnapshotSource(CAPTURES[0]), parallel=False)
    disks = [d for d in inventory.sas.disks if d.paths and d.paths[0].block_device]
    assert [d for d in disks if d.size_bytes]  # their sizes were captured (rotation was not)
    assert forked_json == inventory.model_dump_json()


@pytest.mark.parametrize("snapshot", CAPTURES, ids=lambda p: p.name)
def test_an_inventory_leaves_no_cycles_behind(snapshot: Path) -> None:
    """Once dropped, an inventory is freed at once, not kept by a reference cycle until the next
    full collection: a missing attribute's error cached by the read-once layer used to carry its
    traceback, whose frames held the cache and the whole inventory (issue 17: the service's memory
    grew by one inventory per sweep, 180,000 objects on the 1,920-path host)."""
    gc.collect()
    gc.disable()
    try:
        collect_inventory(SnapshotSource(snapshot), parallel=False)
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        kept = Counter(type(o).__module__ for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert {m: n for m, n in kept.items() if m.startswith("pinchpoint")} == {}
    assert not any(isinstance(o, FrameType) for o in gc.garbage)


def _by_file(reads: Counter[str], snapshot: Path) -> Counter[str]:
    """`reads` by the file each path is (a link resolved): one attribute reached by two names
    (`/sys/block/sda/device/wwid` and the SCSI device's own `wwid`) is one file."""
    files: Counter[str] = Counter()
    for path, count in reads.items():
        files[os.path.realpath(f"{snapshot}{path}")] += count
    return files


def test_a_sas_disk_path_s_attributes_are_read_once_under_either_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a simulated dual-pathed SAS host (288 disk paths): the block devices read a SCSI
    disk's `queue_depth` and `wwid` in the SCSI device's directory, where the SAS walk reads
    them, so in one process each file is read once. With the block devices read by a forked
    child, the one file both processes read is each path's `wwid` (the walk needs it to know a
    second path of a disk while the child reads beside it); `queue_depth` is left to the child."""
    snapshot = tmp_path / "host"
    write_snapshot(load_spec(SPECS / "all_dual_pathed.toml"), snapshot)
    alone, alone_json = reads_per_path(snapshot, False, tmp_path / "alone", monkeypatch)
    forked, forked_json = reads_per_path(snapshot, True, tmp_path / "forked", monkeypatch)
    assert forked_json == alone_json
    by_file = _by_file(alone, snapshot)
    assert sum(1 for p in alone if p.endswith("/wwid")) > 288  # the disks' paths were read
    assert [f for f, n in by_file.items() if n > 1] == []
    twice = [f for f, n in _by_file(forked, snapshot).items() if n > 1]
    assert len(twice) == 288
    assert {posixpath.basename(f) for f in twice} == {"wwid"}
