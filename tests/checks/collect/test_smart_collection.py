"""`collect_health`: snapshots, a fake smartctl on PATH (bitmask, hang, garbage), the real one."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

import pytest
from fixture_paths import FIXTURES as ALL_FIXTURES
from pytest_benchmark.fixture import BenchmarkFixture
from tool_stubs import fake_tool_dir

from pinchpoint.checks.collect.smart import collect_health, health_devices, smartctl_command
from pinchpoint.checks.parse.smart_json import parse_smartctl_json
from pinchpoint.checks.source import LiveSource, SnapshotSource
from pinchpoint.checks.source.sysfs import MAX_PROBLEMS_PER_KIND, ProblemLog
from pinchpoint.model.health import NvmeCriticalWarning, SmartctlExitFlag
from pinchpoint.model.problems import CollectionProblem, ProblemKind

FIXTURES = ALL_FIXTURES / "smartctl"

SATA_3_OF_6 = "smartctl_exporter__sata_hdd_HGST_HUS724020ALE640_28_link_3of6Gbps.json"
SAS_DUAL = "synthetic__sas_dual_port_HITACHI_H109060SESUN600G_scsi_sas_port_0_1.json"
NVME_CW16 = "smartctl_exporter__nvme_SAMSUNG_MZWLL3T2HAJQ_FAILED_critical_warning16.json"
MEGARAID = "derived__megaraid_logical_drive_open_failed_exit2.json"
INTEL_RAID = "scrutiny__intel_raid1_volume_scsi_exit4.json"
WD_FAILING = "smart-prom-next__sata_wd3200bevt_usbjmicron_-a_when_failed_now_exit216.json"
SSD_FULL = "scrutiny__sata_ssd_Samsung860EVO_-x-j_full.json"


def snapshot(root: Path, outputs: dict[str, str | bytes]) -> SnapshotSource:
    """A snapshot holding `commands/smartctl/<dev>.json` for each device given."""
    folder = root / "commands" / "smartctl"
    folder.mkdir(parents=True, exist_ok=True)
    for device, output in outputs.items():
        target = folder / f"{device}.json"
        if isinstance(output, bytes):
            target.write_bytes(output)
        else:
            target.write_text(output)
    return SnapshotSource(root)


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text()


def problems_of(log: ProblemLog) -> dict[str, CollectionProblem]:
    """Problems keyed by the device at the end of their command line."""
    return {p.subject.rsplit("/", 1)[-1]: p for p in log.problems()}


# --- from a snapshot ----------------------------------------------------------------------------


def test_every_disk_is_read_in_the_order_asked(tmp_path: Path) -> None:
    source = snapshot(
        tmp_path,
        {
            "sda": fixture(SATA_3_OF_6),
            "sdc": fixture(SAS_DUAL),
            "nvme0": fixture(NVME_CW16),
            "sdd": fixture(MEGARAID),
            "sdb": fixture(INTEL_RAID),
        },
    )
    log = ProblemLog()
    inventory = collect_health(source, ["sda", "sdc", "nvme0", "sdd", "sdb"], log)
    assert [d.device for d in inventory.disks] == ["sda", "sdc", "nvme0", "sdd", "sdb"]
    assert inventory.smartctl_version == "7.3"
    sata, sas, nvme, megaraid, intel = inventory.disks
    assert sata.wwn == "naa.5000cca0499602d2"
    assert sata.ata is not None and sata.ata.sata_link_current_gbps == 3.0
    assert sas.scsi is not None
    assert [p.attached for p in sas.scsi.sas_ports] == [True, True]
    assert nvme.nvme is not None
    assert nvme.nvme.critical_warnings == [NvmeCriticalWarning.VOLATILE_MEMORY_BACKUP_FAILED]
    assert not megaraid.collected
    assert intel.collected and intel.smart_passed is None
    assert inventory.collected_count == 4
    found = problems_of(log)
    assert set(found) == {"sdd", "sdb"}  # the three healthy reports raise nothing
    assert found["sdd"].part == "health"
    assert found["sdd"].subject == "smartctl -x -j /dev/sdd"
    assert found["sdd"].kind is ProblemKind.UNSUPPORTED
    assert found["sdd"].reason.startswith(
        "SMART not collected: behind a RAID controller: SMART not available through /dev/sdd; "
        "use -d megaraid,N"
    )
    assert found["sdb"].kind is ProblemKind.UNSUPPORTED
    assert found["sdb"].reason.startswith(
        "no SMART verdict: behind a RAID controller: SMART not available through /dev/sdb"
    )
    assert megaraid.not_collected_reason == found["sdd"].reason


def test_a_non_zero_bitmask_with_valid_json_keeps_the_facts(tmp_path: Path) -> None:
    log = ProblemLog()
    inventory = collect_health(snapshot(tmp_path, {"sdb": fixture(WD_FAILING)}), ["sdb"], log)
    [disk] = inventory.disks
    assert disk.collected
    assert disk.exit_status == 216
    assert disk.exit_flags == [
        SmartctlExitFlag.DISK_FAILING,
        SmartctlExitFlag.PREFAIL_ATTRIBUTES_AT_OR_BELOW_THRESHOLD,
        SmartctlExitFlag.ERROR_LOG_HAS_ERRORS,
        SmartctlExitFlag.SELF_TEST_LOG_HAS_ERRORS,
    ]
    assert disk.smart_passed is False
    assert disk.ata is not None and disk.ata.reallocated_sectors == 535
    assert log.problems() == []  # a failing disk is a fact for the rules, not a collection problem


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("", "SMART not collected: empty output"),
        ("Segmentation fault\n", "SMART not collected: not JSON"),
        (fixture(SSD_FULL)[:20000], "SMART not collected: JSON ends early"),
        (b"\x00\x01\x02\xff\xfe", "SMART not collected: not JSON"),
    ],
    ids=["empty", "invalid", "truncated", "binary"],
)
def test_unreadable_output_is_named_and_the_rest_stands(
    tmp_path: Path, output: str | bytes, expected: str
) -> None:
    source = snapshot(tmp_path, {"sda": fixture(SATA_3_OF_6), "sdb": output})
    log = ProblemLog()
    inventory = collect_health(source, ["sda", "sdb"], log)
    good, bad = inventory.disks
    assert good.collected and good.model == "HGST HUS724020ALE640"
    assert not bad.collected
    assert bad.id == "disk:device:sdb"
    [problem] = log.problems()
    assert problem.kind is ProblemKind.GARBLED
    assert problem.subject == "smartctl -x -j /dev/sdb"
    assert problem.reason.startswith(expected)
    assert bad.not_collected_reason == problem.reason


def test_a_disk_missing_from_the_snapshot_is_not_collected(tmp_path: Path) -> None:
    source = snapshot(tmp_path, {"sda": fixture(SATA_3_OF_6)})
    log = ProblemLog()
    inventory = collect_health(source, ["sda", "sdz"], log)
    assert not inventory.disks[1].collected
    [problem] = log.problems()
    assert problem.kind is ProblemKind.NOT_COLLECTED
    assert "holds no output of `smartctl -x -j /dev/sdz`" in problem.reason


def test_progress_is_reported_as_each_disk_ends(tmp_path: Path) -> None:
    devices = [f"sd{c}" for c in "abcdefgh"]
    source = snapshot(tmp_path, dict.fromkeys(devices, fixture(SATA_3_OF_6)))
    calls: list[tuple[int, int]] = []
    threads: set[int] = set()

    def progress(done: int, total: int) -> None:
        calls.append((done, total))
        threads.add(threading.get_ident())

    inventory = collect_health(source, devices, ProblemLog(), progress=progress, max_workers=3)
    assert calls == [(n, 8) for n in range(9)]
    assert threads == {threading.get_ident()}  # the caller's thread: safe for a progress bar
    assert [d.device for d in inventory.disks] == devices
    assert all(d.collected for d in inventory.disks)


def test_no_devices_no_work(tmp_path: Path) -> None:
    calls: list[tuple[int, int]] = []
    inventory = collect_health(
        snapshot(tmp_path, {}), [], ProblemLog(), progress=lambda d, t: calls.append((d, t))
    )
    assert inventory.disks == [] and calls == [(0, 0)]


# --- a fake smartctl on PATH ---------------------------------------------------------------------


def fake_smartctl(tmp_path: Path, cases: dict[str, str], default: str) -> Path:
    """A `smartctl` shell script answering per device (`$3` is `/dev/<dev>`)."""
    lines = ["#!/bin/sh", 'case "$3" in']
    lines += [f"  /dev/{device}) {action};;" for device, action in cases.items()]
    lines += [f"  *) {default};;", "esac"]
    return fake_tool_dir(tmp_path, "smartctl", "\n".join(lines[1:]))


def cat(name: str, status: int) -> str:
    return f"{shutil.which('cat')} '{FIXTURES / name}'; exit {status}"


def test_a_real_non_zero_exit_with_json_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The process exits 64 (error log has records): the status is FAILED, the JSON is read."""
    bin_dir = fake_smartctl(tmp_path, {"sda": cat(SATA_3_OF_6, 64)}, cat(WD_FAILING, 216))
    monkeypatch.setenv("PATH", str(bin_dir))
    log = ProblemLog()
    inventory = collect_health(LiveSource(), ["sda", "sdb"], log)
    sda, sdb = inventory.disks
    assert sda.collected and sda.exit_flags == [SmartctlExitFlag.ERROR_LOG_HAS_ERRORS]
    assert sda.ata is not None and sda.ata.sata_link_max_gbps == 6.0
    assert sdb.collected and sdb.smart_passed is False and sdb.exit_status == 216
    assert log.problems() == []


