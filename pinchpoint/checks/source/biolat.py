"""Running the kernel latency recorder `pinchpoint-biolat` (`bpf/`, `docs/ebpf.md`) on this
host: where it is, why it cannot run here, one recording run like every other tool (an
argument list, a timeout, capped output, its process group stopped with it), and the recorder
running beside the service, read line by line."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

from pinchpoint.checks.source.commands import (
    Command,
    CommandResult,
    command_environment,
    run_command,
)
from pinchpoint.checks.source.processes import stop_group
from pinchpoint.model.latency_recording import RecorderLayout
from pinchpoint.text import host_text

LOADER = "pinchpoint-biolat"
LOADER_ENV = "PINCHPOINT_BIOLAT"  # the loader's path, where it is not beside the interpreter
BTF = "/sys/kernel/btf/vmlinux"
LOCKDOWN = "/sys/kernel/security/lockdown"
STATUS = "/proc/self/status"
CAP_SYS_ADMIN, CAP_PERFMON, CAP_BPF = 21, 38, 39
# Past the recording itself: loading and verifying the programs, reading the maps.
STARTUP_ALLOWANCE_S = 30.0
MAX_OUTPUT_BYTES = 64 * 1024 * 1024  # a 2,000-disk host's histograms are a few MB
# How long the service waits for the counts it asked for: the recorder looks every second.
SAMPLE_TIMEOUT_S = 3.0
LOAD_TIMEOUT_S = 30.0  # loading and verifying the programs takes 0.1-1 s here


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


def budget_arguments(budget_bytes: int | None, layout: RecorderLayout | None) -> list[str]:
    """The recorder's options for its map memory: a budget in bytes (its own default, 64 MiB,
    when None) and a layout it must use (None: chosen by the budget)."""
    argv = []
    if budget_bytes is not None:
        argv += ["--budget-bytes", str(budget_bytes)]
    if layout is not None:
        argv += ["--layout", layout.value]
    return argv


def recording_command(
    seconds: float,
    devices: list[str],
    stats: bool = False,
    budget_bytes: int | None = None,
    layout: RecorderLayout | None = None,
) -> Command:
    """The recorder's command line for `seconds` on the devices given as major:minor (all
    block devices when none), its maps within `budget_bytes`."""
    argv = [loader_path() or LOADER, "--seconds", f"{seconds:g}"]
    for dev in devices:
        argv += ["--device", dev]
    if stats:
        argv.append("--stats")
    argv += budget_arguments(budget_bytes, layout)
    return Command(
        argv=tuple(argv),
        key="biolat/recording.json",
        timeout_s=seconds + STARTUP_ALLOWANCE_S,
        max_output_bytes=MAX_OUTPUT_BYTES,
    )


def run_recording(
    seconds: float, devices: list[str], stats: bool = False, budget_bytes: int | None = None
) -> CommandResult:
    """Record for `seconds` from the moment the probes are attached; the recorder's output
    or why there is none (a status, never an exception)."""
    return run_command(recording_command(seconds, devices, stats, budget_bytes))


class RecorderProcess:
    """The recorder running for as long as the service does (`--seconds 0`): a process group
    of its own that prints its counts when asked (`sample()` sends SIGUSR1) or every
    `interval_s`; its JSON lines read by a thread as they come (each at most
    `MAX_OUTPUT_BYTES`; a longer one stops it), the newest kept. `stop()` stops the group."""

    def __init__(
        self,
        interval_s: float = 0,
        devices: list[str] | None = None,
        budget_bytes: int | None = None,
    ) -> None:
        argv = [loader_path() or LOADER, "--seconds", "0"]
        if interval_s > 0:
            argv += ["--interval", f"{interval_s:g}"]
        for dev in devices or []:
            argv += ["--device", dev]
        argv += budget_arguments(budget_bytes, None)
        self.argv = tuple(argv)
        self._process: subprocess.Popen[bytes] | None = None
        self._latest: str | None = None
        self._lines = 0
        self._stderr: list[str] = []
        self._lock = threading.Lock()
        self._new_line = threading.Condition(self._lock)
        self._attached = threading.Event()
        self._reader: threading.Thread | None = None

    def start(self) -> None:
        """Start the recorder; OSError when it cannot be started."""
        self._process = subprocess.Popen(
            list(self.argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=command_environment(),
            start_new_session=True,
        )
        self._reader = threading.Thread(target=self._read, name="biolat-reader", daemon=True)
        self._reader.start()
        threading.Thread(target=self._read_errors, name="biolat-stderr", daemon=True).start()

    def _read(self) -> None:
        process = self._process
        assert process is not None and process.stdout is not None
        while True:
            line = process.stdout.readline(MAX_OUTPUT_BYTES + 1)
            if not line:
                return
            if len(line) > MAX_OUTPUT_BYTES:
                with self._lock:
                    self._stderr.append(f"a line longer than {MAX_OUTPUT_BYTES} bytes")
                stop_group(process)
                return
            with self._lock:
                self._latest = host_text(line)
                self._lines += 1
                self._new_line.notify_all()

    def _read_errors(self) -> None:
        process = self._process
        assert process is not None and process.stderr is not None
        for raw in process.stderr:
            text = host_text(raw).strip()
            if text == f"{LOADER}: attached":
                self._attached.set()
            elif text:
                with self._lock:
                    self._stderr = [*self._stderr[-4:], text[:300]]

    def latest(self) -> tuple[str | None, int]:
        """The newest line (counts cumulative since the recorder started) and how many came."""
        with self._lock:
            return self._latest, self._lines

    def sample(self, timeout_s: float = SAMPLE_TIMEOUT_S) -> tuple[str | None, int]:
        """Ask for the counts now and wait for them (at most `timeout_s`); the newest line and
        how many came, as `latest()`."""
        with self._lock:
            seen = self._lines
        self._attached.wait(LOAD_TIMEOUT_S)  # its first answer comes once it is attached
        if self.running and self._process is not None:
            with contextlib.suppress(ProcessLookupError):
                self._process.send_signal(signal.SIGUSR1)
            with self._new_line:
                self._new_line.wait_for(lambda: self._lines > seen, timeout_s)
        return self.latest()

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def why_stopped(self) -> str:
        """Why the recorder is not running, in a line."""
        if self._process is None:
            return f"{LOADER} was not started"
        code = self._process.poll()
        with self._lock:
            said = self._stderr[-1] if self._stderr else ""
        return f"{LOADER} exited with status {code}" + (f": {said}" if said else "")

    def stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            stop_group(self._process)
        if self._reader is not None:
            self._reader.join(timeout=5)
