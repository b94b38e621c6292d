"""Options several commands share, and loading what they name."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from pinchpoint.cli.console import fail
from pinchpoint.cli.errors import exit_for
from pinchpoint.report import ReportFormat

if TYPE_CHECKING:
    from pinchpoint.checks.source import Source
    from pinchpoint.model.inventory import SourceKind
    from pinchpoint.rules.base import Rule
    from pinchpoint.rules.config import Config

ConfigOption = Annotated[
    Path | None,
    typer.Option(
        "--config",
        "-c",
        help="Thresholds, severities and mutes (default: $PINCHPOINT_CONFIG, else the first "
        "of ./pinchpoint.toml, ~/.config/pinchpoint/pinchpoint.toml, "
        "/etc/pinchpoint/pinchpoint.toml).",
    ),
]


def format_option(*formats: ReportFormat) -> Any:  # typer's OptionInfo
    """`--format/-f`: how a command prints its result, one of `formats` (the first is the
    default). Every command that prints declares it so, with `--json` (`JsonOption`) beside it;
    `chosen_format` reads the two."""
    names = [form.value for form in formats]

    def parse(value: str) -> ReportFormat:
        if value not in names:
            raise typer.BadParameter(f"{value!r}: use {', '.join(names)}")
        return ReportFormat(value)

    def complete(incomplete: str) -> list[str]:
        return [name for name in names if name.startswith(incomplete)]

    return typer.Option(
        "--format",
        "-f",
        parser=parse,
        autocompletion=complete,
        metavar="[" + "|".join(names) + "]",
        show_default=False,
        help=f"How to print it: {', '.join(names)} (default {names[0]}).",
    )


JsonOption = Annotated[bool, typer.Option("--json", help="Short for --format json.")]


def chosen_format(
    form: ReportFormat | None,
    as_json: bool = False,
    markdown: bool = False,
    default: ReportFormat = ReportFormat.TABLE,
) -> ReportFormat:
    """The format `--format`, `--json` (and `rules --markdown`) ask for, `default` when none
    does; two different ones are a one-line error, exit 2."""
    asked: dict[str, ReportFormat] = {}
    if form is not None:
        asked[f"--format {form.value}"] = form
    if as_json:
        asked["--json"] = ReportFormat.JSON
    if markdown:
        asked["--markdown"] = ReportFormat.MARKDOWN
    if len(set(asked.values())) > 1:
        raise fail(f"{' and '.join(asked)} ask for different formats: give one")
    return next(iter(asked.values()), default)


def rules_config(path: Path | None, catalog: tuple[Rule, ...]) -> Config:
    """The rules' configuration from `path` (or the file every command finds); a bad file is
    exit 2."""
    from pinchpoint.rules.config import ConfigError, load_config

    try:
        return load_config(path, catalog)
    except ConfigError as err:
        raise exit_for(err) from None


@contextmanager
def host_source(snapshot: Path | None, demo: bool) -> Iterator[tuple[Source, SourceKind | None]]:
    """The host `--snapshot`/`--demo` name (else this one), opened; a snapshot that cannot be
    opened is exit 2 with the reason. Errors of the body are not caught here."""
    from pinchpoint.checks.source.choose import open_source

    if snapshot is not None and demo:
        raise fail("--snapshot and --demo exclude each other — give one of them")
    with ExitStack() as stack:
        try:
            opened = stack.enter_context(open_source(snapshot, demo=demo))
        except (FileNotFoundError, ValueError) as err:
            raise exit_for(err) from None
        yield opened