def test_a_hung_smartctl_is_stopped_and_the_rest_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hang = f"exec {shutil.which('sleep')} 60"
    bin_dir = fake_smartctl(tmp_path, {"sdb": hang, "sdd": hang}, cat(SATA_3_OF_6, 64))
    monkeypatch.setenv("PATH", str(bin_dir))
    log = ProblemLog()
    started = time.monotonic()
    inventory = collect_health(
        LiveSource(), ["sda", "sdb", "sdc", "sdd", "sde"], log, max_workers=4, timeout_s=0.5
    )
    assert time.monotonic() - started < 10
    assert [d.collected for d in inventory.disks] == [True, False, True, False, True]
    found = problems_of(log)
    assert set(found) == {"sdb", "sdd"}
    assert found["sdb"].kind is ProblemKind.TIMEOUT
    assert found["sdb"].reason == (
        "SMART not collected: smartctl did not finish within 0.5 s and was stopped"
    )
    assert inventory.disks[1].not_collected_reason == found["sdb"].reason


def test_a_missing_smartctl_is_reported_once_per_disk_and_capped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    log = ProblemLog()
    devices = [f"sd{c}" for c in "abcdefghijklmn"]
    inventory = collect_health(LiveSource(), devices, log)
    assert not any(d.collected for d in inventory.disks)
    problems = log.problems()
    assert len(problems) == MAX_PROBLEMS_PER_KIND + 1  # ten listed, then one line for the rest
    assert problems[0].kind is ProblemKind.TOOL_MISSING
    assert problems[0].reason == (
        "SMART not collected: smartctl is not installed (install the package that provides it)"
    )
    assert problems[-1].reason == "4 more problems of this kind"


