"""What could not be collected and why: the "not collected" half of every inventory."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict


class ProblemKind(StrEnum):
    """Why a fact is missing; stable values, shown to users and stored in reports."""

    MISSING = "missing"  # the file, class or device does not exist
    PERMISSION = "permission"  # it exists but this user may not read it
    UNREADABLE = "unreadable"  # it exists but reading failed (I/O error, dangling link)
    GARBLED = "garbled"  # it was read but does not parse
    TIMEOUT = "timeout"  # a command did not finish in time
    TOOL_MISSING = "tool_missing"  # the command is not installed
    FAILED = "failed"  # a command ran and failed
    NOT_COLLECTED = "not_collected"  # a snapshot holds no output for this command
    UNSUPPORTED = "unsupported"  # the driver or device does not expose this


class CollectionProblem(BaseModel):
    """One part of the host that could not be read, with the reason in words a user acts on."""

    model_config = ConfigDict(frozen=True)

    part: str  # which collector: "sas", "ses", "enclosure", "scsi"
    subject: str  # what it was reading: a path, a device, a command line
    kind: ProblemKind
    reason: str

    def line(self) -> str:
        """One line for a terminal: `part: subject: reason`."""
        return f"{self.part}: {self.subject}: {self.reason}"
