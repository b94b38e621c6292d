"""`multipath -ll` text on real outputs (RHEL6 and RHEL5 layouts, -v4 noise) and on damaged text."""

from __future__ import annotations

import random

import pytest
from fixture_paths import FIXTURES as ALL_FIXTURES

from pinchpoint.checks.parse.multipath_ll import (
    MultipathParseError,
    parse_multipath_ll,
    parse_size_text,
)
from pinchpoint.model.multipath import MultipathMap

FIXTURES = ALL_FIXTURES / "multipath"
RHEL6 = FIXTURES / "insights-core_multipath_v4_ll_rhel6_dell_md36xxi.txt"
FAULTY = FIXTURES / "insights-core_multipath_v4_ll_doc_faulty_paths.txt"
RHEL5 = FIXTURES / "insights-core_multipath_v4_ll_rhel5_dgc_clariion.txt"


def by_name(maps: list[MultipathMap]) -> dict[str, MultipathMap]:
    return {m.name or m.wwid: m for m in maps}


def test_rhel6_dell_md36xxi_rdac_eight_paths_in_two_groups() -> None:
    listing = parse_multipath_ll(RHEL6.read_text())
    assert listing.warnings == [] and not listing.truncated
    mpathg = listing.maps[0]
    assert mpathg.id == "mpath:36f01faf000da360b0000033c528fea6d"
    assert mpathg.name == "mpathg"
    assert mpathg.wwid == "36f01faf000da360b0000033c528fea6d"
    assert mpathg.dm_device == "dm-2"
    assert (mpathg.vendor, mpathg.product) == ("DELL", "MD36xxi")
    assert mpathg.size_text == "54T"
    assert mpathg.size_bytes == 54 << 40
    assert mpathg.features == "3 queue_if_no_path pg_init_retries 50"
    assert mpathg.queue_if_no_path is True
    assert mpathg.hardware_handler == "rdac"
    assert mpathg.access == "rw"
    assert mpathg.from_multipath_ll and not mpathg.from_sysfs
    active, enabled = mpathg.path_groups
    assert (active.index, active.policy, active.selector) == (1, "round-robin 0", "round-robin")
    assert (active.priority, active.status) == (0, "active")
    assert (enabled.index, enabled.priority, enabled.status) == (2, 0, "enabled")
    assert [p.hctl for p in active.paths] == ["12:0:0:1", "11:0:0:1", "15:0:0:1", "17:0:0:1"]
    assert [p.device for p in enabled.paths] == ["sdf", "sdl", "sdr", "sdx"]
    last = enabled.paths[-1]
    assert last.id == "mpath:36f01faf000da360b0000033c528fea6d/path:18:0:0:1"
    assert (last.dev_t, last.dm_state, last.checker_state, last.online_state) == (
        "65:112",
        "active",
        "ready",
        "running",
    )
    assert (last.group_index, last.scsi_host) == (2, "host18")
    assert (mpathg.path_count, mpathg.paths_active, mpathg.paths_failed) == (8, 8, 0)
    assert mpathg.scsi_hosts == [f"host{n}" for n in range(11, 19)]