def test_a_smartctl_without_json_support_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = "echo 'smartctl 6.6 2016-05-31 r4324'; echo '=======> UNRECOGNIZED OPTION: j'; exit 1"
    monkeypatch.setenv("PATH", str(fake_smartctl(tmp_path, {}, old)))
    log = ProblemLog()
    collect_health(LiveSource(), ["sda"], log)
    [problem] = log.problems()
    assert problem.kind is ProblemKind.FAILED
    assert "needs smartmontools 7.0 or later" in problem.reason


def test_a_smartctl_failing_silently_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(fake_smartctl(tmp_path, {}, "echo 'out of memory' >&2; exit 1")))
    log = ProblemLog()
    collect_health(LiveSource(), ["sda"], log)
    [problem] = log.problems()
    assert problem.kind is ProblemKind.FAILED
    assert problem.reason == "SMART not collected: smartctl exited with status 1: out of memory"


# --- the real smartctl --------------------------------------------------------------------------


@pytest.mark.tools
@pytest.mark.skipif(shutil.which("smartctl") is None, reason="smartmontools is not installed")
def test_the_real_smartctl_on_a_device_that_does_not_exist() -> None:
    log = ProblemLog()
    inventory = collect_health(LiveSource(), ["sdpinchpoint-none", "pinchpoint-none"], log)
    absent, unknown = inventory.disks
    assert not absent.collected
    assert absent.exit_flags == [SmartctlExitFlag.DEVICE_OPEN_FAILED]
    assert [m.text for m in absent.messages] == [
        "Smartctl open device: /dev/sdpinchpoint-none failed: No such device"
    ]
    assert absent.messages[0].severity == "error"
    assert not unknown.collected  # no sdX/nvmeX name: smartctl cannot guess the device type
    assert unknown.exit_flags == [SmartctlExitFlag.COMMAND_LINE_DID_NOT_PARSE]
    assert "Unable to detect device type" in unknown.messages[0].text
    found = problems_of(log)
    assert found["sdpinchpoint-none"].kind is ProblemKind.MISSING
    assert found["sdpinchpoint-none"].reason.startswith(
        "SMART not collected: /dev/sdpinchpoint-none is not there"
    )
    assert found["pinchpoint-none"].kind is ProblemKind.FAILED
    assert inventory.smartctl_version is not None


