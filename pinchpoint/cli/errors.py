"""Every error of the `pinchpoint` command as one line on stderr and exit 2:
`pinchpoint: error: <what> (<where>) — <what to do>`, never a traceback.

The command group (`PinchpointGroup`, the app's `cls`) says click's usage errors (unknown
option, bad value, missing argument) in the same one line, and runs each command under
`explain`: errors of known kinds say what went wrong where and what to do (`_ADVICE`, by error
class); anything else is one line saying it is unexpected and how to see the traceback
(`PINCHPOINT_DEBUG=1`, which lets the exception through).
"""

from __future__ import annotations

import errno
import os
import sys
from typing import Any

import typer
from typer.core import TyperGroup
from typer.exceptions import TyperException

from pinchpoint.cli.console import error_line, errors, fail

DEBUG_VARIABLE = "PINCHPOINT_DEBUG"

# What to do about an OS error, by its errno.
_OS_ADVICE = {
    errno.ENOENT: "check the path",
    errno.ENOTDIR: "a part of the path is a file, not a directory: check the path",
    errno.EISDIR: "give a file, not a directory",
    errno.EEXIST: "choose a new path",
    errno.EACCES: "run as a user allowed to use it (root for a host's /sys and tools)",
    errno.EPERM: "run as a user allowed to use it (root for a host's /sys and tools)",
    errno.EROFS: "choose a path on a writable filesystem",
    errno.ENOSPC: "free some space or choose another filesystem",
    errno.ENAMETOOLONG: "choose a shorter path",
    errno.ELOOP: "the path loops through symbolic links: check it",
}


# What to do about the project's errors, by their class (a message that already says what to
# do, after ` — `, keeps its own advice).
_ADVICE = {
    "ConfigError": "correct the file (`pinchpoint explain RULE` lists a rule's keys) and run again",
    "SettingsError": "correct the setting (`pinchpoint config show` lists them) and run again",
    "StatsImportError": "give zpool iostat -w or -l, iostat -x (text or JSON), fio JSON or a "
    "PerfMon CSV, or --kind to say which",
    "NotASnapshotError": "give a directory or .tar.gz that `pinchpoint capture` wrote",
    "ArchiveRejected": "give a .tar.gz that `pinchpoint capture --tar` wrote",
    "SpecError": "correct the spec (docs/simulator.md)",
    "PushError": "check the URL, the token and that the service runs",
}


def with_advice(message: str, advice: str) -> str:
    """`message — advice`, unless the message already says what to do."""
    return message if " — " in message else f"{message} — {advice}"


def _advice_for(err: BaseException) -> str | None:
    for kind in type(err).__mro__:
        if kind.__name__ in _ADVICE and kind.__module__.startswith("pinchpoint."):
            return _ADVICE[kind.__name__]
    return None


def _os_error_line(err: OSError) -> str:
    if err.strerror is None and err.errno is None and err.args:
        # raised with a message of ours (`no snapshot at /x`): it names the path already
        return with_advice(str(err), _OS_ADVICE.get(errno.ENOENT, "check the path"))
    what = (err.strerror or type(err).__name__).lower()
    where = err.filename if err.filename is not None else None
    advice = _OS_ADVICE.get(err.errno or 0, "check the path and its permissions")
    if where is None:
        return f"{what} — {advice}"
    return f"{what} ({os.fsdecode(where)}) — {advice}"


def error_message(err: BaseException) -> str:
    """The one line saying what went wrong, where, and what to do about it."""
    from pinchpoint.checks.source.base import SourceError

    if isinstance(err, SourceError):
        return f"{err.reason} ({err.path}) — check the path, or run as root on a live host"
    advice = _advice_for(err)
    if advice is not None:
        return with_advice(" ".join(str(err).split()), advice)
    if isinstance(err, OSError):
        return _os_error_line(err)
    if isinstance(err, UnicodeError):
        return f"a file is not text ({err}) — give the file the command expects"
    if isinstance(err, ValueError) and type(err).__module__.startswith("pinchpoint."):
        # the project's errors about what it was given (a config, settings, spec, statistics
        # file, an archive): their message already names the file and the key
        return f"{err} — correct it and run again"
    if isinstance(err, KeyboardInterrupt):
        return "interrupted"
    what = str(err) or type(err).__name__
    return (
        f"unexpected failure: {what} — this is a bug: run again with {DEBUG_VARIABLE}=1 "
        "for the traceback and report it"
    )


def usage_message(err: TyperException) -> str:
    """A usage error (unknown option, bad value, missing argument) as the one line every error
    is: `No such option: --formt (pinchpoint check) — see pinchpoint check --help`."""
    format_message = getattr(err, "format_message", None)
    what = " ".join((format_message() if callable(format_message) else str(err)).split())
    what = what.replace("Value error, ", "").rstrip(".")  # pydantic's prefix, click's full stop
    context = getattr(err, "ctx", None)
    command = context.command_path if context is not None else "pinchpoint"
    return f"{what} ({command}) — see {command} --help"


class PinchpointGroup(TyperGroup):
    """The `pinchpoint` command group: a command's error is one line and exit 2."""

    def main(  # type: ignore[override]  # the same parameters, passed on by name
        self,
        args: Any = None,
        prog_name: str | None = None,
        standalone_mode: bool = True,
        **kwargs: Any,
    ) -> Any:
        """Click's and Typer's own errors (usage, bad values) as one line on stderr and exit 2,
        not a framed panel; the rest as Typer runs it."""
        if not standalone_mode:
            return super().main(args, prog_name, standalone_mode=False, **kwargs)
        try:
            result = super().main(args, prog_name, standalone_mode=False, **kwargs)
        except TyperException as err:  # click's errors: usage, a bad value, a missing argument
            errors.print(error_line(usage_message(err)), soft_wrap=True)
            sys.exit(getattr(err, "exit_code", 2))
        except typer.Abort:
            errors.print(error_line("aborted"), soft_wrap=True)
            sys.exit(1)
        sys.exit(result if isinstance(result, int) else 0)

    def invoke(self, ctx: Any) -> Any:  # typer's vendored click.Context
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort, TyperException):
            raise  # exits a command chose, usage errors (click's), Ctrl-C at a prompt
        except Exception as err:
            if os.environ.get(DEBUG_VARIABLE, "") not in ("", "0"):
                raise
            raise fail(error_message(err)) from None
        except KeyboardInterrupt:
            raise fail(error_message(KeyboardInterrupt()), code=130) from None


def exit_for(err: BaseException) -> typer.Exit:
    """For commands that catch an error themselves: print its one line, return exit 2."""
    return fail(error_message(err))
