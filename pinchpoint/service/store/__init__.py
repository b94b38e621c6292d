"""The report store: reports, inventories, finding states, mutes and statistics series of
every host, in SQLite (WAL) or PostgreSQL, with Alembic migrations (`docs/store.md`). One
`Store` over one database; `store.py` says which module holds what."""

from pinchpoint.report.summary import SeverityCounts
from pinchpoint.service.findings_state import FindingState
from pinchpoint.service.store.database import (
    MissingPartsError,
    StoreError,
    StoreInputError,
    store_unavailable,
)
from pinchpoint.service.store.records import (
    FindingRecord,
    HostRecord,
    MuteRecord,
    Origin,
    Page,
    PruneResult,
    ReportDiff,
    ReportSummary,
    SavedReport,
    StoredReport,
)
from pinchpoint.service.store.store import Store
from pinchpoint.stats.series import SeriesQuery

__all__ = [
    "FindingRecord",
    "FindingState",
    "HostRecord",
    "MissingPartsError",
    "MuteRecord",
    "Origin",
    "Page",
    "PruneResult",
    "ReportDiff",
    "ReportSummary",
    "SavedReport",
    "SeriesQuery",
    "SeverityCounts",
    "Store",
    "StoreError",
    "StoreInputError",
    "StoredReport",
    "store_unavailable",
]
