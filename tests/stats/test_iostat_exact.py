"""`interval_figures` against the real `iostat -x` of sysstat 12 on the same samples.

iostat reads its counters from `/proc/diskstats` (with `-p ALL`) and its clock from
`/proc/uptime`. Inside a private mount namespace (`unshare -m`) each of those is replaced by a
named pipe (bind-mounted over it) that this test feeds: the first report of `iostat -x` is the
figures since boot (between all-zero counters at uptime 0 and the sample); with `-y 1 1` iostat
reads twice and prints the second interval only, and the pipes hand it our two samples in turn,
whatever the timing. Every figure iostat prints must equal ours to its two decimals.

The samples are the real corpus files (tests/fixtures/diskstats/SOURCES.md) and second samples
made from them by adding known deltas: busy disks, partitions, a dm map, discards and flushes,
a 32-bit time counter wrapping, a 64-bit count wrapping, a busy counter going backwards.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from fixture_paths import FIXTURES as ALL_FIXTURES

from pinchpoint.checks.parse.diskstats import parse_diskstats
from pinchpoint.model.stats import DiskstatsCounters, DiskstatsSample, IntervalFigures
from pinchpoint.stats.iostat import interval_figures

FIXTURES = ALL_FIXTURES / "diskstats"
UBUNTU_20 = FIXTURES / "jc__proc_diskstats_ubuntu_20field.txt"
NODE_EXPORTER = FIXTURES / "node_exporter__proc_diskstats.txt"
PROCFS = FIXTURES / "procfs__proc_diskstats.txt"


def _can_unshare() -> bool:
    if shutil.which("unshare") is None or os.geteuid() != 0:
        return False
    done = subprocess.run(["unshare", "-m", "true"], capture_output=True, check=False)
    return done.returncode == 0


pytestmark = [
    pytest.mark.tools,
    pytest.mark.skipif(shutil.which("iostat") is None, reason="iostat (sysstat) not installed"),
    pytest.mark.skipif(
        not _can_unshare(), reason="needs root and `unshare -m` to give iostat our sample files"
    ),
]

# Counter columns after "major minor name", in the kernel's order.
READS, READS_MERGED, SECTORS_READ, READ_MS = 0, 1, 2, 3
WRITES, WRITES_MERGED, SECTORS_WRITTEN, WRITE_MS = 4, 5, 6, 7
IN_FLIGHT, IO_MS, WEIGHTED_MS = 8, 9, 10
DISCARDS, DISCARDS_MERGED, SECTORS_DISCARDED, DISCARD_MS = 11, 12, 13, 14
FLUSHES, FLUSH_MS = 15, 16
TIMES = {
    READ_MS,
    WRITE_MS,
    IO_MS,
    WEIGHTED_MS,
    DISCARD_MS,
    FLUSH_MS,
}  # unsigned 32-bit in the kernel


def edited(text: str, changes: dict[str, dict[int, int]], *, add: bool = True) -> str:
    """`text` with counters of some devices changed: added to (`add`, wrapping as the kernel's
    unsigned counters do: 32-bit times, 64-bit counts) or set."""
    lines = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) > 3 and fields[2] in changes:
            counters = [int(f) for f in fields[3:]]
            for index, value in changes[fields[2]].items():
                wrap = 2**32 if index in TIMES else 2**64
                counters[index] = (counters[index] + value) % wrap if add else value
            line = f"{fields[0]:>4} {fields[1]:>7} {fields[2]} " + " ".join(map(str, counters))
        lines.append(line)
    return "\n".join(lines) + "\n"


def sample(text: str, uptime_s: float) -> DiskstatsSample:
    devices, skipped = parse_diskstats(text)
    assert skipped.count == 0, skipped.summary()
    return DiskstatsSample(uptime_s=uptime_s, devices=devices)


def since_boot(after: DiskstatsSample) -> DiskstatsSample:
    """The all-zero counters iostat compares its first report with, at uptime 0."""
    zeros = []
    for c in after.devices:
        values = {k: (0 if isinstance(v, int) else v) for k, v in c.model_dump().items()}
        values.update(major=c.major, minor=c.minor, device=c.device, field_count=c.field_count)
        zeros.append(DiskstatsCounters(**values))
    return DiskstatsSample(uptime_s=0.0, devices=zeros)


def run_iostat(
    tmp_path: Path, reads: list[tuple[str, str]], args: list[str]
) -> list[dict[str, Any]]:
    """What `iostat -x -d -p ALL -o JSON <args>` prints when its successive reads of
    /proc/uptime and /proc/diskstats return `reads` [(uptime, diskstats), …] in order."""
    uptime_pipe, diskstats_pipe = tmp_path / "uptime.fifo", tmp_path / "diskstats.fifo"
    os.mkfifo(uptime_pipe)
    os.mkfifo(diskstats_pipe)
    failures: list[BaseException] = []

    def feed() -> None:
        # iostat opens /proc/uptime, then /proc/stat, then /proc/diskstats, once per report.
        try:
            for uptime, diskstats in reads:
                uptime_pipe.write_text(uptime)
                diskstats_pipe.write_text(diskstats)
        except OSError as err:  # iostat gave up early: its own error says why
            failures.append(err)

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    script = (
        f"mount --bind {diskstats_pipe} /proc/diskstats && "
        f"mount --bind {uptime_pipe} /proc/uptime && "
        f"exec iostat -x -d -p ALL -o JSON {' '.join(args)}"
    )
    done = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "sh", "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "LC_ALL": "C", "S_COLORS": "never"},
    )
    if feeder.is_alive():  # unblock a writer still waiting for a reader
        for pipe in (uptime_pipe, diskstats_pipe):
            os.close(os.open(pipe, os.O_RDONLY | os.O_NONBLOCK))
        feeder.join(5)
    assert done.returncode == 0, f"iostat failed: {done.stderr}"
    report = json.loads(done.stdout)
    statistics = report["sysstat"]["hosts"][0]["statistics"]
    assert len(statistics) == 1
    disks: list[dict[str, Any]] = statistics[0]["disk"]
    return disks


def assert_same_figures(ours: IntervalFigures, theirs: list[dict[str, Any]]) -> None:
    """Every figure iostat printed equals ours printed the same way (`%.2f`)."""
    by_name = {f.device: f.model_dump(by_alias=True) for f in ours.devices}
    assert theirs, "iostat printed no device"
    for printed in theirs:
        name = printed["disk_device"]
        assert name in by_name, f"iostat shows {name}, pinchpoint does not"
        mine = by_name[name]
        for key, value in printed.items():
            if key == "disk_device":
                continue
            assert f"{mine[key]:.2f}" == f"{value:.2f}", f"{name} {key}: {mine[key]} vs {value}"


def uptime_text(seconds: float) -> str:
    return f"{seconds:.2f} {seconds * 1.9:.2f}\n"


# --- since boot: the first report -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("fixture", "uptime_s"),
    [(UBUNTU_20, 31.17), (NODE_EXPORTER, 86_400.0), (PROCFS, 7_654.32)],
    ids=["20-field", "14-18-20-fields", "procfs"],
)
def test_since_boot_matches_iostat(tmp_path: Path, fixture: Path, uptime_s: float) -> None:
    text = fixture.read_text()
    after = sample(text, uptime_s)
    theirs = run_iostat(tmp_path, [(uptime_text(uptime_s), text)], [])
    ours = interval_figures(since_boot(after), after)
    assert ours.problems == []
    assert_same_figures(ours, theirs)
    # iostat hides devices that never did I/O; the others are all there, partitions too
    printed = {d["disk_device"] for d in theirs}
    assert {"sda", "sda1", "dm-0"} <= printed or {"sdb", "sdb1"} <= printed


# --- two samples: the second report -------------------------------------------------------------

BUSY = {
    "sda": {
        READS: 14_021,
        READS_MERGED: 3_327,
        SECTORS_READ: 893_184,
        READ_MS: 5_077,
        WRITES: 18_702,
        WRITES_MERGED: 13_400,
        SECTORS_WRITTEN: 715_160,
        WRITE_MS: 12_597,
        IO_MS: 24_933,
        WEIGHTED_MS: 17_655,
        DISCARDS: 31,
        DISCARDS_MERGED: 2,
        SECTORS_DISCARDED: 81_920,
        DISCARD_MS: 40,
        FLUSHES: 613,
        FLUSH_MS: 1_207,
    },
    "sda3": {READS: 6_983, SECTORS_READ: 876_106, READ_MS: 3_409, WRITES: 18_722, IO_MS: 18_276},
    "dm-0": {READS: 10_298, SECTORS_READ: 873_914, READ_MS: 7_596, WRITES: 31_994, IO_MS: 18_220},
    "loop5": {READS: 810, SECTORS_READ: 57_906, READ_MS: 205, IO_MS: 2_360, WEIGHTED_MS: 205},
}


def test_interval_with_discards_and_flushes_matches_iostat(tmp_path: Path) -> None:
    first = UBUNTU_20.read_text()
    second = edited(first, BUSY)
    ours = interval_figures(sample(first, 1_000.0), sample(second, 1_031.17))
    theirs = run_iostat(
        tmp_path, [(uptime_text(1_000.0), first), (uptime_text(1_031.17), second)], ["-y", "1", "1"]
    )
    assert_same_figures(ours, theirs)
    sda = next(d for d in theirs if d["disk_device"] == "sda")
    assert sda["f/s"] > 0 and sda["f_await"] > 0 and sda["d_await"] > 0  # the nuance is exercised


def test_wrapped_counters_match_iostat(tmp_path: Path) -> None:
    """A 32-bit time counter (weighted_ms of a deep queue, read_ms) and a 64-bit count wrap."""
    base = edited(
        UBUNTU_20.read_text(),
        {
            "dm-0": {WEIGHTED_MS: 2**32 - 1_000, READ_MS: 2**32 - 7},
            "sr0": {READS: 2**64 - 10},
        },
        add=False,
    )
    later = edited(
        base,
        {
            "dm-0": {WEIGHTED_MS: 6_000, READ_MS: 50, READS: 400, IO_MS: 2_000},
            "sr0": {READS: 15, SECTORS_READ: 960, READ_MS: 30, IO_MS: 40},
        },
    )
    wrapped = {c.device: c for c in parse_diskstats(later)[0]}
    assert (wrapped["dm-0"].read_ms, wrapped["dm-0"].weighted_ms) == (43, 5_000)
    assert wrapped["sr0"].reads == 5
    ours = interval_figures(sample(base, 500.0), sample(later, 510.0))
    theirs = run_iostat(
        tmp_path, [(uptime_text(500.0), base), (uptime_text(510.0), later)], ["-y", "1", "1"]
    )
    assert_same_figures(ours, theirs)
    dm0 = next(f for f in ours.devices if f.device == "dm-0")
    assert dm0.aqu_sz == pytest.approx(0.6) and dm0.r_await == pytest.approx(50 / 400)
    sr0 = next(f for f in ours.devices if f.device == "sr0")
    assert sr0.r_s == pytest.approx(1.5) and not sr0.reset


def test_busy_counter_wrapping_matches_iostat(tmp_path: Path) -> None:
    """io_ms passing 2^32 ms (49.7 days busy): a real wrap, the same %util as iostat."""
    first = edited(NODE_EXPORTER.read_text(), {"vda": {IO_MS: 2**32 - 600}}, add=False)
    second = edited(first, {"vda": {READS: 100, READ_MS: 400, IO_MS: 1_500}})
    ours = interval_figures(sample(first, 86_400.0), sample(second, 86_402.0))
    theirs = run_iostat(
        tmp_path,
        [(uptime_text(86_400.0), first), (uptime_text(86_402.0), second)],
        ["-y", "1", "1"],
    )
    assert_same_figures(ours, theirs)
    vda = next(f for f in ours.devices if f.device == "vda")
    assert vda.util == pytest.approx(75.0) and vda.r_s == 50.0


def test_busy_counter_going_backwards_differs_from_iostat_on_purpose(tmp_path: Path) -> None:
    """io_ms lower in the second sample, not by a wrap: sysstat 12.6 wraps it anyway into a
    %util in the millions; pinchpoint gives 0. Every other figure agrees."""
    first = NODE_EXPORTER.read_text()
    second = edited(first, {"vda": {READS: 100, READ_MS: 400}})
    second = edited(second, {"vda": {IO_MS: 41_614_592 - 5_000}}, add=False)
    ours = interval_figures(sample(first, 86_400.0), sample(second, 86_402.0))
    theirs = run_iostat(
        tmp_path,
        [(uptime_text(86_400.0), first), (uptime_text(86_402.0), second)],
        ["-y", "1", "1"],
    )
    vda_theirs = next(d for d in theirs if d["disk_device"] == "vda")
    assert vda_theirs["util"] > 1_000_000
    vda = next(f for f in ours.devices if f.device == "vda")
    assert vda.util == 0.0 and vda.idle == 100.0 and vda.r_s == 50.0
    for printed in theirs:
        printed["util"] = 0.0 if printed["disk_device"] == "vda" else printed["util"]
    assert_same_figures(ours, theirs)


def test_reset_device_differs_from_iostat_on_purpose(tmp_path: Path) -> None:
    """A device whose counters all went back (re-inserted): iostat prints figures since the
    reset, pinchpoint flags `reset` with zero figures; every other device agrees."""
    first = UBUNTU_20.read_text()
    second = edited(
        edited(first, BUSY),
        {"sr0": {READS: 3, READS_MERGED: 0, SECTORS_READ: 24, READ_MS: 2, IO_MS: 4}},
        add=False,
    )
    ours = interval_figures(sample(first, 100.0), sample(second, 130.0))
    theirs = run_iostat(
        tmp_path, [(uptime_text(100.0), first), (uptime_text(130.0), second)], ["-y", "1", "1"]
    )
    sr0_theirs = next(d for d in theirs if d["disk_device"] == "sr0")
    assert sr0_theirs["r/s"] == 0.1  # 3 reads since the reset, over 30 s
    sr0 = next(f for f in ours.devices if f.device == "sr0")
    assert sr0.reset and sr0.r_s == 0.0
    assert_same_figures(ours, [d for d in theirs if d["disk_device"] != "sr0"])


def test_a_17_field_line_matches_iostat(tmp_path: Path) -> None:
    """A device line with 17 fields (between the 14- and 18-field layouts) is read as iostat
    reads it: the 14-field counters, the rest ignored."""
    first = UBUNTU_20.read_text()
    second = edited(first, BUSY)

    def cut_to_17(text: str) -> str:
        lines = text.splitlines()
        index = next(i for i, line in enumerate(lines) if line.split()[2] == "sda")
        lines[index] = " ".join(lines[index].split()[:17])
        return "\n".join(lines) + "\n"

    before, after = cut_to_17(first), cut_to_17(second)
    ours = interval_figures(sample(before, 1_000.0), sample(after, 1_031.17))
    assert ours.problems == []
    theirs = run_iostat(
        tmp_path,
        [(uptime_text(1_000.0), before), (uptime_text(1_031.17), after)],
        ["-y", "1", "1"],
    )
    assert_same_figures(ours, theirs)
    assert any(d["disk_device"] == "sda" and d["r/s"] > 0 for d in theirs)