def test_rhel6_maps_named_by_wwid_and_a_map_without_paths() -> None:
    maps = parse_multipath_ll(RHEL6.read_text()).maps
    assert [m.name for m in maps] == [
        "mpathg",
        "mpathe",
        "36001405b1629f80d52a4c898f8856e43",
        "mpatha",
        "1IET     00080001",
        "mpathb",
        "1IET     00080007",
        "mpathc",
    ]
    named = by_name(maps)
    lio = named["36001405b1629f80d52a4c898f8856e43"]
    assert lio.wwid == lio.name and lio.dm_device == "dm-5"
    assert (lio.vendor, lio.product) == ("LIO-ORG", "block0_sdb")  # "LIO-ORG ,block0_sdb"
    assert (lio.size_text, lio.features, lio.hardware_handler) == ("2.0G", "0", None)
    assert lio.queue_if_no_path is False
    assert [g.policy for g in lio.path_groups] == ["service-time 0", "service-time 0"]
    spaced = named["1IET     00080007"]
    assert spaced.id == "mpath:1IET_00080007" and spaced.dm_device == "dm-19"
    assert (spaced.vendor, spaced.product) == ("COMPELNT", "Compellent Vol")
    assert named["mpatha"].wwid == "1IET     00080001"
    assert named["mpathe"].access == "rx" and named["mpathe"].hardware_handler == "rdac"
    empty = named["mpathc"]
    assert empty.wwid == "test_with_no_devs" and empty.dm_device == "dm-1"
    assert (empty.vendor, empty.product) == (None, None)  # "uninitialized"
    assert empty.size_text == "10G" and empty.path_groups == [] and empty.path_count == 0


def test_faulty_paths_are_counted() -> None:
    mpathe = by_name(parse_multipath_ll(FAULTY.read_text()).maps)["mpathe"]
    assert mpathe.path_count == 8
    assert mpathe.paths_active == 8  # device-mapper still sends I/O…
    assert mpathe.paths_failed == 8  # …down paths its checker says are faulty
    first = mpathe.path_groups[0].paths[0]
    assert (first.hctl, first.device, first.checker_state) == ("13:0:0:2", "sdg", "faulty")
    assert first.failed and first.active


def test_rhel5_bracket_format_with_verbose_noise() -> None:
    listing = parse_multipath_ll(RHEL5.read_text())
    assert listing.warnings == [] and not listing.truncated
    (l004,) = listing.maps
    assert l004.name == "L004"
    assert l004.wwid == "360060160ade32800f2e3baf47665e211"
    assert l004.dm_device == "dm-9"
    assert (l004.vendor, l004.product) == ("DGC", "RAID 5")
    assert (l004.size_text, l004.size_bytes) == ("100G", 100 << 30)
    assert l004.features == "1 queue_if_no_path" and l004.queue_if_no_path
    assert l004.hardware_handler == "emc"
    assert l004.access == "rw"
    first, second = l004.path_groups
    assert (first.policy, first.priority, first.status) == ("round-robin 0", 1, "active")
    assert (second.policy, second.priority, second.status) == ("round-robin 0", 0, "enabled")
    assert [(p.hctl, p.device, p.dev_t) for p in first.paths] == [
        ("3:0:1:4", "sdk", "8:160"),
        ("5:0:0:4", "sdp", "8:240"),
    ]
    assert [(p.hctl, p.device, p.dev_t) for p in second.paths] == [
        ("3:0:0:4", "sdf", "8:80"),
        ("5:0:1:4", "sdu", "65:64"),
    ]
    path = second.paths[1]
    assert (path.dm_state, path.checker_state, path.online_state) == ("active", "ready", None)
    assert l004.scsi_hosts == ["host3", "host5"]
    # the "paths list" rows (sda … sdag) and `params`/`status`/`*word` lines are not paths
    assert l004.path_count == 4


def test_newer_layout_details() -> None:
    """Time stamps of 0.8+, `#:#:#:#` for a gone device, a checker state with a space."""
    text = (
        "3789.033715 | sdb: alua not supported\n"
        "mpatha (3600a098038303053453f463045727a45) dm-0 NETAPP,LUN C-Mode\n"
        "size=10G features='3 queue_if_no_path pg_init_retries 50' hwhandler='1 alua' wp=rw\n"
        "|-+- policy='service-time 0' prio=50 status=active\n"
        "| `- 1:0:0:1 sdb 8:16 active ready running\n"
        "`-+- policy='service-time 0' prio=10 status=enabled\n"
        "  |- 2:0:0:1 sdc 8:32 active i/o pending running\n"
        "  `- #:#:#:# -   #:#  failed faulty offline\n"
    )
    (mpatha,) = parse_multipath_ll(text).maps
    assert (mpatha.vendor, mpatha.product) == ("NETAPP", "LUN C-Mode")
    assert mpatha.hardware_handler == "alua"
    pending, gone = mpatha.path_groups[1].paths
    assert pending.checker_state == "i/o pending" and pending.online_state == "running"
    assert (gone.hctl, gone.device, gone.dev_t, gone.scsi_host) == (None, None, None, None)
    assert (gone.dm_state, gone.checker_state, gone.online_state) == ("failed", "faulty", "offline")
    assert mpatha.paths_failed == 1 and mpatha.paths_active == 2