# --- which disks ---------------------------------------------------------------------------------


def test_health_devices_on_the_real_capture(procfs_snapshot: Path) -> None:
    """sda–sde and one NVMe controller; dm-*, md* are left out."""
    assert health_devices(SnapshotSource(procfs_snapshot)) == [
        "sda",
        "sdb",
        "sdc",
        "sdd",
        "sde",
        "nvme0",
    ]


def test_the_real_capture_end_to_end(procfs_copy: Path) -> None:
    """The disks the capture lists, each answered by a real report; sde's output is missing."""
    answers = {
        "sda": SATA_3_OF_6,
        "sdb": WD_FAILING,
        "sdc": SAS_DUAL,
        "sdd": INTEL_RAID,
        "nvme0": "scrutiny__nvme_Samsung970EVO_-x-j_media_errors7.json",
    }
    source = snapshot(procfs_copy, {dev: fixture(name) for dev, name in answers.items()})
    log = ProblemLog()
    inventory = collect_health(source, health_devices(source), log)
    assert [d.device for d in inventory.disks] == ["sda", "sdb", "sdc", "sdd", "sde", "nvme0"]
    assert [d.collected for d in inventory.disks] == [True, True, True, True, False, True]
    by_device = {d.device: d for d in inventory.disks}
    assert by_device["nvme0"].nvme is not None
    assert by_device["nvme0"].nvme.media_errors == 7
    assert by_device["sdb"].ata is not None and by_device["sdb"].ata.failing_now
    found = problems_of(log)
    assert set(found) == {"sdd", "sde"}
    assert found["sde"].kind is ProblemKind.NOT_COLLECTED
    assert found["sdd"].kind is ProblemKind.UNSUPPORTED


def fake_sys(root: Path, blocks: dict[str, str | None], nvme_class: list[str] | None) -> Path:
    for name, wwid in blocks.items():
        folder = root / "sys" / "block" / name / "device"
        folder.mkdir(parents=True)
        if wwid is not None:
            (folder / "wwid").write_text(wwid + "\n")
    for name in nvme_class or []:
        (root / "sys" / "class" / "nvme" / name).mkdir(parents=True)
    return root


def test_health_devices_asks_each_lu_once_and_skips_virtual_devices(tmp_path: Path) -> None:
    blocks: dict[str, str | None] = {
        "sdb": "naa.5000c500a0000001",
        "sdaa": "naa.5000c500a0000003",
        "sda": "naa.5000c500a0000002",
        "sdz": "naa.5000c500a0000001",  # the second path to sdb's LU
        "sdc": None,  # no wwid: asked anyway
        "dm-0": None,
        "md127": None,
        "loop0": None,
        "zram0": None,
        "sr0": None,
        "nbd0": None,
        "nvme0n1": None,
        "nvme0n2": None,
        "nvme10n1": None,
        "nvme2c2n1": None,  # a multipath path: controller nvme2
    }
    source = SnapshotSource(fake_sys(tmp_path, blocks, nvme_class=None))
    assert health_devices(source) == ["sda", "sdb", "sdc", "sdaa", "nvme0", "nvme2", "nvme10"]


def test_health_devices_prefers_the_nvme_class(tmp_path: Path) -> None:
    """A multipath namespace `nvme0n1` may sit on controllers nvme1 and nvme3."""
    root = fake_sys(tmp_path, {"nvme0n1": None}, nvme_class=["nvme1", "nvme3", "nvme-fabrics"])
    assert health_devices(SnapshotSource(root)) == ["nvme1", "nvme3"]


def test_the_command_and_its_snapshot_key() -> None:
    command = smartctl_command("nvme0", timeout_s=12)
    assert command.argv == ("smartctl", "-x", "-j", "/dev/nvme0")
    assert command.key == "smartctl/nvme0.json"
    assert command.timeout_s == 12


# --- speed ---------------------------------------------------------------------------------------


def test_parsing_a_thousand_reports(benchmark: BenchmarkFixture) -> None:
    """Speed is measured, not asserted: `pytest --benchmark-enable -k thousand` times it."""
    outputs = [p.read_text() for p in sorted(FIXTURES.glob("*.json")) if "--scan" not in p.name]
    mix = [outputs[i % len(outputs)] for i in range(1000)]
    disks = benchmark(lambda: [parse_smartctl_json(text, f"sd{i}") for i, text in enumerate(mix)])
    assert len(disks) == 1000
    assert all(d.device.startswith("sd") for d in disks)
