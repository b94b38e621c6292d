"""Snapshot archive intake: what `capture --tar` writes is unpacked with its symlinks and opens
as a snapshot; every hostile archive is refused with the right status and a reason naming the
member, before anything is written, and nothing ever lands outside the destination."""

from __future__ import annotations

import gzip
import io
import json
import os
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterable
from pathlib import Path

import pytest
from fixture_paths import SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import open_snapshot
from pinchpoint.checks.source.archives import (
    HEADER_ALLOWANCE,
    ArchiveLimits,
    ArchiveRejected,
    data_attributes,
    extract_snapshot_archive,
)
from pinchpoint.checks.source.capture import capture_tarball
from pinchpoint.checks.source.choose import scratch_dir
from pinchpoint.simulator import load_spec, write_snapshot

MANIFEST = b'{"format": "pinchpoint-snapshot", "version": 1, "hostname": "h"}\n'


# --- building archives -----------------------------------------------------------------


def file_member(name: str, data: bytes = b"x\n") -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def link_member(
    name: str, target: str, kind: bytes = tarfile.SYMTYPE
) -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    return info, None


def typed_member(name: str, kind: bytes) -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type = kind
    return info, None


def write_archive(
    path: Path,
    members: Iterable[tuple[tarfile.TarInfo, bytes | None]],
    *,
    manifest: bool = True,
    top: str = "snap",
) -> Path:
    """A gzip tar with `top/manifest.json` (unless told not to) and then `members`."""
    with tarfile.open(path, "w:gz") as tar:
        if manifest:
            info, data = file_member(f"{top}/manifest.json", MANIFEST)
            tar.addfile(info, io.BytesIO(data))
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def files_under(directory: Path) -> set[str]:
    """Every path below `directory`, links not followed."""
    found = set()
    for base, dirs, files in os.walk(directory):
        for name in dirs + files:
            found.add(os.path.relpath(os.path.join(base, name), directory))
    return found


@pytest.fixture
def area(tmp_path: Path) -> Path:
    """A directory holding the archive and the destination: nothing else may appear in it."""
    (tmp_path / "outside.txt").write_text("keep me\n")
    return tmp_path


def rejected(area: Path, archive: Path, limits: ArchiveLimits | None = None) -> ArchiveRejected:
    """Extract `archive` into `area/dest`, expecting a refusal; check nothing was written."""
    before = files_under(area)
    with pytest.raises(ArchiveRejected) as caught:
        extract_snapshot_archive(archive, area / "dest", limits or ArchiveLimits())
    after = files_under(area)
    assert after - before <= {"dest"}, f"written outside dest: {after - before}"
    assert not (area / "dest").exists() or not any((area / "dest").iterdir())
    assert (area / "outside.txt").read_text() == "keep me\n"
    return caught.value


# --- what capture writes ---------------------------------------------------------------


def test_a_capture_of_this_host_unpacks_with_its_symlinks(tmp_path: Path) -> None:
    """The real capture code on this machine: relative sysfs links inside the tree are kept."""
    result = capture_tarball(tmp_path / "host")
    with tarfile.open(result.path) as tar:
        links = {m.name for m in tar.getmembers() if m.issym()}
        count = len(tar.getmembers())
    assert links, "a capture of a Linux host holds sysfs symlinks"
    root = extract_snapshot_archive(result.path, tmp_path / "dest")
    assert root == tmp_path / "dest" / "host"
    unpacked = {f"host/{p}" for p in files_under(root)}
    assert len(unpacked) + 1 == count  # every member but the top directory itself
    assert all((tmp_path / "dest" / name).is_symlink() for name in links)
    with open_snapshot(root) as source:
        assert source.manifest() is not None
        inventory = collect_inventory(source)
    assert inventory.host.hostname == result.inventory.host.hostname


def test_a_simulated_capture_opens_as_the_host_it_was() -> None:
    """A simulated SAS host packed as `capture --tar` packs: one top directory (in tmpfs where
    there is one: 10,000 small files)."""
    with tempfile.TemporaryDirectory(dir=scratch_dir()) as scratch:
        simulated_capture_opens(Path(scratch))


