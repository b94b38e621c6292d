"""ZFS pools as `zpool status -P` shows them, and the vdev queue module parameters.

A pool is a tree: top-level vdevs (mirror-0, raidz2-1, or a single disk) in roles — data, log,
cache, spare, special, dedup — with leaf devices below. A leaf keeps its full device path (the
`-P` flag) so it joins the block inventory and, through it, the SAS fabric: the disks of one
JBOD, the vdevs whose sides share one HBA port.

The `zfs_vdev_*_max_active` module parameters (old ZFS: `zfs_vdev_max_pending`) are how many
I/Os ZFS keeps in flight per leaf device: the knob behind "device queue too deep".

Ids: `zpool:<pool>` (pool names are unique on a host and survive reboots and imports); a
top-level vdev is `zpool:<pool>/<name>` (`zpool:<pool>/<section>/<name>` in the logs, cache,
spares, special and dedup sections), and a vdev below it adds `/<its name as printed>` with a
path's leading slash dropped: `zpool:tank/raidz2-0/dev/disk/by-id/wwn-0x5000c500a0000001-part1`.
A disk listed twice (a spare in use) has one id per place.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field


def pool_id(pool: str) -> str:
    return f"zpool:{pool}"


class VdevRole(StrEnum):
    """Which section of the pool's config a vdev is listed in."""

    DATA = "data"  # below the pool's own line: where the data lives
    LOG = "log"  # "logs": separate intent log (SLOG)
    CACHE = "cache"  # L2ARC read cache
    SPARE = "spare"  # hot spares
    SPECIAL = "special"  # metadata / small-block allocation class
    DEDUP = "dedup"  # dedup table allocation class


class VdevKind(StrEnum):
    """What a vdev is, from its printed name (`mirror-0`, `raidz2-1`) or place (a leaf)."""

    MIRROR = "mirror"
    RAIDZ1 = "raidz1"
    RAIDZ2 = "raidz2"
    RAIDZ3 = "raidz3"
    DRAID = "draid"  # draid1:8d:12c:1s-0 and its kin
    REPLACING = "replacing"  # a disk being replaced: old and new side by side
    SPARE = "spare"  # a spare standing in for a disk ("spare-3")
    INDIRECT = "indirect"  # a removed top-level vdev whose data was remapped
    DISK = "disk"  # a leaf: a block device (or a device that could not be opened)
    FILE = "file"  # a leaf: a plain file (test pools)


class Vdev(BaseModel):
    """One line of the config tree with the vdevs below it."""

    id: str
    name: str  # as printed: "mirror-0", "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4-part1", a GUID
    kind: VdevKind
    role: VdevRole = VdevRole.DATA
    state: str | None = None  # ONLINE, DEGRADED, FAULTED, OFFLINE, UNAVAIL, REMOVED; AVAIL/INUSE
    # Error counts since the last `zpool clear`; zpool abbreviates large ones ("1.2K"), which
    # are kept as the nearest integer (so approximate). None for spares (no counts printed).
    read_errors: int | None = None
    write_errors: int | None = None
    checksum_errors: int | None = None
    note: str | None = None  # after the counts: "(resilvering)", "cannot open", "was /dev/…"
    # A leaf's full path ("/dev/disk/by-id/…-part1"); for a device zpool cannot find (printed by
    # its GUID), the path it "was"; None for short names (status without -P) and interior vdevs
    device_path: str | None = None
    block_device: str | None = None  # the kernel name that path leads to ("sdb1"), when known
    children: list[Vdev] = Field(default_factory=list)

    def leaves(self) -> list[Vdev]:
        """The devices below this vdev (itself, if it is one; none for an indirect vdev)."""
        if not self.children:
            return [self] if self.kind in (VdevKind.DISK, VdevKind.FILE) else []
        return [leaf for child in self.children for leaf in child.leaves()]


class Pool(BaseModel):
    """One pool: its state, scan and error lines, and its vdev tree."""

    id: str
    name: str
    state: str | None = None  # ONLINE, DEGRADED, FAULTED, SUSPENDED, UNAVAIL …
    status: str | None = None  # the "status:" paragraph, when the pool has something to say
    action: str | None = None  # the "action:" paragraph
    scan: str | None = None  # "scrub repaired 0B in 00:19:47 with 0 errors on …" (one line)
    errors: str | None = None  # "No known data errors", "3 data errors, use '-v' for a list"
    data_errors: int | None = None  # the number in `errors` (0 for "No known data errors")
    read_errors: int | None = None  # the pool's own line of counts
    write_errors: int | None = None
    checksum_errors: int | None = None
    vdevs: list[Vdev] = Field(default_factory=list)  # top-level vdevs, every role, in order

    def vdevs_in(self, role: VdevRole) -> list[Vdev]:
        """The top-level vdevs of one section (data, logs, cache, spares …)."""
        return [v for v in self.vdevs if v.role is role]

    def leaves(self) -> list[Vdev]:
        """Every device of the pool, every role."""
        return [leaf for vdev in self.vdevs for leaf in vdev.leaves()]


class ZpoolStatus(BaseModel):
    """What the `zpool status -P` parser made of the text."""

    pools: list[Pool] = Field(default_factory=list)
    truncated: bool = False  # the text ended inside a pool, which was left out
    warnings: list[str] = Field(default_factory=list)


class ZfsInventory(BaseModel):
    """ZFS on this host; `present` False (with `note` saying why) on a host without ZFS."""

    present: bool = True
    note: str | None = None  # the one line said about an absent ZFS
    module_version: str | None = None  # `/sys/module/zfs/version`, e.g. "2.1.11-1"
    # `/sys/module/zfs/parameters/zfs_vdev_*max_active*`, `zfs_vdev_max_pending` (old ZFS) and
    # `zfs_vdev_queue_depth_pct`: name -> value, I/Os in flight per leaf device (pct: percent)
    vdev_queue_parameters: dict[str, int] = Field(default_factory=dict)
    pools: list[Pool] = Field(default_factory=list)
