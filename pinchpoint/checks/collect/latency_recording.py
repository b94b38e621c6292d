"""Per-I/O latency recorded in the kernel (`docs/ebpf.md`): on this host for `stats record`
and `capture --record-seconds`, or read back from a snapshot's
`commands/biolat/recording.json`; each recorded device given its kernel name and stable id
through the same source, so a snapshot names its devices as the live host did."""

from __future__ import annotations

import posixpath

from pinchpoint.checks.parse.biolat import BiolatParseError, parse_recording
from pinchpoint.checks.source import Source, SourceError
from pinchpoint.checks.source.biolat import (
    RecorderProcess,
    recording_command,
    unavailable_reason,
)
from pinchpoint.checks.source.commands import CommandStatus
from pinchpoint.model.latency_recording import BlockRecording
from pinchpoint.model.problems import CollectionProblem, ProblemKind

__all__ = [
    "LiveRecorder",
    "RecordingError",
    "block_devices",
    "read_recording",
    "record_block_latency",
]

CLASS_BLOCK = "/sys/class/block"
PART = "latency recording"


class RecordingError(Exception):
    """Per-I/O latency could not be recorded or read; the message says why and what to do."""

    def __init__(self, message: str, kind: ProblemKind = ProblemKind.FAILED) -> None:
        super().__init__(message)
        self.kind = kind

    def problem(self) -> CollectionProblem:
        return CollectionProblem(
            part=PART,
            subject=f"commands/{recording_command(1, []).key}",
            kind=self.kind,
            reason=str(self),
        )


def block_devices(source: Source) -> dict[str, str]:
    """Kernel name of every block device (partitions included) by major:minor."""
    found: dict[str, str] = {}
    try:
        names = source.list_dir(CLASS_BLOCK)
    except SourceError:
        return found
    for name in names:
        try:
            dev = source.read_text(f"{CLASS_BLOCK}/{name}/dev").strip()
        except SourceError:
            continue
        found[dev] = name
    return found


def _stable_id(source: Source, name: str) -> str | None:
    """The device's WWID (SCSI `device/wwid`, NVMe `wwid`), where it has one."""
    for attribute in ("device/wwid", "wwid"):
        try:
            text = source.read_text(f"{CLASS_BLOCK}/{name}/{attribute}").strip()
        except SourceError:
            continue
        if text:
            return text
    return None


def _wanted(names: list[str], devices: dict[str, str]) -> list[str]:
    """major:minor of each device asked for by kernel name or /dev path."""
    by_name = {name: dev for dev, name in devices.items()}
    wanted = []
    for asked in names:
        name = posixpath.basename(asked.rstrip("/"))
        if name not in by_name:
            raise RecordingError(
                f"no block device {asked!r} on this host (see `lsblk` for the names)",
                ProblemKind.MISSING,
            )
        wanted.append(by_name[name])
    return wanted


def _named(source: Source, text: str) -> BlockRecording:
    """The recorder's output parsed, each device named as `source` names it."""
    try:
        recording = parse_recording(text)
    except BiolatParseError as err:
        raise RecordingError(
            f"the latency recorder's output is unusable: {err}", ProblemKind.GARBLED
        ) from None
    devices = block_devices(source)
    for device in recording.devices:
        device.name = devices.get(device.dev)
        if device.name is not None:
            device.wwid = _stable_id(source, device.name)
    return recording


def record_block_latency(
    source: Source,
    seconds: float,
    names: list[str],
    stats: bool = False,
    budget_bytes: int | None = None,
) -> BlockRecording:
    """Record every I/O of the devices `names` (all when empty) for `seconds`, through `source`
    (live, or capture's recording source, which keeps the output in the snapshot), the
    recorder's maps within `budget_bytes` (its default when None); raises `RecordingError`
    with the reason when it cannot."""
    reason = unavailable_reason()
    if reason is not None:
        raise RecordingError(reason, ProblemKind.UNSUPPORTED)
    wanted = _wanted(names, block_devices(source))
    result = source.run(recording_command(seconds, wanted, stats, budget_bytes))
    if not result.ok:
        raise RecordingError(f"the latency recorder failed: {result.reason()}")
    return _named(source, result.stdout)


def read_recording(source: Source) -> BlockRecording | None:
    """The recording a snapshot carries (`capture --record-seconds`), None when it carries
    none; `RecordingError` when it is unusable."""
    result = source.run(recording_command(1, []))
    if result.status is CommandStatus.NOT_COLLECTED:
        return None
    if not result.ok:
        raise RecordingError(f"the snapshot's latency recording: {result.reason()}")
    return _named(source, result.stdout)


class LiveRecorder:
    """The recorder running beside the service: `current()` is everything it counted since it
    started, each device named as this host names it (names re-read when a device appears);
    its maps within `budget_bytes` (the recorder's default when None)."""

    def __init__(self, source: Source, budget_bytes: int | None = None) -> None:
        self.source = source
        self.process = RecorderProcess(budget_bytes=budget_bytes)
        self._names: dict[str, str] = {}
        self._lines = 0  # lines already read

    def start(self) -> None:
        """Start recording; `RecordingError` with the reason when this host cannot."""
        reason = unavailable_reason()
        if reason is not None:
            raise RecordingError(reason, ProblemKind.UNSUPPORTED)
        try:
            self.process.start()
        except OSError as err:
            raise RecordingError(f"the latency recorder cannot start: {err}") from None

    def current(self) -> BlockRecording | None:
        """Everything counted until now, asked of the recorder; None when it gave nothing new
        in time; `RecordingError` when it stopped or printed something unusable."""
        text, lines = self.process.sample()
        if text is None or lines == self._lines:
            if not self.process.running:
                raise RecordingError(self.process.why_stopped())
            return None
        self._lines = lines
        try:
            recording = parse_recording(text)
        except BiolatParseError as err:
            raise RecordingError(
                f"the latency recorder's output is unusable: {err}", ProblemKind.GARBLED
            ) from None
        if any(d.dev not in self._names for d in recording.devices):
            self._names = block_devices(self.source)
        for device in recording.devices:
            device.name = self._names.get(device.dev)
        return recording

    @property
    def running(self) -> bool:
        return self.process.running

    def stop(self) -> None:
        self.process.stop()
