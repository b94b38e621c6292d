"""The `zpool status` parser on real output, on a raidz2 + logs + cache + spares layout, and on
garbled and truncated text."""

from __future__ import annotations

import pytest
from fixture_paths import FIXTURES as ALL_FIXTURES

from pinchpoint.checks.parse.zpool_status import (
    ZpoolStatusParseError,
    count_value,
    parse_zpool_status,
    vdev_kind,
)
from pinchpoint.model.zfs import VdevKind, VdevRole

FIXTURES = ALL_FIXTURES / "zfs"
REAL = (FIXTURES / "jc__zpool_status_-v.txt").read_text()
TANK = (FIXTURES / "synthetic__zpool_status_-P_raidz2_logs_cache_spares.txt").read_text()


def by_id(index: int) -> str:
    return f"/dev/disk/by-id/wwn-0x5000c500a00000{index:02x}-part1"


# -- real output -------------------------------------------------------------------------


def test_three_single_disk_pools_from_a_real_capture() -> None:
    status = parse_zpool_status(REAL)
    assert (status.truncated, status.warnings) == (False, [])
    assert [p.name for p in status.pools] == ["zhgstera6", "zint500", "zsam53"]
    first = status.pools[0]
    assert first.id == "zpool:zhgstera6"
    assert first.state == "ONLINE"
    assert first.scan == "scrub canceled on Fri Aug 19 15:33:19 2022"
    assert (first.errors, first.data_errors) == ("No known data errors", 0)
    assert (first.read_errors, first.write_errors, first.checksum_errors) == (0, 0, 0)
    assert (first.status, first.action) == (None, None)
    (disk,) = first.vdevs
    assert disk.name == "726060ALE614-K8JAPRGN:10"
    assert disk.id == "zpool:zhgstera6/726060ALE614-K8JAPRGN:10"
    assert (disk.kind, disk.role, disk.state) == (VdevKind.DISK, VdevRole.DATA, "ONLINE")
    assert (disk.read_errors, disk.write_errors, disk.checksum_errors) == (0, 0, 0)
    assert disk.device_path is None  # printed without -P: a name, not a path
    assert disk.children == [] and first.leaves() == [disk]
    assert status.pools[1].scan == (
        "scrub repaired 0 in 0 days 00:19:47 with 0 errors on Tue Aug 16 00:20:50 2022"
    )
    assert status.pools[2].vdevs[0].name == "Portable_SSD_T5-S49WNP0N120517B:8"


# -- raidz2, logs, cache, spares (-P) ----------------------------------------------------


def test_the_pool_lines_of_a_degraded_pool_being_resilvered() -> None:
    tank, rpool = parse_zpool_status(TANK).pools
    assert tank.state == "DEGRADED"
    assert tank.status == (
        "One or more devices could not be opened.  Sufficient replicas exist for the pool to "
        "continue functioning in a degraded state."
    )
    assert tank.action == "Attach the missing device and online it using 'zpool online'."
    assert tank.scan == (
        "resilver in progress since Sat Nov 21 22:10:04 2026 "
        "1.21T / 3.50T scanned at 412M/s, 1.02T / 3.50T issued at 347M/s "
        "88.1G resilvered, 29.14% done, 02:05:11 to go"
    )
    assert tank.data_errors == 0
    assert rpool.state == "ONLINE"
    assert [leaf.device_path for leaf in rpool.leaves()] == ["/dev/sda3", "/dev/sdb3"]


