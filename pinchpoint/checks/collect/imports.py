"""Statistics files of other tools read from disk (`stats import`, `--import`), then parsed.

The parsing is `pinchpoint.checks.parse.importers.parse_stats`; here the file is read, at most
`MAX_STATS_FILE_BYTES` of it, and decoded (UTF-8, UTF-16 with its mark, else Latin-1).
"""

from __future__ import annotations

from pathlib import Path

from pinchpoint.checks.parse.importers import StatsImportError, decode_text, parse_stats
from pinchpoint.model.stats import ImportedStats, ImportKind

__all__ = ["MAX_STATS_FILE_BYTES", "import_stats", "read_stats_file"]

# A day of PerfMon at 15 s with 50 counters is about 4 MiB; a file this large is not one to
# load whole into memory (its parsed points take several times its size).
MAX_STATS_FILE_BYTES = 256 * 1024 * 1024


def read_stats_file(path: Path, max_bytes: int = MAX_STATS_FILE_BYTES) -> str:
    """The text of a statistics file; `StatsImportError` with a one-line reason when it cannot
    be read, is larger than `max_bytes`, empty or binary."""
    try:
        with path.open("rb") as file:
            data = file.read(max_bytes + 1)
    except FileNotFoundError:
        raise StatsImportError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise StatsImportError(f"{path}: is a directory, not a statistics file") from None
    except OSError as error:
        raise StatsImportError(f"{path}: cannot be read ({error.strerror})") from None
    if len(data) > max_bytes:
        raise StatsImportError(
            f"{path}: larger than {max_bytes:,} bytes, more than a statistics file may hold"
        )
    return decode_text(data, path.name)


def import_stats(path: Path, kind: ImportKind | None = None) -> ImportedStats:
    """The statistics of the file at `path`, read as `kind` (guessed from the content when
    None); `StatsImportError` with a one-line reason when nothing can be imported."""
    return parse_stats(read_stats_file(path), kind, path.name)
