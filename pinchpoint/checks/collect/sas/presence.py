"""Whether a host has a SAS HBA at all: the one judgement behind `--demo-if-no-sas` (CLI and
service) and the inventory's own HBA list. An HBA counts when the kernel lists it in
`/sys/class/sas_host`, or when a SCSI host's driver is a SAS driver that registers no SAS
transport class (mpi3mr before Linux 6.1) — the same two ways the SAS walk finds HBAs."""

from __future__ import annotations

from pinchpoint.checks.collect.sas.walk import SAS_DRIVERS
from pinchpoint.checks.source import Source, SourceError


def has_sas_hba(source: Source) -> bool:
    """True when `source` shows at least one SAS HBA; a few directory reads, no walk."""
    if _entries(source, "/sys/class/sas_host"):
        return True
    for name in _entries(source, "/sys/class/scsi_host"):
        try:
            driver = source.read_text(f"/sys/class/scsi_host/{name}/proc_name").strip()
        except SourceError:
            continue
        if driver in SAS_DRIVERS:
            return True
    return False


def _entries(source: Source, path: str) -> list[str]:
    """A class directory's entries; none when the class is absent or unreadable."""
    try:
        return source.list_dir(path)
    except SourceError:
        return []
