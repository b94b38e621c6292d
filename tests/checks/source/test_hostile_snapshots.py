"""Issue 14, items 1, 3, 11, 12 and 14: hostile archives are refused whole by the one extractor
(CLI and service), the snapshot reader never reads outside the snapshot nor hangs, values are
capped with a visible mark, scratch is one directory per process and stale ones are removed,
capture writes no link leading out, and what is no snapshot is refused."""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import RecordingSource, SnapshotSource, SourceError, open_snapshot
from pinchpoint.checks.source.archives import (
    ArchiveLimits,
    ArchiveRejected,
    _Writer,
    extract_snapshot_archive,
)
from pinchpoint.checks.source.base import MAX_FILE_BYTES
from pinchpoint.checks.source.scratch import (
    clean_stale,
    own_name,
    process_dir,
    scratch_in,
)
from pinchpoint.checks.source.snapshot import NotASnapshotError
from pinchpoint.checks.source.sysfs import MAX_ATTRIBUTE_BYTES, TRUNCATED
from pinchpoint.cli import app
from pinchpoint.model.problems import ProblemKind
from tests.checks.source.test_archives import (
    MANIFEST,
    file_member,
    files_under,
    link_member,
    rejected,
    write_archive,
)

HOST_DIR = "/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0/host11"
runner = CliRunner()


@pytest.fixture
def area(tmp_path: Path) -> Path:
    (tmp_path / "outside.txt").write_text("keep me\n")
    return tmp_path


# --- item 1: the extractor -------------------------------------------------------------


def cve_2025_4517_archive(path: Path) -> Path:
    """The published shape of CVE-2025-4517 (tarfile's realpath stops resolving past
    PATH_MAX): sixteen 247-character directories each with a one-letter symlink to it, a link
    climbing back down them, and `escape` leaving the tree through it, then a file written
    through `escape`. Under the snapshot's top directory, with a manifest."""
    comp = "d" * 247
    steps = "abcdefghijklmnop"
    members: list[tuple[tarfile.TarInfo, bytes | None]] = []
    current = "snap"
    for step in steps:
        directory = tarfile.TarInfo(f"{current}/{comp}")
        directory.type = tarfile.DIRTYPE
        members.append((directory, None))
        members.append(link_member(f"{current}/{step}", comp))
        current = f"{current}/{comp}"
    link_path = "snap/" + "/".join(steps) + "/" + "l" * 254
    members.append(link_member(link_path, "/".join([".."] * len(steps))))
    members.append(link_member("snap/escape", link_path + "/../" * 3 + "outside-dir"))
    members.append(file_member("snap/escape/planted", b"owned\n"))
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        info, data = file_member("snap/manifest.json", MANIFEST)
        tar.addfile(info, io.BytesIO(data))
        for info, body in members:
            tar.addfile(info, io.BytesIO(body) if body is not None else None)
    return path


def test_the_cve_2025_4517_archive_is_refused_whole_and_writes_nothing_outside(
    area: Path,
) -> None:
    (area / "outside-dir").mkdir()
    error = rejected(area, cve_2025_4517_archive(area / "poc.tar.gz"))
    assert error.status == 422
    # The first member written through one of the one-letter links is named.
    assert error.member is not None and error.member.startswith("snap/a/b/c/d/e/f")
    assert "lies below a symlink" in error.reason
    assert not any((area / "outside-dir").iterdir())


def test_the_writer_never_writes_through_a_link_whatever_the_first_pass_let_through(
    tmp_path: Path,
) -> None:
    """The second fence alone: a destination already holding a link to outside (as if a
    first pass had been fooled); the member below it is refused, nothing lands outside."""
    outside = tmp_path / "outside"
    outside.mkdir()
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / "d").symlink_to(outside)
    (dest / "f").symlink_to(outside / "file")
    writer = _Writer(dest)
    try:
        info, data = file_member("d/planted", b"owned\n")
        with pytest.raises(ArchiveRejected, match="written through a link"):
            writer.write(info, "d/planted", io.BytesIO(data))
        info, data = file_member("f", b"owned\n")
        with pytest.raises(ArchiveRejected, match="over an entry already there"):
            writer.write(info, "f", io.BytesIO(data))
        deep, data = file_member("d/x/y/z", b"owned\n")
        with pytest.raises(ArchiveRejected):
            writer.write(deep, "d/x/y/z", io.BytesIO(data))
    finally:
        writer.close()
    assert list(outside.iterdir()) == []


