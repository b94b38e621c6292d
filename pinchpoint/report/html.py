"""The report as one self-contained HTML page (styles inline, nothing fetched): status by colour
and by word, so it reads on a monochrome printout too."""

from __future__ import annotations

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from pinchpoint.markup import markdown_html
from pinchpoint.model.findings import Report
from pinchpoint.report.words import (
    by_severity,
    fact_text,
    host_name,
    latency_line,
    mute_text,
    muted,
    names_entity,
    simulated_line,
    status_line,
)


def _environment() -> Environment:
    environment = Environment(
        loader=PackageLoader("pinchpoint.report", "templates"),
        autoescape=select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters["fact"] = fact_text
    environment.filters["mute"] = mute_text
    environment.filters["names_entity"] = names_entity
    environment.filters["markdown"] = lambda text: Markup(markdown_html(text))
    return environment


def report_html(report: Report) -> str:
    """The whole report as an HTML page."""
    template = _environment().get_template("report.html.j2")
    return template.render(
        report=report,
        host=host_name(report),
        status=status_line(report),
        groups=list(by_severity(report)),
        muted=muted(report),
        worst=report.worst(),
        partial=report.status_reasons,
        simulated=simulated_line(report),
        latency=latency_line(report),
    )
