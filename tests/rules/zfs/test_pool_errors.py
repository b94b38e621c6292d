"""`zfs.pool.errors` on real captures and on a simulated pool across two JBODs."""

from __future__ import annotations

from pinchpoint.model.inventory import Inventory
from pinchpoint.model.zfs import Pool
from tests.rules.zfs.conftest import (
    COSIUM_CKSUM,
    HEALTHY_REAL,
    OSM_FAULTED,
    UNRAID_RESILVER,
    captured,
    zfs_findings,
)

RULE = "zfs.pool.errors"


def test_checksum_errors_on_an_online_pool_are_found() -> None:
    """Cosium: rpool ONLINE (ZFS-8000-9P), sdd with 33 checksum errors and nothing DEGRADED —
    what the monitoring of that issue missed."""
    (finding,) = zfs_findings(captured(COSIUM_CKSUM), RULE)
    assert finding.entity.name == "pool rpool"
    assert "sdd (checksum 33)" in finding.evidence[0].summary
    assert finding.title == "pool rpool: 33 I/O errors on 1 device"


def test_a_faulted_disk_is_left_to_the_degraded_rule() -> None:
    """osm-fr: the only disk counting errors is FAULTED: `zfs.pool.degraded` names it."""
    assert zfs_findings(captured(OSM_FAULTED), RULE) == []


def test_data_errors_and_resilvering_disks_with_checksum_errors() -> None:
    (finding,) = zfs_findings(captured(UNRAID_RESILVER), RULE)
    facts = {f.name: f.value for f in finding.evidence[0].facts if f.entity is None}
    assert facts == {"devices counting errors": 2, "data errors": 1}
    assert "/dev/sdt1 (checksum 9)" in finding.evidence[0].summary
    assert "zpool status -v" in finding.evidence[0].summary


def test_no_errors_no_finding() -> None:
    assert zfs_findings(captured(HEALTHY_REAL), RULE) == []


def test_the_erroring_disk_is_named_by_enclosure_and_slot(simulated: Inventory) -> None:
    (finding,) = zfs_findings(simulated, RULE)
    (fact,) = [f for f in finding.evidence[0].facts if f.entity is not None]
    assert (fact.entity.name if fact.entity else None, fact.value) == (
        "JBOD-R slot 7 (SLOT 08)",
        "checksum 33",
    )


def test_errors_sharing_one_enclosure_point_at_it(simulated: Inventory) -> None:
    """Three disks of JBOD-R count checksum errors, none of JBOD-L: the enclosure (its
    expander, its cable) is the suspect before the disks."""
    inventory = simulated.model_copy(deep=True)
    (pool,) = inventory.zfs.pools
    _set_errors(pool, inventory, "JBOD-R", {7: 33, 8: 12, 9: 5})
    (finding,) = zfs_findings(inventory, RULE)
    assert "all in JBOD-R" in finding.evidence[0].summary


def test_the_balanced_pool_gives_nothing(balanced: Inventory) -> None:
    assert zfs_findings(balanced, RULE) == []


def _set_errors(pool: Pool, inventory: Inventory, enclosure: str, by_slot: dict[int, int]) -> None:
    """Checksum counts on the leaves of the disks in `enclosure`'s slots (the rest cleared)."""
    place = {e.id: e.name for e in inventory.sas.enclosures}
    kernel = {
        p.block_device: (place.get(d.enclosure_id or ""), d.slot)
        for d in inventory.sas.disks
        for p in d.paths
        if p.block_device
    }
    for leaf in pool.leaves():
        leaf.state = "ONLINE"
        leaf.read_errors = leaf.write_errors = leaf.checksum_errors = 0
        disk = (leaf.block_device or "").rstrip("0123456789")
        where = kernel.get(disk)
        if where is not None and where[0] == enclosure and where[1] in by_slot:
            leaf.checksum_errors = by_slot[where[1]]