def simulated_capture_opens(tmp_path: Path) -> None:
    staged = tmp_path / "one-path-missing"
    write_snapshot(load_spec(SPECS / "disk_missing_one_path.toml"), staged)
    archive = tmp_path / "one-path-missing.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(staged, arcname=staged.name)
    root = extract_snapshot_archive(archive, tmp_path / "dest")
    assert root.name == "one-path-missing"
    assert any(p.is_symlink() for p in (root / "sys" / "class" / "sas_host").iterdir())
    with open_snapshot(root) as source:
        inventory = collect_inventory(source)
    assert [e.name for e in inventory.sas.enclosures] == ["JBOD-A", "JBOD-B"]
    assert inventory.sas.path_count == 95  # 2 × 24 disks × 2 paths, one missing


def test_a_snapshot_at_the_archive_top_is_accepted(tmp_path: Path) -> None:
    archive = tmp_path / "flat.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for info, data in (file_member("./manifest.json", MANIFEST), file_member("./sys/x")):
            tar.addfile(info, io.BytesIO(data))
    root = extract_snapshot_archive(archive, tmp_path / "dest")
    assert root == tmp_path / "dest"
    assert (root / "sys" / "x").read_text() == "x\n"


def test_links_between_members_inside_the_snapshot_are_kept(tmp_path: Path) -> None:
    archive = write_archive(
        tmp_path / "links.tar.gz",
        [
            file_member("snap/sys/devices/pci/host1/name", b"mpt3sas\n"),
            link_member("snap/sys/class/scsi_host/host1", "../../devices/pci/host1"),
            link_member("snap/sys/class/alias", "scsi_host/host1/../host1"),
            link_member("snap/sys/dangling", "../nowhere/at/all"),  # inside, just absent
            link_member("snap/sys/hard", "snap/sys/devices/pci/host1/name", tarfile.LNKTYPE),
        ],
    )
    root = extract_snapshot_archive(archive, tmp_path / "dest")
    assert (root / "sys/class/scsi_host/host1/name").read_text() == "mpt3sas\n"
    assert (root / "sys/class/alias/name").read_text() == "mpt3sas\n"
    assert os.readlink(root / "sys/dangling") == "../nowhere/at/all"
    assert (root / "sys/hard").read_text() == "mpt3sas\n"


# --- hostile archives: refused before anything is written ------------------------------


def test_absolute_member_paths_are_refused(area: Path) -> None:
    target = area / "planted"
    archive = write_archive(area / "a.tar.gz", [file_member(str(target))])
    error = rejected(area, archive)
    assert error.status == 422
    assert error.member == str(target) and "absolute path" in error.reason
    assert not target.exists()


@pytest.mark.parametrize("name", ["../planted", "snap/sys/../../../planted", "snap/../planted"])
def test_dot_dot_in_member_paths_is_refused(area: Path, name: str) -> None:
    error = rejected(area, write_archive(area / "a.tar.gz", [file_member(name)]))
    assert error.status == 422
    assert error.member == name and ".." in error.reason
    assert not (area / "planted").exists() and not (area.parent / "planted").exists()


@pytest.mark.parametrize(
    "target",
    [
        "../../../etc",  # climbs out lexically
        "../..",  # the destination itself: outside the snapshot directory
        "/etc/passwd",  # absolute
    ],
)
def test_symlinks_leaving_the_snapshot_are_refused(area: Path, target: str) -> None:
    archive = write_archive(area / "a.tar.gz", [link_member("snap/sys/evil", target)])
    error = rejected(area, archive)
    assert error.status == 422
    assert error.member == "snap/sys/evil"
    assert "symlink" in error.reason and target in error.reason


