"""This host, now: files read at their paths below a root (normally `/`), commands really run,
within a tool budget that starts when the source is opened (one source per check)."""

from __future__ import annotations

import os

from pinchpoint.checks.source.base import Source
from pinchpoint.checks.source.budget import ToolBudget
from pinchpoint.checks.source.commands import Command, CommandResult, run_command
from pinchpoint.model.inventory import SourceKind


class LiveSource(Source):
    """This host, now. Commands really run."""

    kind = SourceKind.LIVE

    def __init__(self, root: str = "/") -> None:
        self.root = root.rstrip("/")
        self.location = root
        self.open_problems = []
        self.budget = ToolBudget()

    def _real(self, path: str) -> str:
        return self.root + path

    def resolve(self, path: str) -> str:
        real = os.path.realpath(self._real(path))
        return real[len(self.root) :] if self.root else real

    def run(self, command: Command) -> CommandResult:
        return run_command(command, self.budget)
