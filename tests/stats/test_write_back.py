"""Which devices hold a ZFS pool's write-back (`pinchpoint.stats.write_back`): the leaves of its
data, special and dedup vdevs and its cache devices; not its log devices nor idle spares."""

from __future__ import annotations

import tomllib
from pathlib import Path

from fixture_paths import SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.simulator import spec_from_data, write_snapshot
from pinchpoint.stats.write_back import write_back_entities


def test_log_devices_are_not_write_back(tmp_path: Path) -> None:
    """zfs_mirror.toml with bay 10 of both JBODs as a log mirror, bay 11 of JBOD-L as cache
    and of JBOD-R as a spare: the data mirrors and the cache hold write-back; the log's
    writes are what synchronous writers wait for, and the idle spare holds nothing."""
    with open(SPECS / "zfs_mirror.toml", "rb") as handle:
        data = tomllib.load(handle)
    pool = data["zfs"]["pool"][0]
    pool["log"] = [{"enclosure": "JBOD-L", "bay": 10}, {"enclosure": "JBOD-R", "bay": 10}]
    pool["cache"] = [{"enclosure": "JBOD-L", "bay": 11}]
    pool["spares"] = [{"enclosure": "JBOD-R", "bay": 11}]
    write_snapshot(spec_from_data(data), tmp_path / "host")
    inventory = collect_inventory(SnapshotSource(tmp_path / "host"))
    names = {e.id: e.name for e in inventory.sas.enclosures}
    place = {(names[d.enclosure_id or ""], d.slot): d.id for d in inventory.sas.disks}
    judged = write_back_entities(inventory)
    data_disks = {place[(jbod, bay)] for jbod in ("JBOD-L", "JBOD-R") for bay in range(10)}
    assert data_disks <= judged
    assert place[("JBOD-L", 11)] in judged  # cache: L2ARC is filled in the background
    assert place[("JBOD-L", 10)] not in judged and place[("JBOD-R", 10)] not in judged
    assert place[("JBOD-R", 11)] not in judged
    assert len(judged) == 21
