"""NIC error counters: `/sys/class/net/IF/statistics/*`, the carrier counts and `ethtool -S`,
read from real captures, from this machine with the real ethtool, and from bad input."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from fixture_paths import FIXTURES
from tool_stubs import fake_tool_dir

from pinchpoint.checks.collect.network import collect_network
from pinchpoint.checks.source import LiveSource, SnapshotSource, Source
from pinchpoint.checks.source.sysfs import ProblemLog
from pinchpoint.model.network import Network
from pinchpoint.model.problems import CollectionProblem, ProblemKind

SNAPSHOTS = FIXTURES / "network" / "snapshots"
# The real statistics/ of prometheus/procfs's enp162s0f0np0 (a mlx5-style port, all zero).
PROCFS_STATISTICS = (
    FIXTURES
    / "snapshots/procfs-mpt3sas/sys/devices/pci0000:a2/0000:a2:00.0/net/enp162s0f0np0/statistics"
)
KERNEL_STATISTICS = {
    "collisions", "multicast", "rx_bytes", "rx_compressed", "rx_crc_errors", "rx_dropped",
    "rx_errors", "rx_fifo_errors", "rx_frame_errors", "rx_length_errors", "rx_missed_errors",
    "rx_nohandler", "rx_over_errors", "rx_packets", "tx_aborted_errors", "tx_bytes",
    "tx_carrier_errors", "tx_compressed", "tx_dropped", "tx_errors", "tx_fifo_errors",
    "tx_heartbeat_errors", "tx_packets", "tx_window_errors",
}  # fmt: skip


def collect(source: Source) -> tuple[Network, list[CollectionProblem]]:
    log = ProblemLog()
    return collect_network(source, log), log.problems()


@pytest.fixture
def e1000e(tmp_path: Path) -> Path:
    """procfs's eth0 with node_exporter's `ethtool eth0`, `-i` and `-S` (one e1000e), and the
    real procfs statistics/ directory of its other NIC put under eth0."""
    target = tmp_path / "snapshot"
    shutil.copytree(SNAPSHOTS / "procfs-e1000e", target, symlinks=True)
    eth0 = (target / "sys/class/net/eth0").resolve()
    shutil.copytree(PROCFS_STATISTICS, eth0 / "statistics")
    return target


def test_the_real_e1000e_capture_carries_carrier_counts_and_driver_counters() -> None:
    network, problems = collect(SnapshotSource(SNAPSHOTS / "procfs-e1000e"))
    assert problems == []
    counters = network.nics[0].counters
    assert counters is not None
    assert (counters.carrier_changes, counters.carrier_up_count, counters.carrier_down_count) == (
        2,
        1,
        1,
    )
    assert counters.statistics == {}  # procfs's eth0 was captured without statistics/
    assert counters.driver["port.rx_dropped"] == 12028
    assert counters.driver["rx_missed"] == 401
    assert counters.values()["ethtool:rx_errors"] == 0
    assert counters.values()["carrier_changes"] == 2


def test_the_kernels_statistics_files_are_every_one_read(e1000e: Path) -> None:
    network, problems = collect(SnapshotSource(e1000e))
    assert problems == []
    counters = network.nics[0].counters
    assert counters is not None
    assert set(counters.statistics) == KERNEL_STATISTICS
    assert set(counters.statistics.values()) == {0}


def test_a_snapshot_from_before_the_counters_were_read_has_none_and_no_problem() -> None:
    """The real veth capture holds no statistics/, no carrier counts and no `ethtool -S`."""
    network, problems = collect(SnapshotSource(SNAPSHOTS / "buildhost-veth"))
    assert problems == []
    assert [nic.counters for nic in network.nics] == [None] * 4
    assert all("driver_counters" not in nic.not_collected for nic in network.nics)


def test_a_garbled_or_unreadable_counter_is_told_and_the_others_stand(e1000e: Path) -> None:
    statistics = (e1000e / "sys/class/net/eth0").resolve() / "statistics"
    (statistics / "rx_crc_errors").write_text("lots\n")
    (statistics / "rx_errors").unlink()
    (statistics / "rx_errors").mkdir()  # reading it fails as an I/O error would
    (e1000e / "sys/class/net/eth0").resolve().joinpath("carrier_changes").write_bytes(b"\x00\xff")
    network, problems = collect(SnapshotSource(e1000e))
    counters = network.nics[0].counters
    assert counters is not None
    assert "rx_crc_errors" not in counters.statistics and "rx_errors" not in counters.statistics
    assert counters.statistics["tx_errors"] == 0
    assert counters.carrier_changes is None and counters.carrier_up_count == 1
    kinds = {p.subject.rsplit("/", 1)[-1]: p.kind for p in problems}
    assert kinds["rx_crc_errors"] is ProblemKind.GARBLED
    assert kinds["carrier_changes"] is ProblemKind.GARBLED
    assert kinds["rx_errors"] is not ProblemKind.GARBLED
    assert len(problems) == 3
    assert network.nics[0].speed_mbps == 1000  # the rest of the NIC stands


def test_truncated_ethtool_statistics_keep_what_was_read(e1000e: Path) -> None:
    (e1000e / "commands/ethtool-S/eth0.txt").write_text(
        "NIC statistics:\n     tx_packets: 961500\n     rx_pack"
    )
    network, problems = collect(SnapshotSource(e1000e))
    counters = network.nics[0].counters
    assert counters is not None and counters.driver == {"tx_packets": 961500}
    assert [(p.kind, p.subject, p.reason) for p in problems] == [
        (ProblemKind.GARBLED, "ethtool -S eth0", "line 'rx_pack' not understood")
    ]


def test_a_driver_without_statistics_is_said_on_the_nic_not_a_problem(
    e1000e: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What ethtool 6.1 does for a driver that keeps none: "no stats available", status 94."""
    settings = (e1000e / "commands/ethtool/eth0.txt").read_text()
    driver = (e1000e / "commands/ethtool-i/eth0.txt").read_text()
    body = (
        'case "$1" in -S) echo "no stats available"; exit 94;; '
        f"-i) printf '%s' '{driver}';; *) printf '%s' '{settings}';; esac"
    )
    monkeypatch.setenv("PATH", str(fake_tool_dir(tmp_path, "ethtool", body)))
    network, problems = collect(LiveSource(root=str(e1000e)))
    nic = network.nics[0]
    assert problems == []
    assert nic.not_collected["driver_counters"] == "driver e1000e keeps no statistics"
    assert nic.counters is not None and nic.counters.driver == {}
    assert nic.counters.statistics["rx_errors"] == 0  # the kernel's stand


