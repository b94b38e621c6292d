"""Every report says where the latency its rules judged came from, in each of its forms (the
terminal table, Markdown, HTML, JSON), in the words the service's statistics API uses."""

from __future__ import annotations

import html
import json

import pytest
from report.findings_made import finding, report

from pinchpoint.model.findings import Report
from pinchpoint.model.latency_source import (
    AVERAGES_ONLY,
    NOT_ASKED,
    LatencySource,
    LatencySourceKind,
)
from pinchpoint.report import ReportFormat
from pinchpoint.report.text import report_text

SOURCES = [
    (
        LatencySource(kind=LatencySourceKind.EBPF, seconds=10.0),
        "latency: per-I/O latency recorded in the kernel (eBPF), 10 s",
    ),
    (
        LatencySource(
            kind=LatencySourceKind.EBPF,
            seconds=30.0,
            origins=["commands/biolat/recording.json"],
        ),
        "latency: per-I/O latency recorded in the kernel (eBPF), 30 s "
        "(commands/biolat/recording.json)",
    ),
    (
        LatencySource(kind=LatencySourceKind.DISKSTATS, reason=NOT_ASKED),
        f"latency: {AVERAGES_ONLY}{NOT_ASKED}",
    ),
    (
        LatencySource(kind=LatencySourceKind.IMPORTED, origins=["fio.json", "zpool-iostat-w"]),
        "latency: latency histograms imported (fio.json, zpool-iostat-w)",
    ),
    (
        LatencySource(kind=LatencySourceKind.SIMULATED),
        "latency: simulated (the demo host): not measured",
    ),
    (
        LatencySource(kind=LatencySourceKind.NONE, reason="no diskstats samples"),
        "latency: no latency figures: no diskstats samples",
    ),
]


def _with(source: LatencySource | None) -> Report:
    made = report(finding("latency.group.outlier", "jbod-3"))
    made.latency = source
    return made


@pytest.mark.parametrize(("source", "words"), SOURCES, ids=[s.kind.value for s, _ in SOURCES])
@pytest.mark.parametrize("form", [ReportFormat.TABLE, ReportFormat.MARKDOWN, ReportFormat.HTML])
def test_each_form_says_where_the_latency_came_from(
    source: LatencySource, words: str, form: ReportFormat
) -> None:
    text = report_text(_with(source), form)
    flat = " ".join(html.unescape(text).split())  # the table wraps; HTML escapes quotes
    if form is ReportFormat.MARKDOWN:
        words = f"L{words[1:]}."  # a sentence of its own
    assert words in flat


@pytest.mark.parametrize(("source", "words"), SOURCES, ids=[s.kind.value for s, _ in SOURCES])
def test_the_json_carries_the_source_and_its_words(source: LatencySource, words: str) -> None:
    document = json.loads(report_text(_with(source), ReportFormat.JSON))
    latency = document["latency"]
    assert latency["kind"] == source.kind.value
    assert latency["summary"] == words.removeprefix("latency: ")
    assert latency["seconds"] == source.seconds and latency["reason"] == source.reason
    # the report reads back (the store does), the summary recomputed, not stored
    assert Report.model_validate(document).latency == source


def test_a_report_made_before_reports_said_it_has_no_latency_line() -> None:
    old = _with(None)
    document = json.loads(report_text(old, ReportFormat.JSON))
    assert document["latency"] is None
    for form in (ReportFormat.TABLE, ReportFormat.MARKDOWN, ReportFormat.HTML):
        assert "latency:" not in report_text(old, form).lower().replace("latency.", "")
