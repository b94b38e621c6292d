"""Benchmark: the kernel latency recorder on a host with many block devices (issue 16).

Creates up to `--devices` loop devices (default 2,000) over sparse files in /dev/shm, reads
every one of them once (so each has its own entry in the recorder's maps), and records for
`--seconds` while fio reads a sample of them lightly. For each loader given (`--loader
LABEL=PATH`, repeatable, run in turn over the same devices: A/B interleaved; `--loader-args
LABEL=ARGS` gives one of them options, e.g. `--layout shared`) it reports the layout its maps
took (per-CPU or shared, where the recorder says), the
time to load and attach, the memory of its maps (`bpftool map show`: bytes_memlock, before
and after the I/O), the size of its output, the time to stop it and print, the time to parse
that output in Python, and the in-kernel cost per I/O (`--stats`). Every loop device made is
detached and removed at the end, on failure too; where the kernel stops giving loop devices,
it says at how many and why.

Needs root, BPF (docs/ebpf.md), fio, losetup and bpftool; prints the reason and exits 0
without them.

    python bench/ebpf_scale.py [--devices 2000] [--sample 100] [--seconds 10] [--rounds 2]
        [--loader LABEL=PATH ...] [--loader-args LABEL="--layout shared" ...]
"""

from __future__ import annotations

import argparse
import fcntl
import json
import mmap
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from machine import machine_line

from pinchpoint.checks.parse.biolat import parse_recording
from pinchpoint.checks.parse.importers.ebpf_json import recording_imported
from pinchpoint.checks.source.biolat import LOADER_ENV, loader_path, unavailable_reason

LOOP_CTL_REMOVE = 0x4C81  # linux/loop.h
BACKING_BYTES = 64 * 1024 * 1024  # sparse: a tmpfs file takes no memory until written


@dataclass
class LoopDevices:
    paths: list[str]
    limit_reason: str | None  # why fewer than asked were made


@contextmanager
def loop_devices(directory: Path, count: int) -> Iterator[LoopDevices]:
    """Up to `count` loop devices over sparse files in `directory`; every one detached on the
    way out, whatever happened."""
    made = LoopDevices([], None)
    existed = set(os.listdir("/sys/block"))
    try:
        for number in range(count):
            backing = directory / f"loop{number}.img"
            with open(backing, "wb") as file:
                file.truncate(BACKING_BYTES)
            argv = ["losetup", "--direct-io=on", "--find", "--show", str(backing)]
            done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
            if done.returncode != 0:
                made.limit_reason = done.stderr.strip() or f"losetup exited {done.returncode}"
                break
            made.paths.append(done.stdout.strip())
            if number % 250 == 249:
                print(f"  {number + 1} loop devices", file=sys.stderr)
        yield made
    finally:
        for path in made.paths:
            subprocess.run(["losetup", "--detach", path], check=False, timeout=60)
        remove_loop_devices([p for p in made.paths if os.path.basename(p) not in existed])


def remove_loop_devices(paths: list[str]) -> None:
    """Remove the detached loop devices this run made (`losetup --find` makes them through
    /dev/loop-control and they outlive their detaching: 2,000 empty devices would stay in
    /sys/block). One in use again meanwhile is left alone (EBUSY)."""
    try:
        control = os.open("/dev/loop-control", os.O_RDWR)
    except OSError:
        return
    left = paths
    try:
        for _ in range(5):  # a device just detached may still be open a moment (a probe)
            busy = []
            for path in left:
                try:
                    fcntl.ioctl(control, LOOP_CTL_REMOVE, int(path.removeprefix("/dev/loop")))
                except OSError:
                    busy.append(path)
            if not busy:
                return
            left = busy
            time.sleep(1)
        print(f"{len(left)} loop devices could not be removed (in use)", file=sys.stderr)
    finally:
        os.close(control)


def touch_every_device(paths: list[str]) -> None:
    """One 4 KiB direct read from each device, so each gets its entry in the maps."""
    buffer = mmap.mmap(-1, 4096)  # page-aligned, as O_DIRECT asks
    for path in paths:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
        try:
            os.preadv(fd, [buffer], 0)
        finally:
            os.close(fd)


