"""Benchmark: what recording per-I/O latency costs (issue 16's overhead budget).

* In the kernel: the recorder's programs' own run time per I/O, from the kernel's BPF
  statistics (`--stats`: run_time_ns / run_cnt), while fio reads a loop device at queue depth 1
  and 16; beside it the obvious bpftrace program (start times keyed by (dev, sector), a
  power-of-two histogram) measured the same way through `bpftool prog show`.
* End to end, differentially: two loop devices read at the same time by one fio, only one of
  them recorded; rounds with and without the recorder alternate. The figure is, per round, the
  recorded device's IOPS over the other's, and the median of traced rounds over the median of
  untraced rounds (1.0 = no cost). Plain alternating runs vary several-fold on a shared 2-core
  VM; the ratio of two devices read together cancels most of that.

Needs root, BPF (docs/ebpf.md), fio and losetup; prints the reason and exits 0 without them.

    python bench/ebpf_overhead.py [--seconds 5] [--rounds 6]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from machine import machine_line

from pinchpoint.checks.parse.biolat import parse_recording
from pinchpoint.checks.source.biolat import recording_command, unavailable_reason

BPFTRACE_PROGRAM = """
tracepoint:block:block_rq_issue { @start[args->dev, args->sector] = nsecs; }
tracepoint:block:block_rq_complete /@start[args->dev, args->sector]/ {
  @ns[args->dev] = hist(nsecs - @start[args->dev, args->sector]);
  delete(@start[args->dev, args->sector]);
}
"""


@contextmanager
def loop_devices(directory: Path, count: int) -> Iterator[list[str]]:
    made = []
    try:
        for number in range(count):
            backing = directory / f"loop{number}.img"
            with open(backing, "wb") as file:
                file.truncate(256 * 1024 * 1024)
            argv = ["losetup", "--direct-io=on", "--find", "--show", str(backing)]
            made.append(
                subprocess.run(argv, check=True, capture_output=True, text=True).stdout.strip()
            )
        yield made
    finally:
        for path in made:
            subprocess.run(["losetup", "--detach", path], check=False)


def fio(devices: list[str], seconds: float, depth: int) -> list[int]:
    """IOPS of each device, read at random (4 KiB, direct) by one job per device at once."""
    argv = ["fio", "--output-format=json", "--group_reporting=0"]
    for number, device in enumerate(devices):
        argv += [
            f"--name=dev{number}",
            f"--filename={device}",
            "--rw=randread",
            "--bs=4k",
            "--direct=1",
            "--ioengine=libaio",
            f"--iodepth={depth}",
            "--time_based",
            f"--runtime={seconds:g}",
        ]
    jobs = json.loads(subprocess.run(argv, check=True, capture_output=True, text=True).stdout)[
        "jobs"
    ]
    return [int(job["read"]["total_ios"] / seconds) for job in jobs]


def dev_of(device: str) -> str:
    return Path(f"/sys/class/block/{os.path.basename(device)}/dev").read_text().strip()


class Recorder:
    def __init__(self, devices: list[str], stats: bool) -> None:
        command = recording_command(3600, devices, stats)
        self.process = subprocess.Popen(
            command.argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        assert self.process.stderr is not None
        line = self.process.stderr.readline()
        if "attached" not in line:
            raise RuntimeError(line + self.process.stderr.read())

    def stop(self) -> str:
        self.process.send_signal(signal.SIGINT)
        return self.process.communicate(timeout=60)[0]


def in_kernel_cost(device: str, seconds: float, depth: int) -> dict[str, float]:
    recorder = Recorder([dev_of(device)], stats=True)
    iops = fio([device], seconds, depth)[0]
    recording = parse_recording(recorder.stop())
    runs = {p.name: p for p in recording.programs}
    ios = sum(o.device_time.count for d in recording.devices for o in d.ops)
    per_run = {n: p.run_time_ns / p.run_count for n, p in runs.items() if p.run_count}
    return {
        "iops": iops,
        "ios": ios,
        "issue_ns": per_run.get("on_issue", 0.0),
        "complete_ns": per_run.get("on_complete", 0.0),
        "insert_ns": per_run.get("on_insert", 0.0),
        "all_runs_per_io_ns": sum(p.run_time_ns for p in runs.values()) / max(ios, 1),
    }


def bpftrace_cost(device: str, seconds: float, depth: int) -> dict[str, float] | None:
    if shutil.which("bpftrace") is None or shutil.which("bpftool") is None:
        return None
    before = Path("/proc/sys/kernel/bpf_stats_enabled").read_text().strip()
    Path("/proc/sys/kernel/bpf_stats_enabled").write_text("1")
    env = {**os.environ, "BPFTRACE_MAP_KEYS_MAX": "65536"}
    trace = subprocess.Popen(
        ["bpftrace", "-e", BPFTRACE_PROGRAM],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        start_new_session=True,
    )
    try:
        time.sleep(5)  # bpftrace says "attached" before it has
        iops = fio([device], seconds, depth)[0]
        shown = json.loads(
            subprocess.run(
                ["bpftool", "prog", "show", "-j"], check=True, capture_output=True, text=True
            ).stdout
        )
    finally:
        os.killpg(trace.pid, signal.SIGINT)
        trace.wait(30)
        Path("/proc/sys/kernel/bpf_stats_enabled").write_text(before)
    programs = [
        p
        for p in shown
        if p.get("type") == "tracepoint"
        and p.get("run_cnt")
        and p.get("pids", [{}])[0].get("comm") == "bpftrace"
    ]
    if not programs:
        programs = [p for p in shown if p.get("type") == "tracepoint" and p.get("run_cnt")]
    per_run = sorted(p["run_time_ns"] / p["run_cnt"] for p in programs)
    return {"iops": iops, "per_io_ns": sum(per_run)} if per_run else None


def differential(
    devices: list[str], seconds: float, rounds: int, depth: int
) -> tuple[float, list[float], list[float]]:
    traced: list[float] = []
    untraced: list[float] = []
    for number in range(rounds * 2):
        if number % 2 == 0:
            recorder = Recorder([dev_of(devices[0])], stats=False)
            a, b = fio(devices, seconds, depth)
            recorder.stop()
            traced.append(a / b)
        else:
            a, b = fio(devices, seconds, depth)
            untraced.append(a / b)
    return statistics.median(traced) / statistics.median(untraced), traced, untraced


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    reason = unavailable_reason()
    for tool in ("fio", "losetup"):
        if reason is None and shutil.which(tool) is None:
            reason = f"{tool} is not installed"
    if reason is not None:
        print(f"skipped: {reason}")
        return 0
    print(machine_line())
    with tempfile.TemporaryDirectory() as scratch, loop_devices(Path(scratch), 2) as devices:
        print(
            "\n| program | queue depth | IOPS | issue ns/run | complete ns/run | insert ns/run "
            "| all runs / recorded I/O |"
        )
        print("|---|---|---|---|---|---|---|")
        for depth in (1, 16):
            cost = in_kernel_cost(devices[0], args.seconds, depth)
            print(
                f"| pinchpoint-biolat | {depth} | {cost['iops']:,.0f} | {cost['issue_ns']:.0f} | "
                f"{cost['complete_ns']:.0f} | {cost['insert_ns']:.0f} | "
                f"{cost['all_runs_per_io_ns']:.0f} ns |"
            )
        for depth in (1, 16):
            cost_bt = bpftrace_cost(devices[0], args.seconds, depth)
            if cost_bt is not None:
                print(
                    f"| bpftrace (dev, sector) + hist | {depth} | {cost_bt['iops']:,.0f} "
                    f"| — | — | — | {cost_bt['per_io_ns']:.0f} ns (issue + complete) |"
                )
        for depth in (1, 16):
            ratio, traced, untraced = differential(devices, args.seconds, args.rounds, depth)
            print(
                f"\nqueue depth {depth}: recorded/other IOPS, traced rounds "
                f"{', '.join(f'{r:.3f}' for r in traced)}; untraced "
                f"{', '.join(f'{r:.3f}' for r in untraced)}; median ratio traced/untraced "
                f"**{ratio:.3f}**"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
