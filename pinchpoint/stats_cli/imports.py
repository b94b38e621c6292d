"""`stats import`: read another tool's statistics file (zpool iostat, iostat, fio, PerfMon)."""

from __future__ import annotations

from pinchpoint.stats_cli import stats_app

__all__ = ["stats_app"]