def test_a_symlink_that_leaves_only_through_another_symlink_is_refused(area: Path) -> None:
    """`r -> .` and `s -> r/..`: lexically `s` stays inside, but the kernel follows `r` first
    and lands above the snapshot directory; `w -> s/..` would then climb out of dest."""
    archive = write_archive(
        area / "a.tar.gz",
        [link_member("snap/r", "."), link_member("snap/s", "r/.."), link_member("snap/w", "s/..")],
    )
    error = rejected(area, archive)
    assert error.status == 422 and error.member == "snap/s"


def test_a_member_written_through_a_symlink_is_refused(area: Path) -> None:
    archive = write_archive(
        area / "a.tar.gz", [link_member("snap/d", "sys"), file_member("snap/d/planted")]
    )
    error = rejected(area, archive)
    assert error.status == 422
    assert error.member == "snap/d/planted" and "below a symlink" in error.reason


@pytest.mark.parametrize("target", ["../outside.txt", "snap/not-in-the-archive", "/etc/passwd"])
def test_hard_links_to_anything_but_an_earlier_snapshot_file_are_refused(
    area: Path, target: str
) -> None:
    archive = write_archive(area / "a.tar.gz", [link_member("snap/h", target, tarfile.LNKTYPE)])
    error = rejected(area, archive)
    assert error.status == 422
    assert error.member == "snap/h" and "hard link" in error.reason


@pytest.mark.parametrize(
    ("kind", "word"),
    [(tarfile.CHRTYPE, "device"), (tarfile.BLKTYPE, "device"), (tarfile.FIFOTYPE, "FIFO")],
)
def test_devices_and_fifos_are_refused(area: Path, kind: bytes, word: str) -> None:
    archive = write_archive(area / "a.tar.gz", [typed_member("snap/dev/sda", kind)])
    error = rejected(area, archive)
    assert error.status == 422
    assert error.member == "snap/dev/sda" and word in error.reason


def test_duplicate_members_are_refused(area: Path) -> None:
    """A file after a symlink of the same name would be written through the link."""
    archive = write_archive(
        area / "a.tar.gz", [link_member("snap/x", "sys"), file_member("snap/x")]
    )
    error = rejected(area, archive)
    assert error.status == 422 and error.member == "snap/x" and "twice" in error.reason


def test_too_many_members_is_413(area: Path) -> None:
    archive = write_archive(area / "a.tar.gz", [file_member(f"snap/f{i}") for i in range(30)])
    error = rejected(area, archive, ArchiveLimits(max_members=20))
    assert error.status == 413 and "more than 20 members" in error.reason
    assert error.member == "snap/f19"


def test_a_member_too_large_is_413(area: Path) -> None:
    archive = write_archive(area / "a.tar.gz", [file_member("snap/big", os.urandom(200_000))])
    error = rejected(area, archive, ArchiveLimits(max_member_bytes=100_000))
    assert error.status == 413 and error.member == "snap/big"
    assert "200,000 bytes" in error.reason


def test_too_much_unpacked_in_all_is_413(area: Path) -> None:
    members = [file_member(f"snap/part{i}", os.urandom(300_000)) for i in range(4)]
    error = rejected(
        area, write_archive(area / "a.tar.gz", members), ArchiveLimits(max_unpacked_bytes=1_000_000)
    )
    assert error.status == 413 and "1,000,000" in error.reason


def test_a_decompression_bomb_is_413(area: Path) -> None:
    """8 MiB of zeros pack into a few KiB: far past the allowed ratio."""
    archive = write_archive(area / "a.tar.gz", [file_member("snap/zeros", bytes(8 * 1024 * 1024))])
    assert archive.stat().st_size < 100_000
    error = rejected(area, archive, ArchiveLimits(max_ratio=50))
    assert error.status == 413 and "decompression bomb" in error.reason


def test_an_upload_too_large_is_413(area: Path) -> None:
    archive = write_archive(area / "a.tar.gz", [file_member("snap/f", os.urandom(50_000))])
    error = rejected(area, archive, ArchiveLimits(max_bytes=10_000))
    assert error.status == 413 and "a.tar.gz" in error.reason