def test_a_member_path_of_5000_characters_is_refused_naming_it(area: Path) -> None:
    name = "snap/" + "/".join(["p" * 200] * 25)
    error = rejected(area, write_archive(area / "a.tar.gz", [file_member(name)]))
    assert error.status == 422 and "longer than 4,095 bytes" in error.reason
    assert error.member is not None and error.member.startswith("snap/ppp")


def test_a_bomb_is_stopped_while_unpacking_not_after(area: Path) -> None:
    """64 MiB of zeros pack into 64 KiB; at a ratio of 20 the read stops near 1.3 MiB of
    decompressed data (measured on the stream), and nothing is written."""
    archive = area / "bomb.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        info, data = file_member("snap/manifest.json", MANIFEST)
        tar.addfile(info, io.BytesIO(data))
        zeros = tarfile.TarInfo("snap/zeros")
        zeros.size = 64 * 1024 * 1024
        tar.addfile(zeros, io.BytesIO(bytes(zeros.size)))
    packed = archive.stat().st_size
    error = rejected(area, archive, ArchiveLimits(max_ratio=20))
    assert error.status == 413 and "decompression bomb" in error.reason
    assert error.unpacked_bytes is not None
    assert error.unpacked_bytes < 20 * packed + 2 * 1024 * 1024 < 64 * 1024 * 1024
    assert files_under(area / "dest") == set() if (area / "dest").exists() else True


def test_an_xz_and_a_plain_tar_unpack_through_the_same_checks(tmp_path: Path) -> None:
    for mode, suffix in (("w:xz", "tar.xz"), ("w", "tar"), ("w:bz2", "tar.bz2")):
        good = tmp_path / f"good.{suffix}"
        with tarfile.open(good, mode) as tar:  # type: ignore[call-overload]
            for info, data in (file_member("snap/manifest.json", MANIFEST), file_member("snap/x")):
                tar.addfile(info, io.BytesIO(data))
        with open_snapshot(good) as source:
            assert source.read_text("/x") == "x\n"
        evil = tmp_path / f"evil.{suffix}"
        with tarfile.open(evil, mode) as tar:  # type: ignore[call-overload]
            info, data = file_member("snap/manifest.json", MANIFEST)
            tar.addfile(info, io.BytesIO(data))
            tar.addfile(link_member("snap/out", "../../..")[0])
        with pytest.raises(ArchiveRejected) as refused, open_snapshot(evil):
            pass
        assert refused.value.member == "snap/out"


def test_the_service_still_takes_only_gzip(tmp_path: Path) -> None:
    plain = tmp_path / "a.tar"
    with tarfile.open(plain, "w") as tar:
        info, data = file_member("snap/manifest.json", MANIFEST)
        tar.addfile(info, io.BytesIO(data))
    with pytest.raises(ArchiveRejected, match="not gzip-compressed"):
        extract_snapshot_archive(plain, tmp_path / "dest")


@pytest.mark.parametrize("command", ["check", "inventory"])
def test_cli_refuses_a_hostile_archive_in_one_line_naming_the_member(
    area: Path, command: str
) -> None:
    archive = write_archive(
        area / "evil.tar.gz",
        [link_member("snap/sys/d", "../../.."), file_member("snap/sys/d/planted")],
    )
    before = files_under(area)
    result = runner.invoke(app, [command, "--snapshot", str(archive)])
    assert result.exit_code == 2, result.output
    said = " ".join(result.output.split())
    assert "snap/sys/d" in said and "points outside the snapshot" in said
    assert "Traceback" not in result.output
    assert files_under(area) == before
    assert not (area.parent / "planted").exists()


# --- item 14: what is no snapshot ------------------------------------------------------


def two_top_directories(path: Path) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name in ("a/sys/x", "b/sys/y"):
            info, data = file_member(name)
            tar.addfile(info, io.BytesIO(data))
    return path