def test_the_vdev_tree_in_its_sections() -> None:
    tank = parse_zpool_status(TANK).pools[0]
    assert [(v.name, v.kind, v.role) for v in tank.vdevs] == [
        ("raidz2-0", VdevKind.RAIDZ2, VdevRole.DATA),
        ("raidz2-1", VdevKind.RAIDZ2, VdevRole.DATA),
        ("mirror-2", VdevKind.MIRROR, VdevRole.LOG),
        ("/dev/nvme2n1", VdevKind.DISK, VdevRole.CACHE),
        (by_id(13), VdevKind.DISK, VdevRole.SPARE),
        (by_id(14), VdevKind.DISK, VdevRole.SPARE),
    ]
    assert [v.id for v in tank.vdevs_in(VdevRole.SPARE)] == [
        "zpool:tank/spares/dev/disk/by-id/wwn-0x5000c500a000000d-part1",
        "zpool:tank/spares/dev/disk/by-id/wwn-0x5000c500a000000e-part1",
    ]
    raidz0, raidz1 = tank.vdevs_in(VdevRole.DATA)
    assert (raidz0.state, raidz1.state) == ("DEGRADED", "ONLINE")
    assert [c.name for c in raidz0.children] == [
        by_id(1),
        by_id(2),
        by_id(3),
        by_id(4),
        "spare-4",
        by_id(6),
    ]
    assert [c.device_path for c in raidz1.children] == [by_id(i) for i in range(7, 13)]
    assert len(tank.leaves()) == 18  # 7 + 6 data, 2 log, 1 cache, 2 spares
    (log_mirror,) = tank.vdevs_in(VdevRole.LOG)
    assert [(c.name, c.role) for c in log_mirror.children] == [
        ("/dev/nvme0n1p1", VdevRole.LOG),
        ("/dev/nvme1n1p1", VdevRole.LOG),
    ]


def test_a_missing_disk_replaced_by_a_spare() -> None:
    tank = parse_zpool_status(TANK).pools[0]
    spare = tank.vdevs[0].children[4]
    assert (spare.name, spare.kind, spare.state) == ("spare-4", VdevKind.SPARE, "DEGRADED")
    assert spare.id == "zpool:tank/raidz2-0/spare-4"
    missing, standing_in = spare.children
    assert missing.name == "12011877431409870123"  # zpool prints a missing disk by its GUID
    assert (missing.kind, missing.state, missing.note) == (
        VdevKind.DISK,
        "UNAVAIL",
        f"was {by_id(5)}",
    )
    assert missing.device_path == by_id(5)
    assert (standing_in.device_path, standing_in.note) == (by_id(13), "(resilvering)")
    in_use, available = tank.vdevs_in(VdevRole.SPARE)
    assert (in_use.state, in_use.note, in_use.read_errors) == ("INUSE", "currently in use", None)
    assert (available.state, available.note, available.checksum_errors) == ("AVAIL", None, None)


def test_an_abbreviated_error_count() -> None:
    tank = parse_zpool_status(TANK).pools[0]
    leaf = tank.vdevs[1].children[2]
    assert leaf.device_path == by_id(9)
    assert (leaf.read_errors, leaf.write_errors, leaf.checksum_errors) == (0, 0, 1229)


@pytest.mark.parametrize(
    ("text", "value"), [("0", 0), ("17", 17), ("1.20K", 1229), ("3M", 3 << 20), ("2.5G", 5 << 29)]
)
def test_counts(text: str, value: int) -> None:
    assert count_value(text) == value


@pytest.mark.parametrize(
    ("name", "leaf", "kind"),
    [
        ("mirror-0", False, VdevKind.MIRROR),
        ("raidz-0", False, VdevKind.RAIDZ1),  # the name older releases print for raidz1
        ("raidz1-3", False, VdevKind.RAIDZ1),
        ("raidz3-1", False, VdevKind.RAIDZ3),
        ("draid2:4d:12c:1s-0", False, VdevKind.DRAID),
        ("replacing-2", False, VdevKind.REPLACING),
        ("indirect-1", True, VdevKind.INDIRECT),  # a removed vdev has no children
        ("/dev/sdb1", True, VdevKind.DISK),
        ("sdb", True, VdevKind.DISK),
        ("/var/tmp/zfs-file-1", True, VdevKind.FILE),
    ],
)
def test_vdev_kinds(name: str, leaf: bool, kind: VdevKind) -> None:
    assert vdev_kind(name, leaf) is kind


def test_data_errors_and_a_pool_without_a_config() -> None:
    text = (
        "  pool: broken\n state: UNAVAIL\nstatus: One or more devices could not be opened.\n"
        "config: The configuration cannot be determined.\n"
        "\n  pool: hurt\n state: ONLINE\nconfig:\n\n"
        "\tNAME        STATE     READ WRITE CKSUM\n"
        "\thurt        ONLINE       0     0     0\n"
        "\t  /dev/sdz  ONLINE       0     0    14\n\n"
        "errors: 3 data errors, use '-v' for a list\n"
    )
    broken, hurt = parse_zpool_status(text).pools
    assert (broken.state, broken.vdevs, broken.errors) == (
        "UNAVAIL",
        [],
        "The configuration cannot be determined.",
    )
    assert (hurt.data_errors, hurt.vdevs[0].checksum_errors) == (3, 14)


