"""A recording of per-I/O latency on this host (`pinchpoint stats record`, `docs/ebpf.md`):
the devices asked for turned into major:minor, the kernel recorder run, its output parsed,
and each recorded device given its kernel name and stable id."""

from __future__ import annotations

import posixpath

from pinchpoint.checks.parse.biolat import BiolatParseError, parse_recording
from pinchpoint.checks.source import Source, SourceError
from pinchpoint.checks.source.biolat import run_recording, unavailable_reason
from pinchpoint.model.latency_recording import BlockRecording

__all__ = ["RecordingError", "block_devices", "record_block_latency"]

CLASS_BLOCK = "/sys/class/block"


class RecordingError(Exception):
    """Per-I/O latency could not be recorded; the message says why and what to do."""


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
                f"no block device {asked!r} on this host (see `lsblk` for the names)"
            )
        wanted.append(by_name[name])
    return wanted


def record_block_latency(
    source: Source, seconds: float, names: list[str], stats: bool = False
) -> BlockRecording:
    """Record every I/O of the devices `names` (all when empty) for `seconds`; raises
    `RecordingError` with the reason when it cannot."""
    reason = unavailable_reason()
    if reason is not None:
        raise RecordingError(reason)
    devices = block_devices(source)
    result = run_recording(seconds, _wanted(names, devices), stats)
    if not result.ok:
        raise RecordingError(f"the latency recorder failed: {result.reason()}")
    try:
        recording = parse_recording(result.stdout)
    except BiolatParseError as err:
        raise RecordingError(f"the latency recorder's output is unusable: {err}") from None
    for device in recording.devices:
        device.name = devices.get(device.dev)
        if device.name is not None:
            device.wwid = _stable_id(source, device.name)
    return recording
