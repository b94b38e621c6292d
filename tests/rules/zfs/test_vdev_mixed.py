"""`zfs.vdev.mixed` on simulated pools: mirrors pairing 12 TB HDDs with 3.84 TB SSDs, and a
pool of one disk model."""

from __future__ import annotations

from pinchpoint.model.inventory import Inventory
from tests.rules.zfs.conftest import HEALTHY_REAL, OSM_FAULTED, captured, zfs_findings

RULE = "zfs.vdev.mixed"


def test_every_mirror_of_an_hdd_and_an_ssd_is_mixed(mixed: Inventory) -> None:
    found = zfs_findings(mixed, RULE)
    assert len(found) == 12
    first = next(f for f in found if f.entity.name == "pool tank mirror-0")
    assert first.title == "pool tank mirror-0 mixes disk kinds and capacities"
    summary = first.evidence[0].summary
    assert "1 × HDD 7200 rpm, 1 × SSD" in summary
    assert "the vdev holds only 3.49 TiB per disk" in summary
    members = {f.entity.name for f in first.evidence[0].facts if f.entity is not None}
    assert members == {"JBOD-L slot 0 (SLOT 01)", "JBOD-R slot 0 (SLOT 01)"}


def test_one_disk_model_is_not_mixed(balanced: Inventory) -> None:
    assert zfs_findings(balanced, RULE) == []


def test_disks_the_inventory_does_not_know_are_not_judged() -> None:
    """A capture of `zpool status` alone: no disk kinds or sizes to compare."""
    assert zfs_findings(captured(OSM_FAULTED), RULE) == []
    assert zfs_findings(captured(HEALTHY_REAL), RULE) == []