def test_empty_output_is_no_maps() -> None:
    listing = parse_multipath_ll("")
    assert listing.maps == [] and listing.warnings == [] and not listing.truncated
    assert parse_multipath_ll("Oct 28 14:02:44 | /etc/multipath.conf does not exist\n").maps == []


@pytest.mark.parametrize(
    "text",
    [
        "lorem ipsum\ndolor sit amet\n",
        random.Random(3).randbytes(200).decode("latin-1").replace("\x00", "") + "\n",
        "\x00\x01\x02 binary\n",
    ],
)
def test_garbled_text_is_an_error_saying_what_was_expected(text: str) -> None:
    with pytest.raises(MultipathParseError, match="expected"):
        parse_multipath_ll(text)


def test_output_cut_inside_a_map_drops_that_map_only() -> None:
    text = RHEL6.read_text()
    cut = text[: text.index("`- 18:0:0:2 sdx")] + "`- 18:0:0:2 sd"  # cut mid-line
    listing = parse_multipath_ll(cut)
    assert listing.truncated
    assert [m.name for m in listing.maps] == ["mpathg"]
    assert listing.warnings == ["map mpathe: the output ended inside this map; map left out"]


def test_output_cut_after_a_header_or_a_group_line() -> None:
    text = RHEL5.read_text()
    header = text[: text.index("[size=100G]")]
    listing = parse_multipath_ll(header)
    assert listing.truncated and listing.maps == []
    assert "map L004: the output ends after its header line" in listing.warnings[0]
    group = text[: text.index(" \\_ 3:0:1:4")]
    listing = parse_multipath_ll(group)
    assert listing.truncated and listing.maps == []
    assert listing.warnings == ["map L004: the output ended inside this map; map left out"]


def test_a_garbled_line_inside_a_map_drops_that_map_and_keeps_the_others() -> None:
    text = RHEL6.read_text().replace("| |- 11:0:0:2 sdi 8:128  active ready running", "| |- 11:0:0")
    text = text.replace("size=16G features='0' hwhandler='0' wp=rw\n", "size=16G wp=rw\n", 1)
    listing = parse_multipath_ll(text)
    assert not listing.truncated
    names = [m.name for m in listing.maps]
    assert "mpathe" not in names and "mpatha" not in names
    assert names == [
        "mpathg",
        "36001405b1629f80d52a4c898f8856e43",
        "1IET     00080001",
        "mpathb",
        "1IET     00080007",
        "mpathc",
    ]
    assert listing.warnings == [
        "map mpathe: unreadable path line '| |- 11:0:0'; map left out",
        "map mpatha: expected `size=… features='…' hwhandler='…'`, found 'size=16G wp=rw'; "
        "map left out",
    ]


def test_a_size_line_without_a_header() -> None:
    listing = parse_multipath_ll("???\nsize=1G features='0' hwhandler='0' wp=rw\n")
    assert listing.maps == []
    assert "expected a map header `name (wwid) dm-N vendor,product`" in listing.warnings[0]


def test_size_text() -> None:
    assert parse_size_text("2.0G") == 2 << 30
    assert parse_size_text("512M") == 512 << 20
    assert parse_size_text("54T") == 54 << 40
    assert parse_size_text("huge") is None
    assert parse_size_text(None) is None