@pytest.mark.parametrize("command", ["check", "inventory"])
@pytest.mark.parametrize("case", ["empty-dir", "two-tops", "stripped-absolute", "garbage-manifest"])
def test_what_holds_no_snapshot_is_refused_with_what_was_looked_for(
    tmp_path: Path, command: str, case: str
) -> None:
    if case == "empty-dir":
        target = tmp_path / "empty"
        target.mkdir()
        expected = "found none of manifest.json, sys, proc, commands"
    elif case == "two-tops":
        target = two_top_directories(tmp_path / "two.tar.gz")
        expected = "no snapshot manifest"
    elif case == "stripped-absolute":
        target = tmp_path / "stripped.tar.gz"  # what `tar czf x /etc/hostname` writes
        with tarfile.open(target, "w:gz") as tar:
            info, data = file_member("etc/hostname", b"db01\n")
            tar.addfile(info, io.BytesIO(data))
        expected = "no snapshot manifest"
    else:
        target = tmp_path / "garbage"
        (target / "sys").mkdir(parents=True)
        (target / "manifest.json").write_bytes(os.urandom(300))
        expected = "manifest.json is not a pinchpoint snapshot manifest"
    result = runner.invoke(app, [command, "--snapshot", str(target)])
    assert result.exit_code == 2, result.output
    said = " ".join(result.output.split())
    assert expected in said, said
    assert "Traceback" not in result.output


def test_open_snapshot_refuses_an_empty_directory(tmp_path: Path) -> None:
    with pytest.raises(NotASnapshotError, match="found none of"), open_snapshot(tmp_path):
        pass


# --- item 3: the reader ----------------------------------------------------------------


