"""Sources: the live host, snapshot directories and tarballs, and the recording used by capture."""

from __future__ import annotations

import io
import os
import sys
import tarfile
from pathlib import Path

import pytest

from pinchpoint.checks.source import (
    LiveSource,
    RecordingSource,
    SnapshotSource,
    SourceError,
    open_snapshot,
)
from pinchpoint.checks.source.archives import ArchiveRejected
from pinchpoint.checks.source.commands import Command, CommandStatus
from pinchpoint.model.problems import ProblemKind

SAS_HOST = "/sys/class/sas_host/host11"
HOST_DIR = "/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0/host11"


def test_snapshot_paths_are_host_paths(procfs_snapshot: Path) -> None:
    source = SnapshotSource(procfs_snapshot)
    assert source.list_dir("/sys/class/sas_host") == ["host11"]
    assert source.resolve(SAS_HOST) == f"{HOST_DIR}/sas_host/host11"
    assert source.read_text(f"{HOST_DIR}/scsi_host/host11/proc_name").strip() == "mpt3sas"


def test_missing_and_outside_paths_raise_source_errors(tmp_path: Path) -> None:
    (tmp_path / "sys").mkdir()
    (tmp_path / "sys" / "escape").symlink_to("../../../../etc")
    source = SnapshotSource(tmp_path)
    with pytest.raises(SourceError) as missing:
        source.read_text("/sys/nothing")
    assert missing.value.kind is ProblemKind.MISSING
    with pytest.raises(SourceError) as outside:
        source.resolve("/sys/escape/passwd")
    assert "outside the snapshot" in outside.value.reason


def test_a_snapshot_answers_commands_from_files(tmp_path: Path) -> None:
    out = tmp_path / "commands" / "sg_ses"
    out.mkdir(parents=True)
    (out / "sg3.cf.txt").write_text("page text\n")
    source = SnapshotSource(tmp_path)
    found = source.run(Command(("sg_ses", "--page=cf", "/dev/sg3"), "sg_ses/sg3.cf.txt"))
    assert found.status is CommandStatus.OK
    assert found.stdout == "page text\n"
    absent = source.run(Command(("sg_ses", "--page=es", "/dev/sg3"), "sg_ses/sg3.es.txt"))
    assert absent.status is CommandStatus.NOT_COLLECTED
    assert "holds no output of `sg_ses --page=es /dev/sg3`" in absent.reason()


def test_a_tarball_holding_links_out_of_it_is_refused_whole_naming_the_member(
    procfs_snapshot: Path, tmp_path: Path
) -> None:
    """The real capture holds links of one NIC that climb out of it: packed as it is, the
    archive is refused whole (one extractor for CLI and service), naming the member."""
    archive = tmp_path / "host.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(procfs_snapshot, arcname="host")
    with pytest.raises(ArchiveRejected) as refused, open_snapshot(archive):
        pass
    assert refused.value.status == 422
    assert refused.value.member is not None
    assert refused.value.member.startswith("host/sys/devices/pci0000:a2/")
    assert "points outside the snapshot" in str(refused.value)
    assert str(archive) in str(refused.value)


def test_a_tarball_snapshot_is_extracted_with_its_links(tmp_path: Path) -> None:
    archive = tmp_path / "host.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        for name, target in (("snap/sys/class/sas_host/host11", "../../devices/host11"),):
            link = tarfile.TarInfo(name)
            link.type = tarfile.SYMTYPE
            link.linkname = target
            tar.addfile(link)
        for name, data in (
            ("snap/sys/devices/host11/proc_name", b"mpt3sas\n"),
            ("snap/manifest.json", b'{"format": "pinchpoint-snapshot", "version": 1}'),
        ):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    with open_snapshot(archive) as source:
        assert source.list_dir("/sys/class/sas_host") == ["host11"]
        assert source.resolve("/sys/class/sas_host/host11") == "/sys/devices/host11"
        assert source.read_text("/sys/class/sas_host/host11/proc_name") == "mpt3sas\n"
        assert source.manifest() is not None
        scratch = Path(source.root)
    assert not scratch.exists(), "the unpacked tree is removed with the source"


def test_a_tarball_member_linking_out_of_the_tree_is_refused(tmp_path: Path) -> None:
    archive = tmp_path / "evil.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        link = tarfile.TarInfo("snap/sys/passwd")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/passwd"
        tar.addfile(link)
        data = b'{"format": "pinchpoint-snapshot", "version": 1}'
        info = tarfile.TarInfo("snap/manifest.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    with pytest.raises(ArchiveRejected) as refused, open_snapshot(archive):
        pass
    assert refused.value.member == "snap/sys/passwd"
    assert "symlink to an absolute path" in str(refused.value)


def test_garbage_is_not_a_snapshot(tmp_path: Path) -> None:
    junk = tmp_path / "junk.tar.gz"
    junk.write_bytes(os.urandom(256))
    with pytest.raises(ValueError, match="not a readable snapshot archive"), open_snapshot(junk):
        pass
    with pytest.raises(FileNotFoundError), open_snapshot(tmp_path / "absent"):
        pass


def test_recording_keeps_what_was_read_with_relative_links(
    procfs_snapshot: Path, tmp_path: Path
) -> None:
    """Read the capture as if it were a live root and record it: the copy reads the same."""
    out = tmp_path / "recorded"
    recorder = RecordingSource(out, root=str(procfs_snapshot))
    host_dir = recorder.resolve(SAS_HOST)
    name = recorder.read_text(f"{HOST_DIR}/scsi_host/host11/board_name")
    recorder.list_dir(f"{HOST_DIR}/port-11:0")
    assert host_dir == f"{HOST_DIR}/sas_host/host11"
    link = out / "sys" / "class" / "sas_host" / "host11"
    assert link.is_symlink() and not os.readlink(link).startswith("/")
    replay = SnapshotSource(out)
    assert replay.resolve(SAS_HOST) == host_dir
    assert replay.read_text(f"{HOST_DIR}/scsi_host/host11/board_name") == name
    # Directories and links of a listed directory are kept; files only once they are read.
    listed = recorder.list_dir(f"{HOST_DIR}/port-11:0")
    assert replay.list_dir(f"{HOST_DIR}/port-11:0") == [n for n in listed if n != "uevent"]


def test_live_commands_report_missing_tools_timeouts_and_failures(tmp_path: Path) -> None:
    source = LiveSource()
    missing = source.run(Command(("pinchpoint-no-such-tool",), "x/y"))
    assert missing.status is CommandStatus.TOOL_MISSING
    assert "is not installed" in missing.reason()
    hung = source.run(Command((sys.executable, "-c", "import time; time.sleep(30)"), "x/z", 0.5))
    assert hung.status is CommandStatus.TIMEOUT
    assert "did not finish within 0.5 s" in hung.reason()
    failed = source.run(Command((sys.executable, "-c", "import sys; sys.exit('boom')"), "x/w"))
    assert failed.status is CommandStatus.FAILED
    assert failed.reason().endswith("exited with status 1: boom")


def test_commands_run_concurrently_but_bounded() -> None:
    source = LiveSource()
    sleep = (sys.executable, "-c", "import time; time.sleep(0.3)")
    commands = [Command(sleep, f"s/{i}") for i in range(4)]
    results = source.run_all(commands, max_workers=4)
    assert [r.status for r in results] == [CommandStatus.OK] * 4
    assert [r.command.key for r in results] == [c.key for c in commands]