def test_binary_ethtool_statistics_are_refused(e1000e: Path) -> None:
    (e1000e / "commands/ethtool-S/eth0.txt").write_bytes(b"\x00\x01\x02\xff garbage")
    network, problems = collect(SnapshotSource(e1000e))
    counters = network.nics[0].counters
    assert counters is not None and counters.driver == {}
    assert counters.statistics["rx_packets"] == 0  # sysfs stands
    assert [(p.kind, p.subject) for p in problems] == [(ProblemKind.GARBLED, "ethtool -S eth0")]
    assert (
        network.nics[0]
        .not_collected["driver_counters"]
        .startswith("output not understood: ethtool -S output: expected 'NIC statistics:'")
    )


@pytest.mark.tools
def test_this_machines_interfaces_with_the_real_ethtool(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every interface of this machine: the kernel's statistics as sysfs has them now, and the
    driver's counters where the real `ethtool -S` prints some."""
    ethtool = shutil.which("ethtool") or (
        "/usr/sbin/ethtool" if os.access("/usr/sbin/ethtool", os.X_OK) else None
    )
    if ethtool is None:
        pytest.skip("ethtool is not installed (Debian: apt-get install ethtool)")
    monkeypatch.setenv("PATH", f"{os.path.dirname(ethtool)}{os.pathsep}{os.environ['PATH']}")
    sys_net = Path("/sys/class/net")
    network, problems = collect(LiveSource())
    if not network.nics:
        pytest.skip("no network interface but lo is visible on this machine")
    assert [p for p in problems if p.subject.startswith("ethtool -S")] == []
    for nic in network.nics:
        assert nic.counters is not None, nic.name
        assert set(nic.counters.statistics) >= {"rx_errors", "tx_errors", "rx_crc_errors"}
        later = int((sys_net / nic.name / "statistics/rx_packets").read_text())
        assert nic.counters.statistics["rx_packets"] <= later  # a counter only grows
        changes = (sys_net / nic.name / "carrier_changes").read_text().strip()
        assert nic.counters.carrier_changes == int(changes)
        if "driver_counters" not in nic.not_collected:
            assert nic.counters.driver, nic.name  # ethtool -S printed counters
