"""External commands (sg_ses, smartctl, ethtool …): argument lists, a timeout each, never a shell.

A `Command` names the snapshot file its output is kept in (`commands/<key>`), so the same
collector code reads a live host and a captured snapshot alike. Each run is a process group of
its own with capped output (`processes.run_in_own_group`), within the check's `ToolBudget`.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass, field
from enum import StrEnum

from pinchpoint.checks.source.budget import ToolBudget
from pinchpoint.checks.source.processes import Finished, Stop, run_in_own_group
from pinchpoint.model.problems import ProblemKind
from pinchpoint.text import host_text

DEFAULT_TIMEOUT_S = 20.0
# Output kept of one run: the largest real outputs (`multipath -ll` of 2,000 paths, a 102-bay
# `sg_ses --page=aes`) are a few hundred kB; tools that print more say so (`max_output_bytes`).
DEFAULT_MAX_OUTPUT_BYTES = 8 * 1024 * 1024
MAX_STDERR_BYTES = 1024 * 1024  # only its first lines are ever shown


@dataclass(frozen=True)
class Command:
    """One command to run: the argument list, where its output lives in a snapshot, how long it
    may run and how much of its standard output is kept (past that, it is stopped)."""

    argv: tuple[str, ...]
    key: str  # path below `commands/`, e.g. "sg_ses/sg5.cf.txt"
    timeout_s: float = DEFAULT_TIMEOUT_S
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES

    @property
    def tool(self) -> str:
        return self.argv[0]

    @property
    def line(self) -> str:
        """The command as a user would type it (for messages only, never executed)."""
        return " ".join(self.argv)


class CommandStatus(StrEnum):
    OK = "ok"
    FAILED = "failed"
    TIMEOUT = "timeout"
    TOOL_MISSING = "tool_missing"
    PERMISSION = "permission"
    NOT_COLLECTED = "not_collected"
    TRUNCATED = "truncated"  # it printed more than `max_output_bytes` and was stopped
    NOT_RUN = "not_run"  # the check's tool budget was spent (or called off) before it started


_PROBLEM_KIND = {
    CommandStatus.FAILED: ProblemKind.FAILED,
    CommandStatus.TIMEOUT: ProblemKind.TIMEOUT,
    CommandStatus.TRUNCATED: ProblemKind.FAILED,
    CommandStatus.NOT_RUN: ProblemKind.TIMEOUT,
    CommandStatus.TOOL_MISSING: ProblemKind.TOOL_MISSING,
    CommandStatus.PERMISSION: ProblemKind.PERMISSION,
    CommandStatus.NOT_COLLECTED: ProblemKind.NOT_COLLECTED,
}


@dataclass
class CommandResult:
    command: Command
    status: CommandStatus
    stdout: str = ""
    stderr: str = ""
    returncode: int | None = None
    duration_s: float = 0.0
    detail: str = field(default="")

    @property
    def ok(self) -> bool:
        return self.status is CommandStatus.OK

    @property
    def problem_kind(self) -> ProblemKind:
        return _PROBLEM_KIND.get(self.status, ProblemKind.FAILED)

    def reason(self) -> str:
        """Why there is no usable output, in words a user acts on."""
        tool = self.command.tool
        match self.status:
            case CommandStatus.OK:
                return "ok"
            case CommandStatus.TOOL_MISSING:
                return f"{tool} is not installed (install the package that provides it)"
            case CommandStatus.TIMEOUT:
                if self.detail:  # stopped by the budget, not by its own timeout
                    return f"{tool} was stopped: {self.detail}"
                return f"{tool} did not finish within {self.command.timeout_s:g} s and was stopped"
            case CommandStatus.TRUNCATED:
                stream, cap = "output", self.command.max_output_bytes
                if self.detail == "stderr":
                    stream, cap = "error output", MAX_STDERR_BYTES
                return f"{stream} truncated at {cap} bytes: {tool} printed more and was stopped"
            case CommandStatus.NOT_RUN:
                return f"not run: {self.detail}"
            case CommandStatus.PERMISSION:
                return f"not permitted to run {tool}: {self.detail or 'run as root'}"
            case CommandStatus.NOT_COLLECTED:
                return f"the snapshot holds no output of `{self.command.line}`"
            case CommandStatus.FAILED:
                first = (self.stderr.strip().splitlines() or [""])[0]
                return f"{tool} exited with status {self.returncode}" + (
                    f": {first}" if first else ""
                )
        return self.status.value


def command_environment() -> dict[str, str]:
    """A C locale so tools print the text the parsers know."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "TMPDIR")}
    env["LC_ALL"] = "C"
    env["LANG"] = "C"
    return env


def _stopped(command: Command, finished: Finished, budget: ToolBudget | None) -> CommandResult:
    """The result of a run stopped before it ended by itself (its output is not used)."""
    if finished.stopped is Stop.STDOUT_CAP:
        return CommandResult(command, CommandStatus.TRUNCATED, detail="stdout")
    if finished.stopped is Stop.STDERR_CAP:
        return CommandResult(command, CommandStatus.TRUNCATED, detail="stderr")
    by_budget = budget is not None and (budget.spent or finished.stopped is Stop.CALLED_OFF)
    detail = budget.why_spent() if budget is not None and by_budget else ""
    return CommandResult(command, CommandStatus.TIMEOUT, detail=detail)


def run_command(command: Command, budget: ToolBudget | None = None) -> CommandResult:
    """Run one command on this host; every failure becomes a status, never an exception.
    With a `budget`, the run lasts at most what is left of it, and is not started when none is."""
    if shutil.which(command.tool) is None:
        return CommandResult(command, CommandStatus.TOOL_MISSING)
    timeout_s = command.timeout_s
    if budget is not None:
        if budget.spent:
            return CommandResult(command, CommandStatus.NOT_RUN, detail=budget.why_spent())
        timeout_s = min(timeout_s, budget.left_s())
    started = time.monotonic()
    try:
        done = run_in_own_group(
            command.argv,
            command_environment(),
            timeout_s,
            max_stdout=command.max_output_bytes,
            max_stderr=MAX_STDERR_BYTES,
            called_off=budget.called_off if budget is not None else None,
        )
    except PermissionError as err:
        return CommandResult(command, CommandStatus.PERMISSION, detail=str(err))
    except OSError as err:
        return CommandResult(command, CommandStatus.FAILED, detail=str(err), stderr=str(err))
    elapsed = time.monotonic() - started
    if done.stopped is not None:
        result = _stopped(command, done, budget)
        result.duration_s = elapsed
        return result
    stdout = host_text(done.stdout)
    stderr = host_text(done.stderr)
    status = CommandStatus.OK if done.returncode == 0 else CommandStatus.FAILED
    return CommandResult(command, status, stdout, stderr, done.returncode, elapsed)