def map_memory(pid: int) -> dict[str, int]:
    """The memory charged for each BPF map the process `pid` holds open (its fdinfo's
    `memlock`, what `bpftool map show` prints as bytes_memlock), by map id."""
    found: dict[str, int] = {}
    for fd in os.listdir(f"/proc/{pid}/fdinfo"):
        try:
            text = Path(f"/proc/{pid}/fdinfo/{fd}").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in text.splitlines() if ":" in line)
        if "map_id" in fields and "memlock" in fields:
            found[fields["map_id"].strip()] = int(fields["memlock"])
    return found


def map_names(pid: int) -> dict[str, str]:
    """The name of each map by id, from bpftool."""
    shown = json.loads(
        subprocess.run(
            ["bpftool", "map", "show", "-j"], check=True, capture_output=True, text=True
        ).stdout
    )
    return {str(m["id"]): m.get("name", "") for m in shown}


def program_runs(line: bytes) -> tuple[int, int]:
    """(run time ns, I/Os counted) of issue + complete in one line of the recorder."""
    recording = parse_recording(line.decode())
    runs = {p.name: p.run_time_ns for p in recording.programs}
    ios = sum(o.device_time.count for d in recording.devices for o in d.ops)
    return runs.get("on_issue", 0) + runs.get("on_complete", 0), ios


def record_once(
    paths: list[str], sample: list[str], seconds: float, options: list[str]
) -> dict[str, Any]:
    argv = [loader_path() or "pinchpoint-biolat", "--seconds", "0", "--stats", *options]
    started = time.monotonic()
    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True
    )
    said = ""
    try:
        assert process.stderr is not None
        while "attached" not in (line := process.stderr.readline().decode(errors="replace")):
            if not line:
                raise RuntimeError(said)
            said += line
        attach_s = time.monotonic() - started
        memory_before = sum(map_memory(process.pid).values())
        touch_every_device(paths)
        assert process.stdout is not None
        process.send_signal(signal.SIGUSR1)  # the counts before fio: the cost is fio's I/Os'
        before_ns, before_ios = program_runs(process.stdout.readline())
        fio = [
            "fio", "--name=spread", "--filename=" + ":".join(sample), "--rw=randread",
            "--bs=4k", "--direct=1", "--ioengine=libaio", "--iodepth=4",
            "--file_service_type=random", "--rate_iops=2000", "--disk_util=0", "--time_based",
            f"--runtime={seconds:g}", "--output-format=json",
        ]  # fmt: skip
        done = json.loads(subprocess.run(fio, check=True, capture_output=True, text=True).stdout)
        fio_ios = done["jobs"][0]["read"]["total_ios"]
        memory = map_memory(process.pid)
        names = map_names(process.pid)
        asked = time.monotonic()
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=120)
        stop_s = time.monotonic() - asked
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(30)
    text = out.decode()
    began = time.perf_counter()
    recording = parse_recording(text)
    parse_s = time.perf_counter() - began
    began = time.perf_counter()
    recording_imported(recording, "ebpf")
    import_s = time.perf_counter() - began
    kernel_names = {os.path.basename(p) for p in paths}
    wanted = {Path(f"/sys/class/block/{n}/dev").read_text().strip() for n in kernel_names}
    recorded = [d for d in recording.devices if d.dev in wanted]
    final_ns, ios = program_runs(out.splitlines()[-1])
    reported = recording.memory
    return {
        "layout": reported.layout.value if reported else "percpu (before the budget)",
        "budget": reported.budget_bytes if reported else 0,
        "said": said.strip(),
        "attach_s": attach_s,
        "memory_before": memory_before,
        "memory": sum(memory.values()),
        "stats_map": sum(v for k, v in memory.items() if names.get(k) in ("stats", "hists")),
        "devices_recorded": len(recorded),
        "fio_ios": fio_ios,
        "ios": ios,
        "output_bytes": len(out),
        "stop_s": stop_s,
        "parse_s": parse_s,
        "import_s": import_s,
        "per_io_ns": (final_ns - before_ns) / max(ios - before_ios, 1),
        "first_io_ns": before_ns / max(before_ios, 1),
        "lost": recording.lost,
        "lost_as": ", ".join(
            [f"{k} {v}" for k, v in recording.drops.items() if v]
            + [
                f"{p.name} recursion misses {p.recursion_misses}"
                for p in recording.programs
                if p.recursion_misses
            ]
        ),
    }


