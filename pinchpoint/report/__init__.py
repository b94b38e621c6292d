"""A `Report` for people and programs: a Rich table for the terminal, JSON, Markdown for tickets
and one self-contained HTML page (`pinchpoint.report.text` renders each). `docs/report-format.md`
documents the JSON.

This module stays light (no models imported) because every `pinchpoint` command reads it to
declare its `--format` option."""

from __future__ import annotations

from enum import StrEnum


class ReportFormat(StrEnum):
    """How a report is written: the CLI's `--format` and the API's `?format=` alike."""

    TABLE = "table"  # the terminal table; plain text in a file or over HTTP
    JSON = "json"
    MARKDOWN = "markdown"
    HTML = "html"

    @property
    def media_type(self) -> str:
        """The HTTP content type of a report written this way."""
        return _MEDIA_TYPES[self]


_MEDIA_TYPES = {
    ReportFormat.TABLE: "text/plain; charset=utf-8",
    ReportFormat.JSON: "application/json",
    ReportFormat.MARKDOWN: "text/markdown; charset=utf-8",
    ReportFormat.HTML: "text/html; charset=utf-8",
}
