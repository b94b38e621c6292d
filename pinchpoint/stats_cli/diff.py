"""`stats diff` and `stats watch`: iostat -x figures between two samples, or live."""

from __future__ import annotations

from pinchpoint.stats_cli import stats_app

__all__ = ["stats_app"]
