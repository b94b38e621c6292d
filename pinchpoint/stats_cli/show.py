"""`stats show`: statistics summed along the hierarchy, disk → enclosure → chain → HBA."""

from __future__ import annotations

from pinchpoint.stats_cli import stats_app

__all__ = ["stats_app"]