def test_a_huge_tar_header_is_refused(area: Path) -> None:
    """A PAX header is read into memory whole: one larger than the allowance is refused."""
    info, data = file_member("snap/f")
    info.pax_headers = {"comment": "x" * (2 * HEADER_ALLOWANCE)}
    path = area / "a.tar.gz"
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        tar.addfile(info, io.BytesIO(data))
    error = rejected(area, path)
    assert error.status == 422 and "header" in error.reason


def test_not_gzip_is_400(area: Path) -> None:
    plain = area / "a.tar"
    with tarfile.open(plain, "w") as tar:
        info, data = file_member("snap/manifest.json", MANIFEST)
        tar.addfile(info, io.BytesIO(data))
    error = rejected(area, plain)
    assert error.status == 400 and "not gzip-compressed" in error.reason
    empty = area / "empty.tar.gz"
    empty.write_bytes(b"")
    assert rejected(area, empty).status == 400


def test_gzip_that_is_not_a_tar_is_400(area: Path) -> None:
    archive = area / "a.tar.gz"
    archive.write_bytes(gzip.compress(b"this is not a tar archive\n" * 100))
    error = rejected(area, archive)
    assert error.status == 400 and "not a tar archive" in error.reason


def test_a_gzip_that_is_not_a_gzip_after_its_magic_is_400(area: Path) -> None:
    archive = area / "a.tar.gz"
    archive.write_bytes(b"\x1f\x8b" + os.urandom(4000))
    error = rejected(area, archive)
    assert error.status == 400


