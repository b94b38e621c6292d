"""Where facts are read from: the live host, or a snapshot directory (or tarball) captured earlier.

Every collector reads through a `Source`, with host paths such as `/sys/class/sas_host`. A
snapshot keeps the same paths below its root (`SNAPSHOT/sys/class/sas_host`) and keeps command
outputs under `SNAPSHOT/commands/<tool>/<name>`; see docs/snapshot-format.md. This package is the
only code that runs the host's tools or reads its files, but for the live diskstats sampler
(`pinchpoint.checks.collect.diskstats`), which reads `/proc/diskstats` every second directly.
"""

from pinchpoint.checks.source.base import DEFAULT_MAX_WORKERS, Source, SourceError
from pinchpoint.checks.source.live import LiveSource
from pinchpoint.checks.source.recording import RecordingSource
from pinchpoint.checks.source.snapshot import SnapshotSource, is_archive, open_snapshot

__all__ = [
    "DEFAULT_MAX_WORKERS",
    "LiveSource",
    "RecordingSource",
    "SnapshotSource",
    "Source",
    "SourceError",
    "is_archive",
    "open_snapshot",
]
