"""Running the kernel latency recorder `pinchpoint-biolat` (`bpf/`, `docs/ebpf.md`) on this
host: where it is, why it cannot run here, and one recording run like every other tool (an
argument list, a timeout, capped output, its process group stopped with it)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from pinchpoint.checks.source.commands import Command, CommandResult, run_command

LOADER = "pinchpoint-biolat"
LOADER_ENV = "PINCHPOINT_BIOLAT"  # the loader's path, where it is not beside the interpreter
BTF = "/sys/kernel/btf/vmlinux"
LOCKDOWN = "/sys/kernel/security/lockdown"
STATUS = "/proc/self/status"
CAP_SYS_ADMIN, CAP_PERFMON, CAP_BPF = 21, 38, 39
# Past the recording itself: loading and verifying the programs, reading the maps.
STARTUP_ALLOWANCE_S = 30.0
MAX_OUTPUT_BYTES = 64 * 1024 * 1024  # a 2,000-disk host's histograms are a few MB


def loader_path() -> str | None:
    """The recorder: `$PINCHPOINT_BIOLAT`, else beside the Python running pinchpoint (a venv's
    bin/, where `make bpf` puts it), else on the PATH."""
    configured = os.environ.get(LOADER_ENV)
    if configured:
        return configured if os.access(configured, os.X_OK) else None
    beside = Path(sys.executable).parent / LOADER
    if os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which(LOADER)


def _effective_capabilities() -> int | None:
    try:
        with open(STATUS, encoding="ascii") as status:
            for line in status:
                if line.startswith("CapEff:"):
                    return int(line.split()[1], 16)
    except (OSError, ValueError):
        return None
    return None


def _may_trace() -> bool:
    """Root, or CAP_BPF with CAP_PERFMON (or CAP_SYS_ADMIN, which older kernels ask for)."""
    caps = _effective_capabilities()
    if caps is None:
        return os.geteuid() == 0
    has = {cap: bool(caps >> cap & 1) for cap in (CAP_SYS_ADMIN, CAP_PERFMON, CAP_BPF)}
    return has[CAP_SYS_ADMIN] or (has[CAP_BPF] and has[CAP_PERFMON])


def _locked_down() -> str | None:
    try:
        with open(LOCKDOWN, encoding="ascii") as lockdown:
            text = lockdown.read()
    except OSError:
        return None
    return "confidentiality" if "[confidentiality]" in text else None


def unavailable_reason() -> str | None:
    """Why per-I/O latency cannot be recorded on this host, in words a user acts on; None
    when it can."""
    if not sys.platform.startswith("linux"):
        return "per-I/O latency is recorded with eBPF, which needs Linux"
    if not os.path.exists(BTF):
        return (
            f"the kernel has no BTF ({BTF} is missing): per-I/O latency needs a kernel built "
            "with CONFIG_DEBUG_INFO_BTF (5.x or newer, as Debian's and RHEL's are)"
        )
    if not _may_trace():
        return "recording per-I/O latency needs root, or CAP_BPF and CAP_PERFMON"
    if _locked_down():
        return (
            "the kernel is locked down (confidentiality mode): it refuses BPF programs that "
            "read kernel memory"
        )
    if loader_path() is None:
        return (
            f"{LOADER} is not built: run `make bpf` (needs clang, bpftool and libbpf-dev) or "
            f"set {LOADER_ENV} to its path"
        )
    return None


def recording_command(seconds: float, devices: list[str], stats: bool = False) -> Command:
    """The recorder's command line for `seconds` on the devices given as major:minor (all
    block devices when none)."""
    argv = [loader_path() or LOADER, "--seconds", f"{seconds:g}"]
    for dev in devices:
        argv += ["--device", dev]
    if stats:
        argv.append("--stats")
    return Command(
        argv=tuple(argv),
        key="biolat/recording.json",
        timeout_s=seconds + STARTUP_ALLOWANCE_S,
        max_output_bytes=MAX_OUTPUT_BYTES,
    )


def run_recording(seconds: float, devices: list[str], stats: bool = False) -> CommandResult:
    """Record for `seconds` from the moment the probes are attached; the recorder's output
    or why there is none (a status, never an exception)."""
    return run_command(recording_command(seconds, devices, stats))