def test_a_truncated_archive_is_400(area: Path) -> None:
    archive = write_archive(area / "a.tar.gz", [file_member("snap/f", os.urandom(100_000))])
    data = archive.read_bytes()
    archive.write_bytes(data[: len(data) // 2])
    error = rejected(area, archive)
    assert error.status == 400 and "truncated" in error.reason


def test_a_tar_cut_short_inside_complete_gzip_is_400(area: Path) -> None:
    whole = write_archive(area / "whole.tar.gz", [file_member("snap/f", os.urandom(100_000))])
    tar_bytes = gzip.decompress(whole.read_bytes())
    whole.unlink()
    archive = area / "a.tar.gz"
    archive.write_bytes(gzip.compress(tar_bytes[:50_000]))
    error = rejected(area, archive)
    assert error.status == 400 and "truncated" in error.reason


def test_an_empty_archive_is_422(area: Path) -> None:
    archive = area / "a.tar.gz"
    with tarfile.open(archive, "w:gz"):
        pass
    error = rejected(area, archive)
    assert error.status == 422 and "empty" in error.reason


def test_an_archive_without_a_manifest_is_422(area: Path) -> None:
    archive = write_archive(area / "a.tar.gz", [file_member("snap/sys/x")], manifest=False)
    error = rejected(area, archive)
    assert error.status == 422 and "no snapshot manifest" in error.reason


def test_a_manifest_of_something_else_is_422(area: Path) -> None:
    archive = area / "a.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        info, data = file_member("snap/manifest.json", b'{"format": "sosreport"}')
        tar.addfile(info, io.BytesIO(data))
    error = rejected(area, archive)
    assert error.status == 422
    assert error.member == "snap/manifest.json" and "not a pinchpoint snapshot" in error.reason


def test_members_beside_the_snapshot_directory_are_refused(area: Path) -> None:
    archive = write_archive(area / "a.tar.gz", [file_member("elsewhere/file")])
    error = rejected(area, archive)
    assert error.status == 422 and error.member == "elsewhere/file"
    assert "outside the snapshot directory" in error.reason


def test_a_destination_with_files_in_it_is_a_caller_error(tmp_path: Path) -> None:
    archive = write_archive(tmp_path / "a.tar.gz", [])
    (tmp_path / "dest").mkdir()
    (tmp_path / "dest" / "mine").write_text("x")
    with pytest.raises(ValueError, match="not empty"):
        extract_snapshot_archive(archive, tmp_path / "dest")
    assert (tmp_path / "dest" / "mine").read_text() == "x"


def test_unpacked_files_get_the_data_filter_attributes(tmp_path: Path) -> None:
    """No owner from the archive, no setuid bit, no group or other write: the attribute policy
    of tarfile's `data` filter, which `data_attributes` is held to member by member."""
    members: list[tuple[tarfile.TarInfo, bytes | None]] = []
    for name, mode in (("setuid", 0o4777), ("plain", 0o644), ("private", 0o600), ("exe", 0o755)):
        info, data = file_member(f"snap/bin/{name}", b"#!/bin/sh\n")
        info.mode, info.uid, info.gid, info.uname, info.gname = mode, 1234, 1234, "bob", "bob"
        members.append((info, data))
    directory = typed_member("snap/open", tarfile.DIRTYPE)[0]
    directory.mode = 0o1777
    members += [
        (directory, None),
        link_member("snap/bin/link", "plain"),
        link_member("snap/bin/hard", "snap/bin/plain", tarfile.LNKTYPE),
    ]
    archive = write_archive(tmp_path / "a.tar.gz", members)
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            ours = data_attributes(member).get_info()
            stdlib = tarfile.data_filter(member, str(tmp_path / "dest")).get_info()
            assert ours == stdlib, member.name
    root = extract_snapshot_archive(archive, tmp_path / "dest")
    setuid = (root / "bin" / "setuid").stat()
    assert setuid.st_mode & 0o7777 == 0o755 and setuid.st_uid == os.geteuid()
    assert (root / "bin" / "private").stat().st_mode & 0o777 == 0o600
    assert (root / "open").stat().st_mode & 0o7000 == 0


def test_a_real_capture_gets_the_same_attributes_as_the_data_filter(tmp_path: Path) -> None:
    result = capture_tarball(tmp_path / "host")
    with tarfile.open(result.path) as tar:
        members = tar.getmembers()
    assert len(members) > 50
    for member in members:
        assert (
            data_attributes(member).get_info()
            == tarfile.data_filter(member, str(tmp_path / "dest")).get_info()
        ), member.name


def _can_mount_tmpfs() -> bool:
    if shutil.which("unshare") is None or os.geteuid() != 0:
        return False
    probe = subprocess.run(
        ["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=64k none /mnt"],
        capture_output=True,
        check=False,
    )
    return probe.returncode == 0


UNPACK_ON_A_FULL_DISK = """
import json, sys
from pathlib import Path
from pinchpoint.checks.source.archives import extract_snapshot_archive
dest = Path(sys.argv[2]) / "dest"
try:
    extract_snapshot_archive(Path(sys.argv[1]), dest)
    outcome = "unpacked"
except OSError as err:
    outcome = type(err).__name__ + ": " + err.strerror
print(json.dumps({"outcome": outcome, "left": sorted(p.name for p in dest.iterdir())}))
"""


@pytest.mark.skipif(not _can_mount_tmpfs(), reason="needs root and `unshare -m` to mount a tmpfs")
def test_a_full_disk_is_the_servers_error_and_leaves_nothing(tmp_path: Path) -> None:
    """A real filesystem that runs out of inodes half-way: the OSError goes to the caller (a
    5xx, not the uploader's fault) and the half-unpacked snapshot is removed."""
    archive = write_archive(tmp_path / "a.tar.gz", [file_member(f"snap/f{i}") for i in range(60)])
    small = tmp_path / "small"
    small.mkdir()
    script = (
        f"mount -t tmpfs -o size=1m,nr_inodes=30 none {shlex.quote(str(small))} && "
        f"{shlex.quote(sys.executable)} -c {shlex.quote(UNPACK_ON_A_FULL_DISK)} "
        f"{shlex.quote(str(archive))} {shlex.quote(str(small))}"
    )
    done = subprocess.run(
        ["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["outcome"].startswith("OSError: No space left on device"), result
    assert result["left"] == []
