"""A report written out in one `ReportFormat`."""

from __future__ import annotations

from pinchpoint.model.findings import Report
from pinchpoint.report import ReportFormat
from pinchpoint.text import json_printable, printable


def report_json(report: Report) -> str:
    """The report as JSON: the `Report` model as it dumps, indented."""
    return json_printable(report.model_dump_json(indent=2)) + "\n"


def report_text(report: Report, form: ReportFormat) -> str:
    """The report as text in `form` (the table drawn without colours, as for a file). Text from
    the host cannot carry control characters out: JSON escapes them, the other forms show them
    as visible escapes (`pinchpoint.text.printable`)."""
    if form is ReportFormat.JSON:
        return report_json(report)
    return printable(_report_page(report, form), lines=True)


def _report_page(report: Report, form: ReportFormat) -> str:
    if form is ReportFormat.MARKDOWN:
        from pinchpoint.report.markdown import report_markdown

        return report_markdown(report)
    if form is ReportFormat.HTML:
        from pinchpoint.report.html import report_html

        return report_html(report)
    from pinchpoint.report.table import report_plain

    return report_plain(report)
