"""ZFS in simulated snapshots: `collect_zfs` reads back the pools and parameters of a spec."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from fixture_paths import FIXTURES, SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.collect.zfs import collect_zfs
from pinchpoint.checks.parse.zpool_status import parse_zpool_status
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.checks.source.sysfs import ProblemLog
from pinchpoint.model.zfs import VdevKind, VdevRole, ZfsInventory
from pinchpoint.simulator import SpecError, load_spec, spec_from_data, write_snapshot
from pinchpoint.simulator.snapshot_writer import kernel_view
from pinchpoint.simulator.zfs import DEFAULT_PARAMETERS, partitions

FIXTURE = FIXTURES / "zfs"


@pytest.fixture(scope="module")
def mirror_root(scenario: Callable[[str], Path]) -> Path:
    return scenario("zfs_mirror")


@pytest.fixture(scope="module")
def mirror(mirror_root: Path) -> tuple[ZfsInventory, ProblemLog]:
    log = ProblemLog()
    return collect_zfs(SnapshotSource(mirror_root), log), log


def _enclosure_of_lu() -> dict[str, tuple[str, int]]:
    view = kernel_view(load_spec(SPECS / "zfs_mirror.toml"))
    return {
        f"{d.lu_name:016x}": (e.name, bay)
        for e in view.fabric.enclosures
        for bay, d in e.disks.items()
    }


def test_pool_of_twelve_mirrors_across_jbods(mirror: tuple[ZfsInventory, ProblemLog]) -> None:
    inv, log = mirror
    assert log.problems() == []
    assert inv.present and inv.module_version == "2.1.11-1"
    (pool,) = inv.pools
    assert (pool.name, pool.state, pool.errors, pool.data_errors) == (
        "tank",
        "ONLINE",
        "No known data errors",
        0,
    )
    assert [v.name for v in pool.vdevs] == [f"mirror-{i}" for i in range(12)]
    where = _enclosure_of_lu()
    for bay, vdev in enumerate(pool.vdevs):
        assert vdev.kind is VdevKind.MIRROR and vdev.role is VdevRole.DATA
        assert vdev.state == "ONLINE"
        sides = []
        for leaf in vdev.children:
            assert leaf.state == "ONLINE" and leaf.read_errors == 0
            assert leaf.device_path == leaf.name
            lu = leaf.name.removeprefix("/dev/disk/by-id/wwn-0x").removesuffix("-part1")
            sides.append(where[lu])
        assert sides == [("JBOD-L", bay), ("JBOD-R", bay)]


def test_every_leaf_joins_its_block_device(
    mirror: tuple[ZfsInventory, ProblemLog], mirror_root: Path
) -> None:
    (pool,) = mirror[0].pools
    leaves = pool.leaves()
    assert len(leaves) == 24
    devices = set()
    for leaf in leaves:
        part = leaf.block_device
        assert part is not None and part.startswith("sd") and part.endswith("1")
        disk = part[:-1]
        devices.add(disk)
        base = mirror_root / "sys" / "block" / disk
        lu = leaf.name.removeprefix("/dev/disk/by-id/wwn-0x").removesuffix("-part1")
        assert (base / "device" / "wwid").read_text() == f"naa.{lu}\n"
        assert (base / part / "start").read_text() == "2048\n"
        assert (base / part / "partition").read_text() == "1\n"
    assert len(devices) == 24


def test_block_collector_sees_the_partitions(mirror_root: Path) -> None:
    inv = collect_inventory(SnapshotSource(mirror_root))
    assert [p.line() for p in inv.problems] == []
    assert inv.zfs.pools and inv.zfs.pools[0].name == "tank"
    sda = next(d for d in inv.block.devices if d.name == "sda")
    assert [(p.number, p.start_sectors) for p in sda.partitions] == [(1, 2048), (9, 23437752320)]


def test_vdev_queue_parameters(mirror: tuple[ZfsInventory, ProblemLog]) -> None:
    params = mirror[0].vdev_queue_parameters
    assert params["zfs_vdev_async_read_max_active"] == 8
    assert params["zfs_vdev_sync_read_max_active"] == 10
    assert params["zfs_vdev_async_write_max_active"] == 10
    assert params["zfs_vdev_scrub_max_active"] == 3
    assert params["zfs_vdev_max_active"] == 1000
    assert "zfs_vdev_aggregation_limit" not in params


def test_defaults_match_the_hand_built_snapshot() -> None:
    parameters = FIXTURE / "snapshot-tank" / "sys" / "module" / "zfs" / "parameters"
    for path in parameters.iterdir():
        if path.name in DEFAULT_PARAMETERS:
            assert int(path.read_text()) == DEFAULT_PARAMETERS[path.name], path.name


def test_partitions_of_a_12_tb_disk() -> None:
    assert partitions(12000138625024) == [(1, 2048, 23437750272), (9, 23437752320, 16384)]


def _spec(pool: dict[str, object], **enclosure: object) -> dict[str, object]:
    return {
        "hba": [{"name": "h"}],
        "enclosure": [{"name": "J", "bays": 12, **enclosure}],
        "chain": [{"hba": "h", "enclosures": ["J"]}],
        "zfs": {"pool": [pool]},
    }


def test_raidz2_with_log_cache_spares_and_a_disk_gone(tmp_path: Path) -> None:
    pool = {
        "name": "data",
        "enclosures": ["J"],
        "layout": "raidz2",
        "order": "enclosure",
        "log": [{"enclosure": "J", "bay": 8}, {"enclosure": "J", "bay": 9}],
        "cache": [{"enclosure": "J", "bay": 10}],
        "spares": [{"enclosure": "J", "bay": 11}],
    }
    data = _spec(pool, io_modules=1, missing_disk_paths=[{"bay": 2, "io_module": "A"}])
    spec = spec_from_data(data)
    write_snapshot(spec, tmp_path / "s")
    text = (tmp_path / "s" / "commands" / "zpool" / "status.txt").read_text()
    status = parse_zpool_status(text)
    assert status.warnings == []
    (parsed,) = status.pools
    assert parsed.state == "DEGRADED" and parsed.status is not None
    roles = [(v.name, v.role, v.state) for v in parsed.vdevs]
    assert roles[0] == ("raidz2-0", VdevRole.DATA, "DEGRADED")
    assert roles[1][1:] == (VdevRole.LOG, "ONLINE") and roles[1][0] == "mirror-1"
    assert [r[1] for r in roles[2:]] == [VdevRole.CACHE, VdevRole.SPARE]
    assert roles[3][2] == "AVAIL"
    gone = parsed.vdevs[0].children[2]
    assert gone.state == "UNAVAIL" and gone.note is not None and gone.note.startswith("was ")
    assert len(parsed.vdevs[0].children) == 6


@pytest.mark.parametrize(
    ("pool", "message"),
    [
        ({"name": "p", "enclosures": ["X"]}, "zfs.pool[0].enclosures: unknown enclosure 'X'"),
        (
            {"name": "p", "enclosures": ["J"], "spares": [{"enclosure": "J", "bay": 30}]},
            "zfs.pool[0].spares[0].bay: bay 30 holds no disk",
        ),
        ({"name": "p", "enclosures": ["J"], "layout": "raidz2", "width": 2}, "at least 3"),
    ],
)
def test_bad_pools_are_refused(pool: dict[str, object], message: str) -> None:
    with pytest.raises(SpecError, match=message.replace("[", r"\[").replace("]", r"\]")):
        spec_from_data(_spec(pool))
