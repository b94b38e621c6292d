"""`/proc/net/dev`: the kernel's table of interface counters, read from a real capture, from
this machine, from snapshot samples, and from every kind of bad input."""

from __future__ import annotations

from pathlib import Path

from fixture_paths import FIXTURES as ALL_FIXTURES

from pinchpoint.checks.collect.diskstats import record_samples
from pinchpoint.checks.collect.netdev import (
    live_net_dev_sample,
    parse_net_dev,
    read_net_dev_sample,
    read_net_dev_series,
)
from pinchpoint.checks.source import LiveSource, SnapshotSource
from pinchpoint.model.problems import ProblemKind

FIXTURES = ALL_FIXTURES / "netdev"
PROCFS = (FIXTURES / "procfs__proc_net_dev.txt").read_text()
HEADER = "\n".join(PROCFS.splitlines()[:2]) + "\n"


def snapshot(root: Path, samples: dict[int, tuple[str | bytes | None, str | None]]) -> Path:
    """A snapshot directory with `samples/<n>/proc/net/dev` and `proc/uptime` (None: absent)."""
    (root / "manifest.json").parent.mkdir(parents=True, exist_ok=True)
    for n, (net_dev, uptime) in samples.items():
        proc = root / "samples" / str(n) / "proc"
        (proc / "net").mkdir(parents=True)
        if isinstance(net_dev, bytes):
            (proc / "net" / "dev").write_bytes(net_dev)
        elif net_dev is not None:
            (proc / "net" / "dev").write_text(net_dev)
        if uptime is not None:
            (proc / "uptime").write_text(uptime)
    return root


def test_real_capture_of_a_docker_host() -> None:
    interfaces, skipped = parse_net_dev(PROCFS)
    assert skipped.count == 0
    assert [i.interface for i in interfaces] == ["vethf345468", "lo", "docker0", "eth0"]
    eth0 = interfaces[3]
    assert (eth0.rx_bytes, eth0.rx_packets, eth0.tx_bytes, eth0.tx_packets) == (
        874354587,
        1036395,
        563352563,
        732147,
    )
    assert eth0.rx_errs == eth0.rx_drop == eth0.tx_colls == eth0.tx_carrier == 0
    veth = interfaces[0]  # a long name touches its colon
    assert (veth.rx_bytes, veth.rx_packets, veth.tx_bytes, veth.tx_packets) == (648, 8, 438, 5)


def test_this_machines_own_table() -> None:
    sample = live_net_dev_sample()
    assert sample.problems == [] and sample.skipped.count == 0
    assert sample.monotonic_s is not None
    names = [i.interface for i in sample.interfaces]
    assert "lo" in names and len(names) == len(set(names))
    through_source, _ = parse_net_dev(LiveSource().read_text("/proc/net/dev"))
    assert [i.interface for i in through_source] == names


def test_every_counter_lands_in_its_column() -> None:
    line = "  eth1: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"
    (found,), skipped = parse_net_dev(HEADER + line)
    assert skipped.count == 0
    assert found.model_dump() == {
        "interface": "eth1",
        "rx_bytes": 1,
        "rx_packets": 2,
        "rx_errs": 3,
        "rx_drop": 4,
        "rx_fifo": 5,
        "rx_frame": 6,
        "rx_compressed": 7,
        "rx_multicast": 8,
        "tx_bytes": 9,
        "tx_packets": 10,
        "tx_errs": 11,
        "tx_drop": 12,
        "tx_fifo": 13,
        "tx_colls": 14,
        "tx_carrier": 15,
        "tx_compressed": 16,
    }


def test_a_number_touching_the_colon_as_kernels_2_4_printed_it() -> None:
    (found,), skipped = parse_net_dev("eth0:1234 10 0 0 0 0 0 0 5678 20 0 0 0 0 0 0\n")
    assert skipped.count == 0 and (found.rx_bytes, found.tx_bytes) == (1234, 5678)


def test_truncated_file_keeps_the_complete_lines() -> None:
    cut = PROCFS[: PROCFS.rindex("eth0") + 30]  # the last line ends mid-counters
    interfaces, skipped = parse_net_dev(cut)
    assert [i.interface for i in interfaces] == ["vethf345468", "lo", "docker0"]
    assert skipped.count == 1 and skipped.first_line_number == 6
    assert "expected 16 counters" in (skipped.summary() or "")