def use_loader(path: str | None) -> None:
    if path is None:
        os.environ.pop(LOADER_ENV, None)
    else:
        os.environ[LOADER_ENV] = path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=2000)
    parser.add_argument("--sample", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--loader", action="append", default=[], metavar="LABEL=PATH")
    parser.add_argument("--loader-args", action="append", default=[], metavar="LABEL=ARGS")
    args = parser.parse_args()
    loaders: dict[str, str | None] = {"pinchpoint-biolat": None}
    if args.loader:
        loaders = {item.partition("=")[0]: item.partition("=")[2] for item in args.loader}
    options = {item.partition("=")[0]: item.partition("=")[2].split() for item in args.loader_args}
    if set(options) - set(loaders):
        raise SystemExit(f"--loader-args for no --loader: {', '.join(set(options) - set(loaders))}")
    use_loader(next(iter(loaders.values())))
    reason = unavailable_reason()
    for tool in ("fio", "losetup", "bpftool"):
        if reason is None and shutil.which(tool) is None:
            reason = f"{tool} is not installed"
    if reason is not None:
        print(f"skipped: {reason}")
        return 0
    print(machine_line())
    with (
        tempfile.TemporaryDirectory(dir="/dev/shm") as scratch,
        loop_devices(Path(scratch), args.devices) as made,
    ):
        paths = made.paths
        print(f"\n{len(paths)} loop devices made (asked for {args.devices})")
        if made.limit_reason:
            print(f"stopped at {len(paths)}: {made.limit_reason}")
        step = max(1, len(paths) // args.sample)
        sample = paths[::step][: args.sample]
        results: dict[str, list[dict[str, Any]]] = {}
        for _ in range(args.rounds):
            for label, path in loaders.items():
                use_loader(path)
                results.setdefault(label, []).append(
                    record_once(paths, sample, args.seconds, options.get(label, []))
                )
        print(
            f"\nfio over {len(sample)} of them (2,000 IOPS in all, {args.seconds:g} s), every "
            "device read once; medians of "
            f"{args.rounds} rounds:\n\n| loader | layout (budget) | devices recorded | attach s "
            "| maps before I/O "
            "| maps after (histograms) | output | stop + print s | parse s | as statistics s "
            "| ns per I/O: first read of each device | ns per I/O: fio | lost |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for label, rounds in results.items():

            def median(key: str, rounds: list[dict[str, Any]] = rounds) -> float:
                return statistics.median(r[key] for r in rounds)

            budget = rounds[0]["budget"]
            print(
                f"| {label} | {rounds[0]['layout']}"
                + (f" ({budget / 2**20:,.0f} MiB)" if budget else "")
                + f" | {median('devices_recorded'):,.0f} | {median('attach_s'):.2f} "
                f"| {median('memory_before') / 2**20:,.1f} MiB | {median('memory') / 2**20:,.1f} "
                f"MiB ({median('stats_map') / 2**20:,.1f} MiB) "
                f"| {median('output_bytes') / 2**10:,.0f} KiB | {median('stop_s'):.2f} "
                f"| {median('parse_s'):.2f} | {median('import_s'):.2f} "
                f"| {median('first_io_ns'):.0f} | {median('per_io_ns'):.0f} "
                f"| {median('lost'):.0f} |"
            )
        for label, rounds in results.items():
            for number, result in enumerate(rounds):
                if result["lost_as"]:
                    print(f"\n{label}, round {number + 1}: lost as {result['lost_as']}")
                if result["said"]:
                    print(f"\n{label}, round {number + 1}, the recorder said: {result['said']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
