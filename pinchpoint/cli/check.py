"""`pinchpoint check`: evaluate the rule catalog against a host and print the report.

Declared here; the rules, statistics and renderers are imported when it runs (every `pinchpoint`
invocation reads this file, few need the rest).

Exit status of `check`: 0 when no unmuted finding reaches `--fail-on` (default critical), 1 when
one does — or, with `--fail-on partial`, when the report is partial (most rules could not run) —
and 2 on a usage or internal error (a bad config file, an unreadable snapshot).
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pinchpoint.cli.console import (
    data,
    fail,
    located,
    notice,
    output_console,
    progress_bar,
    progress_reporter,
)
from pinchpoint.cli.errors import exit_for, with_advice
from pinchpoint.cli.examples import examples_epilog
from pinchpoint.cli.options import (
    ConfigOption,
    JsonOption,
    chosen_format,
    format_option,
    host_source,
    rules_config,
)
from pinchpoint.report import ReportFormat

PREVIOUS_ADVICE = "give the snapshot directory or .tar.gz of the earlier capture"

if TYPE_CHECKING:
    from pinchpoint.model.findings import Report
    from pinchpoint.model.inventory import Inventory
    from pinchpoint.rules.base import Rule
    from pinchpoint.rules.config import Config
    from pinchpoint.service.checkup import Checkup


class FailOn(StrEnum):
    WARNING = "warning"
    CRITICAL = "critical"
    PARTIAL = "partial"  # the report is partial: most rules could not run


def fails(report: Report, fail_on: list[FailOn]) -> bool:
    """Whether `report` fails the check (exit 1): an unmuted finding at the severity given (the
    lowest severity given; critical when none is), or a partial report with `partial` given."""
    from pinchpoint.model.findings import ReportStatus, Severity

    if FailOn.PARTIAL in fail_on and report.status is ReportStatus.PARTIAL:
        return True
    severities = [Severity(f.value) for f in fail_on if f is not FailOn.PARTIAL]
    threshold = min((s.rank for s in severities), default=Severity.CRITICAL.rank)
    worst = report.worst()
    return worst is not None and worst.rank >= threshold


def previous_inventory(path: Path) -> Inventory:
    """The inventory of an earlier snapshot of the host, for the rules that compare two sweeps
    (phy error counters rising)."""
    from pinchpoint.checks.collect.inventory import collect_inventory
    from pinchpoint.checks.source.choose import open_source

    try:
        with open_source(path) as (source, kind):
            return collect_inventory(source, kind=kind)
    except (FileNotFoundError, ValueError) as err:
        raise fail(with_advice(f"--previous: {located(path, str(err))}", PREVIOUS_ADVICE)) from None


def check_host(
    snapshot: Path | None,
    demo: bool,
    config: Config,
    seconds: float,
    catalog: tuple[Rule, ...],
    previous: Path | None = None,
    record: bool = False,
) -> Checkup:
    """Collect (or read) the host, gather its statistics and evaluate `catalog` against it
    (and against an earlier snapshot of it, `previous`)."""
    from pinchpoint.model.inventory import SourceKind
    from pinchpoint.service.checkup import check_source

    before = previous_inventory(previous) if previous is not None else None
    with host_source(snapshot, demo) as (source, kind), progress_bar() as progress:
        task = progress.add_task("inventory", total=None)
        checkup = check_source(
            source,
            kind=kind or (SourceKind.DEMO if demo else None),
            live=snapshot is None and not demo,
            config=config,
            seconds=seconds,
            previous=before,
            catalog=catalog,
            progress=progress_reporter(progress, task),
            record_latency=record,
        )
    for note in checkup.statistics.notes:
        notice(f"[yellow]statistics: {data(note)}[/]")
    return checkup


def _write(report: Report, form: ReportFormat, output: Path | None) -> None:
    from pinchpoint.report.text import report_text

    if output is not None:
        try:
            output.write_text(report_text(report, form), encoding="utf-8")
        except OSError as err:
            raise fail(
                f"{output}: cannot write the report: {err.strerror or err} — choose a writable path"
            ) from None
        notice(f"report written to {data(output)}")
    elif form is ReportFormat.TABLE:
        from pinchpoint.report.table import report_view

        output_console().print(report_view(report))
    else:
        sys.stdout.write(report_text(report, form))


def _push(url: str, checkup: Checkup) -> None:
    """Send the report to a central service; a refusal is an error (exit 2)."""
    import os

    from pydantic import SecretStr

    from pinchpoint.service.fleet import PushError, push_report

    token = os.environ.get("PINCHPOINT_PUSH_TOKEN")
    try:
        stored = push_report(
            url, SecretStr(token) if token else None, checkup.report, checkup.inventory
        )
    except PushError as err:
        raise exit_for(err) from None
    notice(f"report pushed to {data(url)} (stored as report {stored})")


def _checked(
    snapshot: Path | None,
    demo: bool,
    config_file: Path | None,
    seconds: float,
    record: bool,
    previous: Path | None,
    written: tuple[ReportFormat, Path | None],
    push_to: str | None,
) -> Report:
    """The report of the host, written as `written` says (a format, a file or stdout) and
    pushed to `push_to`; the inventory and statistics behind it are freed on return."""
    from pinchpoint.rules.catalog import CATALOG

    config = rules_config(config_file, CATALOG)
    # any other error is one line and exit 2 (not Python's 1, which means "findings"):
    # `cli.errors.PinchpointGroup`
    if record and (snapshot is not None or demo):
        raise fail("--record records this host: not with --snapshot or --demo — leave those out")
    checkup = check_host(snapshot, demo, config, seconds, CATALOG, previous, record)
    _write(checkup.report, *written)
    if push_to:
        _push(push_to, checkup)
    return checkup.report


def check_command(
    snapshot: Annotated[
        Path | None,
        typer.Option("--snapshot", "-s", help="Read a snapshot directory or .tar.gz."),
    ] = None,
    demo: Annotated[
        bool, typer.Option("--demo", help="The bundled demo host (field case 1).")
    ] = False,
    config_file: ConfigOption = None,
    form: Annotated[
        ReportFormat | None,
        format_option(
            ReportFormat.TABLE, ReportFormat.JSON, ReportFormat.MARKDOWN, ReportFormat.HTML
        ),
    ] = None,
    as_json: JsonOption = False,
    fail_on: Annotated[
        list[FailOn] | None,
        typer.Option(
            "--fail-on",
            help="Exit 1 when an unmuted finding is this severe or worse (default critical); "
            "'partial': also when most rules could not run. Repeat to give both.",
        ),
    ] = None,
    seconds: Annotated[
        float, typer.Option("--seconds", help="Live host: seconds between the two samples.")
    ] = 1.0,
    record: Annotated[
        bool,
        typer.Option(
            "--record",
            help="Live host: also record per-I/O latency in the kernel (eBPF) over the "
            "--seconds window, so the rules judge real distributions (docs/ebpf.md).",
        ),
    ] = False,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the report to this file.")
    ] = None,
    previous: Annotated[
        Path | None,
        typer.Option(
            "--previous",
            help="An earlier snapshot of the host: rules compare the two (phy errors rising).",
        ),
    ] = None,
    push_to: Annotated[
        str | None,
        typer.Option(
            "--push-to",
            help="Also send the report to a central service (token: PINCHPOINT_PUSH_TOKEN).",
        ),
    ] = None,
) -> None:
    """Evaluate every rule: findings by severity with entity, evidence and fix."""
    from pinchpoint.performance import gc_paused

    chosen = chosen_format(form, as_json)
    if snapshot is not None and demo:
        raise fail("--snapshot and --demo exclude each other — give one of them")
    if not seconds > 0:
        raise fail(f"--seconds must be above 0, not {seconds} — give a number of seconds above 0")
    # The imports, the check and the report in one pause of the collector, the check's models
    # freed before it resumes: on the 1,920-path host a full collection during the imports and
    # one over every model when the check's own pause ended took 0.2-0.25 s (docs/benchmarks.md).
    with gc_paused():
        report = _checked(
            snapshot, demo, config_file, seconds, record, previous, (chosen, output), push_to
        )
    if fails(report, fail_on or [FailOn.CRITICAL]):
        raise typer.Exit(1)


EXAMPLES = (
    "pinchpoint check --demo",
    "pinchpoint check --snapshot host42.tar.gz --format markdown --output host42.md",
    "pinchpoint check --json --fail-on warning --fail-on partial",
)


def register(app: typer.Typer) -> None:
    """Add `check` to the `pinchpoint` command."""
    app.command("check", epilog=examples_epilog(EXAMPLES))(check_command)