def test_garbled_lines_are_counted_with_the_first_example() -> None:
    text = (
        HEADER
        + "  eth0: 12 x 0 0 0 0 0 0 9 1 0 0 0 0 0 0\n"
        + "  eth1: -5 1 0 0 0 0 0 0 9 1 0 0 0 0 0 0\n"
        + "no colon here at all\n"
        + "  eth2: 1 2 0 0 0 0 0 0 3 4 0 0 0 0 0 0\n"
        + "  eth2: 9 9 0 0 0 0 0 0 9 9 0 0 0 0 0 0\n"
    )
    interfaces, skipped = parse_net_dev(text)
    assert [(i.interface, i.rx_bytes) for i in interfaces] == [("eth2", 1)]
    assert skipped.count == 4
    assert skipped.first_line_number == 3
    assert skipped.first_reason == "a counter is not a non-negative whole number"


def test_empty_and_binary_files_are_reported_not_fatal(tmp_path: Path) -> None:
    root = snapshot(
        tmp_path / "snap",
        {0: ("", "100.00 150.00\n"), 1: (b"\x00\x7fELF\xff\xfe:\x01\x02\n" * 3, "110.00 1\n")},
    )
    empty, binary = read_net_dev_series(SnapshotSource(root))
    assert empty.interfaces == [] and empty.uptime_s == 100.0
    assert [p.kind for p in empty.problems] == [ProblemKind.GARBLED]
    assert "empty file" in empty.problems[0].reason
    assert binary.interfaces == [] and binary.skipped.count == 3
    assert "3 lines skipped" in binary.problems[0].reason


def test_missing_files_are_problems_and_the_sample_still_stands(tmp_path: Path) -> None:
    root = snapshot(tmp_path / "snap", {0: (None, "5.00 1\n"), 1: (PROCFS, None)})
    first, second = read_net_dev_series(SnapshotSource(root))
    assert first.interfaces == [] and first.uptime_s == 5.0
    assert "no network interface counters" in first.problems[0].reason
    assert len(second.interfaces) == 4 and second.uptime_s is None
    assert "no clock for this sample" in second.problems[0].reason


def test_garbled_uptime_is_a_problem(tmp_path: Path) -> None:
    root = snapshot(tmp_path / "snap", {0: (PROCFS, "soon\n")})
    (sample,) = read_net_dev_series(SnapshotSource(root))
    assert sample.uptime_s is None and "expected seconds since boot" in sample.problems[0].reason


def test_a_snapshot_without_a_series_is_one_sample(tmp_path: Path) -> None:
    (tmp_path / "proc" / "net").mkdir(parents=True)
    (tmp_path / "proc" / "net" / "dev").write_text(PROCFS)
    (tmp_path / "proc" / "uptime").write_text("7654.32 100.00\n")
    (sample,) = read_net_dev_series(SnapshotSource(tmp_path))
    assert len(sample.interfaces) == 4 and sample.uptime_s == 7654.32
    assert read_net_dev_sample(SnapshotSource(tmp_path)).interfaces == sample.interfaces


def test_record_samples_keeps_proc_net_dev_with_each_sample(tmp_path: Path) -> None:
    problems = record_samples(tmp_path / "snap", count=2, interval_s=0.05)
    assert problems == []
    samples = read_net_dev_series(SnapshotSource(tmp_path / "snap"))
    assert len(samples) == 2
    assert all(s.problems == [] and s.uptime_s is not None for s in samples)
    assert all("lo" in [i.interface for i in s.interfaces] for s in samples)


def test_record_samples_without_proc_net_dev_keeps_the_diskstats(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "proc").mkdir(parents=True)
    (root / "proc" / "diskstats").write_text("   8       0 sda 1 0 8 1 1 0 8 1 0 1 2\n")
    (root / "proc" / "uptime").write_text("10.00 1\n")
    problems = record_samples(tmp_path / "snap", count=1, interval_s=0.0, root=str(root))
    assert len(problems) == 1 and "without interface counters" in problems[0].reason
    assert (tmp_path / "snap" / "samples" / "0" / "proc" / "diskstats").is_file()
    assert not (tmp_path / "snap" / "samples" / "0" / "proc" / "net").exists()