def test_no_pools() -> None:
    assert parse_zpool_status("").pools == []
    assert parse_zpool_status("no pools available\n").pools == []


# -- garbled and truncated text ----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("NAME  SIZE  ALLOC\ntank  10T  2T\n", "expected '  pool: NAME' to begin, found 'NAME"),
        ("\x7fELF\x02\x01\x00\x00", "binary data where text was expected"),
        ("  pool: tank\n state: ONLINE\nconfig:\n", "no pool is complete: pool 'tank' left out"),
    ],
)
def test_text_that_is_not_zpool_status_raises(text: str, message: str) -> None:
    with pytest.raises(ZpoolStatusParseError, match=r"^zpool status -P output: ") as raised:
        parse_zpool_status(text)
    assert message in str(raised.value)


def test_text_cut_inside_the_second_pool_keeps_the_first() -> None:
    cut = TANK[: TANK.index("/dev/sdb3") + 5]  # mid-line, inside rpool's config
    status = parse_zpool_status(cut)
    assert [p.name for p in status.pools] == ["tank"]
    assert len(status.pools[0].leaves()) == 18
    assert status.truncated is True
    assert status.warnings == [
        "last line ignored (cut short, no newline): '/dev/'",
        "pool 'rpool' left out: the text ended before its 'errors:' line",
    ]


def test_a_pool_whose_errors_line_is_missing_is_left_out() -> None:
    first, second = TANK.split("\n\n  pool: rpool")
    joined = first.replace("errors: No known data errors", "") + "\n  pool: rpool" + second
    status = parse_zpool_status(joined)
    assert [p.name for p in status.pools] == ["rpool"]
    assert status.warnings == [
        "pool 'tank' left out: the next pool ('rpool') began before its 'errors:' line"
    ]


def test_an_unterminated_errors_line_still_completes_the_pool() -> None:
    status = parse_zpool_status(REAL.rstrip("\n"))
    assert (len(status.pools), status.truncated) == (3, False)


def test_a_garbled_config_line_is_dropped_and_the_tree_stands() -> None:
    garbled = TANK.replace(
        f"\t    {by_id(3)}    ONLINE       0     0     0\n", "\t    @@@ ### %%% ^^^ &&& ***\n"
    ).replace(f"\t    {by_id(4)}", f"\t     {by_id(4)}")  # one column off: not in the tree
    status = parse_zpool_status(garbled)
    tank = status.pools[0]
    assert [c.name for c in tank.vdevs[0].children] == [by_id(1), by_id(2), "spare-4", by_id(6)]
    assert len(status.warnings) == 2
    assert status.warnings[0].startswith("config line 17 of pool 'tank' not understood: '@@@")
    assert status.warnings[1].startswith("config line 18 of pool 'tank' is out of line")
    assert status.truncated is False


def test_a_removed_vdev_is_no_device() -> None:
    text = (
        "  pool: shrunk\n state: ONLINE\nremove: Removal of vdev 1 copied 2.1G in 0h1m, "
        "completed on Sat Nov 21 21:00:00 2026\n\t2.5K memory used for removed device mappings\n"
        "config:\n\n"
        "\tNAME          STATE     READ WRITE CKSUM\n"
        "\tshrunk        ONLINE       0     0     0\n"
        "\t  /dev/sdb1   ONLINE       0     0     0\n"
        "\t  indirect-1  ONLINE       0     0     0\n\n"
        "errors: No known data errors\n"
    )
    status = parse_zpool_status(text)
    (pool,) = status.pools
    assert [(v.name, v.kind) for v in pool.vdevs] == [
        ("/dev/sdb1", VdevKind.DISK),
        ("indirect-1", VdevKind.INDIRECT),
    ]
    assert [leaf.name for leaf in pool.leaves()] == ["/dev/sdb1"]
    assert status.warnings == []  # the "remove:" paragraph and its continuation are read
