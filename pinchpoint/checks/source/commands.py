"""External commands (sg_ses, smartctl, ethtool …): argument lists, a timeout each, never a shell.

A `Command` names the snapshot file its output is kept in (`commands/<key>`), so the same
collector code reads a live host and a captured snapshot alike.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from enum import StrEnum

from pinchpoint.model.problems import ProblemKind

DEFAULT_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class Command:
    """One command to run: the argument list and where its output lives in a snapshot."""

    argv: tuple[str, ...]
    key: str  # path below `commands/`, e.g. "sg_ses/sg5.cf.txt"
    timeout_s: float = DEFAULT_TIMEOUT_S

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


_PROBLEM_KIND = {
    CommandStatus.FAILED: ProblemKind.FAILED,
    CommandStatus.TIMEOUT: ProblemKind.TIMEOUT,
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
                return f"{tool} did not finish within {self.command.timeout_s:g} s and was stopped"
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


def run_command(command: Command) -> CommandResult:
    """Run one command on this host; every failure becomes a status, never an exception."""
    if shutil.which(command.tool) is None:
        return CommandResult(command, CommandStatus.TOOL_MISSING)
    started = time.monotonic()
    try:
        done = subprocess.run(
            list(command.argv),
            capture_output=True,
            timeout=command.timeout_s,
            stdin=subprocess.DEVNULL,
            env=command_environment(),
            check=False,
        )
    except subprocess.TimeoutExpired:
        return CommandResult(command, CommandStatus.TIMEOUT, duration_s=time.monotonic() - started)
    except PermissionError as err:
        return CommandResult(command, CommandStatus.PERMISSION, detail=str(err))
    except OSError as err:
        return CommandResult(command, CommandStatus.FAILED, detail=str(err), stderr=str(err))
    elapsed = time.monotonic() - started
    stdout = done.stdout.decode("utf-8", errors="replace")
    stderr = done.stderr.decode("utf-8", errors="replace")
    status = CommandStatus.OK if done.returncode == 0 else CommandStatus.FAILED
    return CommandResult(command, status, stdout, stderr, done.returncode, elapsed)
