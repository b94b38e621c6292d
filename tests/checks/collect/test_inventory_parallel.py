"""Block devices and disk health read in a forked child give the same inventory as one process,
and a child that dies costs time, never facts."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from demo_host import shared_demo_root
from fixture_paths import SPECS

from pinchpoint.checks.collect import inventory as inventory_module
from pinchpoint.checks.collect.inventory import ReadBeside, collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.checks.source.sysfs import MAX_PROBLEMS_PER_KIND, ProblemLog
from pinchpoint.model.problems import ProblemKind
from pinchpoint.simulator import load_spec, write_snapshot

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")


@pytest.fixture(scope="module")
def demo_snapshot() -> Path:
    return shared_demo_root()


def test_child_process_reads_the_same_inventory(demo_snapshot: Path) -> None:
    alone = collect_inventory(SnapshotSource(demo_snapshot), parallel=False)
    forked = collect_inventory(SnapshotSource(demo_snapshot), parallel=True)
    assert len(forked.block.devices) == len(alone.block.devices) == 600
    assert len(forked.health.disks) == 360
    assert forked.model_dump_json(exclude={"host"}) == alone.model_dump_json(exclude={"host"})


def test_progress_of_the_child_reaches_the_caller(demo_snapshot: Path) -> None:
    messages: list[str] = []
    collect_inventory(SnapshotSource(demo_snapshot), parallel=True, progress=messages.append)
    assert "reading block devices" in messages
    assert "smartctl 360/360" in messages


def test_a_dead_child_falls_back_to_reading_here(
    demo_snapshot: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def die(*_args: object) -> None:
        os._exit(3)

    monkeypatch.setattr(inventory_module, "_read_beside", die)
    found = collect_inventory(SnapshotSource(demo_snapshot), parallel=True)
    assert len(found.health.disks) == 360
    assert found.problems == []


def test_small_hosts_and_recording_sources_stay_in_one_process(
    demo_snapshot: Path, tmp_path: Path
) -> None:
    from pinchpoint.checks.source import RecordingSource

    # one 4U60 on two HBAs: 120 block devices, below PARALLEL_MIN_BLOCK_DEVICES
    small = tmp_path / "jbod_4u60"
    write_snapshot(load_spec(SPECS / "jbod_4u60.toml"), small)
    assert len(os.listdir(small / "sys" / "block")) < inventory_module.PARALLEL_MIN_BLOCK_DEVICES
    assert not inventory_module._worth_a_child(SnapshotSource(small), None)
    assert inventory_module._worth_a_child(SnapshotSource(small), True)
    assert not inventory_module._worth_a_child(SnapshotSource(small), False)
    # the demo has 600: a child reads block devices, SMART and ZFS beside the SAS walk
    assert inventory_module._worth_a_child(SnapshotSource(demo_snapshot), None)
    recording = RecordingSource(tmp_path / "rec", root=str(demo_snapshot))
    assert not inventory_module._worth_a_child(recording, True)


def test_absorbed_problems_keep_the_per_kind_cap() -> None:
    child, parent = ProblemLog(), ProblemLog()
    for n in range(MAX_PROBLEMS_PER_KIND + 5):
        child.add("block", f"/sys/block/sd{n}", ProblemKind.GARBLED, "bad")
    parent.add("block", "/sys/block/sdz", ProblemKind.GARBLED, "bad")
    parent.absorb(child)
    lines = parent.problems()
    assert len(lines) == MAX_PROBLEMS_PER_KIND + 1
    assert lines[-1].reason == "6 more problems of this kind"


@pytest.mark.parametrize("parallel", [False, True])
def test_known_health_is_used_instead_of_running_smartctl(
    demo_snapshot: Path, parallel: bool
) -> None:
    """The service reads SMART hourly: between, a sweep passes the health it has."""
    first = collect_inventory(SnapshotSource(demo_snapshot), parallel=False)
    said: list[str] = []
    again = collect_inventory(
        SnapshotSource(demo_snapshot),
        parallel=parallel,
        known_health=first.health,
        progress=said.append,
    )
    assert again.health == first.health and len(again.health.disks) == 360
    assert not any("smartctl" in message for message in said)
    assert again.block == first.block


def test_more_reading_is_done_by_the_child_and_comes_back(demo_snapshot: Path) -> None:
    source = SnapshotSource(demo_snapshot)
    beside = ReadBeside(lambda _source: os.getpid())
    collect_inventory(source, parallel=True, also=beside)
    assert beside.result(source) != os.getpid()  # read in the child
    here = ReadBeside(lambda _source: os.getpid())
    collect_inventory(source, parallel=False, also=here)
    assert here.result(source) == os.getpid()  # no child: read when asked


def test_more_reading_that_fails_in_the_child_is_read_here(demo_snapshot: Path) -> None:
    parent = os.getpid()

    def only_here(_source: object) -> str:
        if os.getpid() != parent:
            raise OSError("not in the child")
        return "read here"

    source = SnapshotSource(demo_snapshot)
    beside = ReadBeside(only_here)
    found = collect_inventory(source, parallel=True, also=beside)
    assert beside.result(source) == "read here"
    assert len(found.block.devices) == 600  # the child's own parts came back all the same


def test_queue_depths_left_to_the_child_come_from_its_block_devices(
    demo_snapshot: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The SAS walk leaves each path's queue depth to the block devices read beside it (the
    same file); one the child did not list is read here, from the SCSI device."""
    alone = collect_inventory(SnapshotSource(demo_snapshot), parallel=False)
    depths = {p.block_device: p.queue_depth for d in alone.sas.disks for p in d.paths}
    dropped = alone.sas.disks[0].paths[0].block_device
    assert dropped is not None and depths[dropped] is not None
    real = inventory_module._read_beside

    def without_one(*args: Any) -> inventory_module.ChildResult:
        block, health, zfs, problems, more = real(*args)
        block.devices = [d for d in block.devices if d.name != dropped]
        return block, health, zfs, problems, more

    monkeypatch.setattr(inventory_module, "_read_beside", without_one)
    forked = collect_inventory(SnapshotSource(demo_snapshot), parallel=True)
    assert {p.block_device: p.queue_depth for d in forked.sas.disks for p in d.paths} == depths
    assert dropped not in {d.name for d in forked.block.devices}