@pytest.fixture
def planted(procfs_copy: Path, tmp_path: Path) -> tuple[Path, Path]:
    """The real capture with a link to a secret outside it, a FIFO, a link to /dev/zero and a
    huge (sparse) file in place of files the collectors read."""
    secret = tmp_path / "secret.txt"
    secret.write_text("root:SECRET:0:0\n")
    host = procfs_copy / HOST_DIR.lstrip("/") / "scsi_host" / "host11"
    (host / "board_name").unlink()
    (host / "board_name").symlink_to(secret)
    (host / "version_fw").unlink()
    os.mkfifo(host / "version_fw")
    (host / "proc_name").unlink()
    (host / "proc_name").symlink_to("/dev/zero")
    commands = procfs_copy / "commands" / "lsscsi"
    commands.mkdir(parents=True, exist_ok=True)
    with open(commands / "huge.txt", "wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)
    return procfs_copy, secret


def test_the_reader_refuses_links_out_fifos_devices_and_huge_files_saying_which_and_why(
    planted: tuple[Path, Path],
) -> None:
    root, _secret = planted
    source = SnapshotSource(root)
    host = f"{HOST_DIR}/scsi_host/host11"
    reasons = {}
    for path in (f"{host}/board_name", f"{host}/version_fw", f"{host}/proc_name"):
        with pytest.raises(SourceError) as caught:
            source.read_bytes(path)
        assert caught.value.kind is ProblemKind.UNREADABLE and caught.value.path == path
        reasons[path.rsplit("/", 1)[1]] = caught.value.reason
    assert reasons["board_name"] == "symlink points outside the snapshot"
    assert reasons["version_fw"].startswith("a FIFO, not a regular file")
    assert reasons["proc_name"] == "symlink points outside the snapshot"
    with pytest.raises(SourceError) as huge:
        source.read_bytes("/commands/lsscsi/huge.txt")
    assert f"{MAX_FILE_BYTES + 1:,} bytes" in huge.value.reason


def test_a_planted_snapshot_reports_each_file_and_keeps_the_rest(
    planted: tuple[Path, Path],
) -> None:
    root, _secret = planted
    inventory = collect_inventory(SnapshotSource(root))
    text = inventory.model_dump_json()
    assert "SECRET" not in text
    said = {p.subject: p.reason for p in inventory.problems}
    host = f"{HOST_DIR}/scsi_host/host11"
    assert said[f"{host}/board_name"] == "symlink points outside the snapshot"
    assert said[f"{host}/version_fw"].startswith("a FIFO")
    assert said[f"{host}/proc_name"] == "symlink points outside the snapshot"
    assert [h.scsi_host for h in inventory.sas.hbas] == ["host11"]  # the rest stands
    assert inventory.sas.path_count > 0 and inventory.block.devices


def test_a_snapshot_with_a_dev_zero_link_opens_through_the_cli_without_hanging(
    planted: tuple[Path, Path],
) -> None:
    root, _secret = planted
    result = runner.invoke(app, ["inventory", "--snapshot", str(root), "--json"])
    assert result.exit_code == 0, result.output
    assert "SECRET" not in result.stdout


@st.composite
def trees(draw: st.DrawFn) -> list[tuple[str, str, str]]:
    """Entries (kind, path, content or link target) of a small snapshot tree."""
    names = st.sampled_from(["a", "b", "c", "sys", "..", "."])
    path = st.lists(st.sampled_from(["a", "b", "c", "sys"]), min_size=1, max_size=3).map("/".join)
    target = st.one_of(
        st.lists(names, min_size=1, max_size=6).map("/".join),
        st.sampled_from(["/", "/etc", "/outside", "../outside", "../../outside/secret"]),
    )
    entries = draw(
        st.lists(
            st.one_of(
                st.tuples(st.just("file"), path, st.just("inside\n")),
                st.tuples(st.just("dir"), path, st.just("")),
                st.tuples(st.just("link"), path, target),
            ),
            max_size=12,
        )
    )
    return entries


PROBES = st.lists(
    st.lists(st.sampled_from(["a", "b", "c", "sys", ".."]), min_size=1, max_size=5), max_size=10
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(entries=trees(), probes=PROBES)
def test_property_random_trees_and_links_never_read_outside(
    tmp_path_factory: pytest.TempPathFactory,
    entries: list[tuple[str, str, str]],
    probes: list[list[str]],
) -> None:
    base = tmp_path_factory.mktemp("tree")
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret").write_text("SECRET\n")
    root = base / "snap"
    root.mkdir()
    for kind, rel, content in entries:
        path = root / rel
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if kind == "file":
                path.write_text(content)
            elif kind == "dir":
                path.mkdir(exist_ok=True)
            else:
                path.symlink_to(content)
        except OSError:
            continue  # a clash in the random tree: the entry is left out
    source = SnapshotSource(root)
    for probe in [*probes, ["a", "secret"], ["sys", "secret"], ["a"], ["b", "c"]]:
        host_path = "/" + "/".join(probe)
        for read in (source.read_bytes, source.list_dir, source.read_link):
            try:
                found = read(host_path)
            except SourceError:
                continue
            assert b"SECRET" not in found if isinstance(found, bytes) else True
            assert "secret" not in found if isinstance(found, list) else True
        try:
            resolved = source.resolve(host_path)
        except SourceError:
            continue
        assert ".." not in resolved.split("/")
        real = os.path.realpath(f"{root}{resolved}")
        assert real == str(root.resolve()) or real.startswith(f"{root.resolve()}/"), resolved


# --- item 11: caps ---------------------------------------------------------------------


def test_a_100_mb_attribute_is_cut_with_a_visible_mark_and_the_report_stays_small(
    procfs_copy: Path,
) -> None:
    from pinchpoint.rules.config import Config
    from pinchpoint.service.checkup import check_source

    uuid = procfs_copy / "sys" / "block" / "dm-0" / "dm" / "uuid"
    with open(uuid, "r+b") as handle:
        handle.write(b"mpath-" + b"A" * 100)
        handle.truncate(100 * 1024 * 1024)  # sparse: 100 MB of attribute, no disk used
    checkup = check_source(SnapshotSource(procfs_copy), kind=None, live=False, config=Config())
    dm0 = next(d for d in checkup.inventory.block.devices if d.name == "dm-0")
    assert dm0.dm_uuid is not None and dm0.dm_uuid.endswith(TRUNCATED)
    assert len(dm0.dm_uuid) <= MAX_ATTRIBUTE_BYTES + len(TRUNCATED)
    cut = [p for p in checkup.inventory.problems if p.subject == "/sys/block/dm-0/dm/uuid"]
    assert cut and "cut there, marked truncated" in cut[0].reason
    size = len(checkup.report.model_dump_json()) + len(checkup.inventory.model_dump_json())
    assert size < 2 * 1024 * 1024
    assert {d.name for d in checkup.inventory.block.devices} >= {"sda", "sde", "md0"}


# --- item 12: scratch ------------------------------------------------------------------


def dead_pid() -> int:
    """The id of a process that has exited (a child, reaped)."""
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_scratch_is_one_directory_per_process_and_stale_ones_are_removed(tmp_path: Path) -> None:
    parent = tmp_path / "scratch"
    parent.mkdir()
    stale = parent / f"{dead_pid()}-12345"
    (stale / "demo-x" / "sys").mkdir(parents=True)
    (stale / "demo-x" / "sys" / "big").write_bytes(b"x" * 1000)
    recycled = parent / f"{os.getpid()}-1"  # this pid, another start time: a dead process's
    recycled.mkdir()
    not_ours = parent / "keep-me"
    not_ours.mkdir()
    first = scratch_in(parent, "snapshot-")
    second = scratch_in(parent, "demo-")
    mine = process_dir(parent)
    assert mine.name == own_name() and first.parent == mine == second.parent
    assert not stale.exists() and not recycled.exists()
    assert not_ours.exists()
    assert clean_stale(parent) == []  # this process's own directory is alive


def test_an_upload_style_extraction_leaves_nothing_behind(tmp_path: Path) -> None:
    uploads = tmp_path / "uploads"
    work = scratch_in(uploads, "snapshot-")
    archive = write_archive(work / "upload.tar.gz", [file_member("snap/sys/x")])
    extract_snapshot_archive(archive, work / "tree")
    shutil.rmtree(work)
    assert [p for p in uploads.rglob("*") if not p.is_dir()] == []


def test_the_cli_unpacks_into_its_process_scratch_and_removes_it(tmp_path: Path) -> None:
    archive = write_archive(tmp_path / "a.tar.gz", [file_member("snap/sys/x")])
    with open_snapshot(archive) as source:
        unpacked = Path(source.root)
        assert unpacked.name == "snap" and unpacked.parent.name == "tree"
        assert unpacked.parent.parent.parent.name == own_name()
    assert not unpacked.exists()


# --- item 1: capture writes no link leading out ---------------------------------------


def test_capture_rewrites_absolute_links_and_links_climbing_out(tmp_path: Path) -> None:
    """Absolute targets and targets climbing past the root (where the kernel stays at `/`)
    are rewritten to the host path they name, inside the snapshot; plain ones are kept."""
    fake = tmp_path / "root"
    devices = fake / "sys" / "devices" / "card"
    devices.mkdir(parents=True)
    (devices / "name").write_text("card\n")
    links = fake / "sys" / "class" / "thing"
    links.mkdir(parents=True)
    (links / "card").symlink_to("../../devices/card")  # inside: kept
    (links / "absolute").symlink_to("/sys/devices/card")  # host path: made relative
    (links / "climbing").symlink_to("../../../../../../etc")  # past the root: /etc
    (links / "passwd").symlink_to("/etc/passwd")  # host path, absent: made relative
    out = tmp_path / "snap"
    recorder = RecordingSource(out, root=str(fake))
    names = recorder.list_dir("/sys/class/thing")
    assert names == ["absolute", "card", "climbing", "passwd"]
    assert recorder.read_text("/sys/class/thing/card/name") == "card\n"
    recorded = out / "sys" / "class" / "thing"
    assert os.readlink(recorded / "card") == "../../devices/card"
    assert os.readlink(recorded / "absolute") == "../../../sys/devices/card"
    assert os.readlink(recorded / "passwd") == "../../../etc/passwd"
    assert os.readlink(recorded / "climbing") == "../../../etc"
    (out / "manifest.json").write_bytes(MANIFEST)
    archive = tmp_path / "snap.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(out, arcname="snap")
    root = extract_snapshot_archive(archive, tmp_path / "dest")  # passes the link checks
    assert (root / "sys/class/thing/absolute/name").read_text() == "card\n"


def test_a_gzip_cut_short_is_not_half_a_snapshot(area: Path) -> None:
    archive = write_archive(
        area / "a.tar.gz", [file_member(f"snap/sys/f{i}", os.urandom(5000)) for i in range(40)]
    )
    data = archive.read_bytes()
    archive.write_bytes(data[: len(data) * 3 // 4])
    assert rejected(area, archive).status == 400
    whole = gzip.decompress(data)
    archive.write_bytes(gzip.compress(whole)[:-8])  # the trailer (CRC, length) missing
    assert rejected(area, archive).status == 400
    json.loads(MANIFEST)  # the manifest the archives carry is valid JSON


def test_a_loop_of_links_is_unreadable_not_a_hang(tmp_path: Path) -> None:
    (tmp_path / "sys").mkdir()
    (tmp_path / "sys" / "a").symlink_to("b")
    (tmp_path / "sys" / "b").symlink_to("a")
    with pytest.raises(SourceError) as caught:
        SnapshotSource(tmp_path).read_bytes("/sys/a")
    assert caught.value.kind is ProblemKind.UNREADABLE and "loop" in caught.value.reason
