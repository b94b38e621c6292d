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

`--loader LABEL=PATH` (repeatable) compares builds of the recorder, e.g. before and after a
change: every measurement round runs each of them in turn, so a shared machine's drift falls on
all alike (A/B interleaved). Without it, the loader pinchpoint finds is measured.
`--loader-args LABEL=ARGS` gives one of them options, e.g. `--layout shared` (one build run as
two loaders: its per-CPU and its shared layout).

Needs root, BPF (docs/ebpf.md), fio and losetup; prints the reason and exits 0 without them.

    python bench/ebpf_overhead.py [--seconds 5] [--rounds 6] [--loader before=PATH ...]
        [--loader-args LABEL="--layout shared" ...]
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
from pinchpoint.checks.source.biolat import LOADER_ENV, recording_command, unavailable_reason

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


# (queue depth, I/O scheduler of the recorded loop device) of the in-kernel measurements.
SCENARIOS = ((1, "none"), (16, "none"), (16, "mq-deadline"))


LOADER_ARGS: list[str] = []  # the options of the loader in use (`--loader-args`)


def use_loader(path: str | None, args: list[str] | None = None) -> None:
    """Make `recording_command` run the loader at `path` (None: the one pinchpoint finds) with
    `args`."""
    if path is None:
        os.environ.pop(LOADER_ENV, None)
    else:
        os.environ[LOADER_ENV] = path
    LOADER_ARGS[:] = args or []


class Recorder:
    def __init__(self, devices: list[str], stats: bool) -> None:
        command = recording_command(3600, devices, stats)
        self.process = subprocess.Popen(
            [*command.argv, *LOADER_ARGS],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stderr is not None
        said = ""
        while "attached" not in (line := self.process.stderr.readline()):
            if not line:
                raise RuntimeError(said + self.process.stderr.read())
            said += line

    def stop(self) -> str:
        self.process.send_signal(signal.SIGINT)
        return self.process.communicate(timeout=60)[0]


def set_scheduler(device: str, scheduler: str) -> None:
    """The loop device's I/O scheduler: `none` issues directly, `mq-deadline` inserts every
    request first (as on a disk behind a SAS HBA), so the insert program runs too."""
    Path(f"/sys/block/{os.path.basename(device)}/queue/scheduler").write_text(scheduler)


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


def differential_round(
    devices: list[str], seconds: float, depth: int, loaders: dict[str, str | None]
) -> dict[str, float]:
    """One round: an untraced run, then one run recorded by each loader; per run the recorded
    device's IOPS over the other's."""
    ratios: dict[str, float] = {}
    a, b = fio(devices, seconds, depth)
    ratios["untraced"] = a / b
    for label, path in loaders.items():
        use_loader(path, LOADER_OPTIONS.get(label))
        recorder = Recorder([dev_of(devices[0])], stats=False)
        a, b = fio(devices, seconds, depth)
        recorder.stop()
        ratios[label] = a / b
    return ratios


LOADER_OPTIONS: dict[str, list[str]] = {}  # by loader label


def parse_loader_args(given: list[str], labels: set[str]) -> dict[str, list[str]]:
    options = {}
    for item in given:
        label, _, args = item.partition("=")
        if label not in labels:
            raise SystemExit(f"--loader-args {item}: no --loader labelled {label!r}")
        options[label] = args.split()
    return options


def parse_loaders(given: list[str]) -> dict[str, str | None]:
    if not given:
        return {"pinchpoint-biolat": None}
    loaders: dict[str, str | None] = {}
    for item in given:
        label, _, path = item.partition("=")
        if not path or not os.access(path, os.X_OK):
            raise SystemExit(f"--loader {item}: expected LABEL=PATH to an executable loader")
        loaders[label] = path
    return loaders


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--loader", action="append", default=[], metavar="LABEL=PATH")
    parser.add_argument("--loader-args", action="append", default=[], metavar="LABEL=ARGS")
    parser.add_argument("--no-differential", action="store_true")
    args = parser.parse_args()
    loaders = parse_loaders(args.loader)
    LOADER_OPTIONS.update(parse_loader_args(args.loader_args, set(loaders)))
    use_loader(next(iter(loaders.values())))
    reason = unavailable_reason()
    for tool in ("fio", "losetup"):
        if reason is None and shutil.which(tool) is None:
            reason = f"{tool} is not installed"
    if reason is not None:
        print(f"skipped: {reason}")
        return 0
    print(machine_line())
    with tempfile.TemporaryDirectory() as scratch, loop_devices(Path(scratch), 2) as devices:
        costs: dict[tuple[str, int, str], list[dict[str, float]]] = {}
        for _ in range(args.rounds):
            for depth, scheduler in SCENARIOS:
                set_scheduler(devices[0], scheduler)
                for label, path in loaders.items():
                    use_loader(path, LOADER_OPTIONS.get(label))
                    cost = in_kernel_cost(devices[0], args.seconds, depth)
                    costs.setdefault((label, depth, scheduler), []).append(cost)
        set_scheduler(devices[0], "none")
        print(
            "\n| program | queue depth, scheduler | IOPS | issue ns/run | complete ns/run "
            "| insert ns/run | all runs / recorded I/O "
            "| issue + complete per I/O: median (rounds) |"
        )
        print("|---|---|---|---|---|---|---|---|")
        for depth, scheduler in SCENARIOS:
            for label in loaders:
                rounds = costs[(label, depth, scheduler)]
                per_io = [c["issue_ns"] + c["complete_ns"] for c in rounds]

                def median(field: str, rounds: list[dict[str, float]] = rounds) -> float:
                    return statistics.median(c[field] for c in rounds)

                print(
                    f"| {label} | {depth}, {scheduler} | {median('iops'):,.0f} "
                    f"| {median('issue_ns'):.0f} | {median('complete_ns'):.0f} "
                    f"| {median('insert_ns'):.0f} | {median('all_runs_per_io_ns'):.0f} "
                    f"| **{statistics.median(per_io):.0f} ns** "
                    f"({', '.join(f'{v:.0f}' for v in per_io)}) |"
                )
        for depth in (1, 16):
            cost_bt = bpftrace_cost(devices[0], args.seconds, depth)
            if cost_bt is not None:
                print(
                    f"| bpftrace (dev, sector) + hist | {depth} | {cost_bt['iops']:,.0f} "
                    f"| — | — | — | {cost_bt['per_io_ns']:.0f} ns (issue + complete) |"
                )
        if args.no_differential:
            return 0
        for depth in (1, 16):
            ratios: dict[str, list[float]] = {}
            for _ in range(args.rounds):
                for label, ratio in differential_round(
                    devices, args.seconds, depth, loaders
                ).items():
                    ratios.setdefault(label, []).append(ratio)
            untraced = statistics.median(ratios["untraced"])
            print(
                f"\nqueue depth {depth}: recorded/other IOPS, untraced rounds "
                f"{', '.join(f'{r:.3f}' for r in ratios['untraced'])}"
            )
            for label in loaders:
                ratio = statistics.median(ratios[label]) / untraced
                print(
                    f"  {label}: traced rounds {', '.join(f'{r:.3f}' for r in ratios[label])}; "
                    f"median ratio traced/untraced **{ratio:.3f}**"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
