"""`zfs.pool.degraded` on real `zpool status` captures and on a simulated pool whose disks sit
in two JBODs (so each failed disk is named by enclosure and slot)."""

from __future__ import annotations

from pinchpoint.model.findings import Severity
from pinchpoint.model.inventory import Inventory
from tests.rules.zfs.conftest import (
    COSIUM_CKSUM,
    HEALTHY_REAL,
    OSM_FAULTED,
    UNRAID_RESILVER,
    captured,
    zfs_findings,
)

RULE = "zfs.pool.degraded"


def test_a_mirror_with_one_side_faulted_has_no_redundancy_left() -> None:
    """osm-fr: local-zfs DEGRADED, mirror-0 with wwn-0x5000cca245c1984b FAULTED (1/29/4)."""
    (finding,) = zfs_findings(captured(OSM_FAULTED), RULE)
    assert finding.severity is Severity.CRITICAL
    assert finding.entity.name == "pool local-zfs"
    assert "no redundancy left" in finding.title
    summary = finding.evidence[0].summary
    assert "wwn-0x5000cca245c1984b FAULTED in mirror-0 (read 1, write 29, checksum 4)" in summary
    assert "too many errors" in summary
    facts = {f.name: f.value for f in finding.evidence[0].facts}
    assert facts["more disks each data vdev can lose"] == 0
    assert "zpool replace local-zfs" in finding.remediation


def test_a_raidz2_resilvering_onto_a_new_disk_can_lose_one_more() -> None:
    """unraid: raidz2-0 DEGRADED, replacing-2 with the old disk UNAVAIL (by GUID) and the new
    one resilvering: one of two parity disks in use, a warning."""
    (finding,) = zfs_findings(captured(UNRAID_RESILVER), RULE)
    assert finding.severity is Severity.WARNING
    facts = {f.name: f.value for f in finding.evidence[0].facts}
    assert facts["more disks each data vdev can lose"] == 1
    assert "11687508470009778260 UNAVAIL in raidz2-0" in finding.evidence[0].summary
    assert "was /dev/sdv1/old" in finding.evidence[0].summary


def test_online_pools_are_not_degraded() -> None:
    assert zfs_findings(captured(COSIUM_CKSUM), RULE) == []  # errors, but ONLINE
    assert zfs_findings(captured(HEALTHY_REAL), RULE) == []


def test_failed_disks_are_named_by_enclosure_and_slot(simulated: Inventory) -> None:
    (finding,) = zfs_findings(simulated, RULE)
    assert finding.severity is Severity.CRITICAL
    named = {f.entity.name for f in finding.evidence[0].facts if f.entity is not None}
    assert named == {"JBOD-L slot 3 (SLOT 04)", "JBOD-L slot 9 (SLOT 10)"}
    facts = {f.name: f.value for f in finding.evidence[0].facts}
    assert facts["devices not online"] == 2
    assert "zpool online tank" in finding.remediation


def test_a_balanced_healthy_pool_gives_nothing(balanced: Inventory) -> None:
    assert zfs_findings(balanced, RULE) == []
