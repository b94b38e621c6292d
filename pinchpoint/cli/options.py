"""Options several commands share, and loading what they name."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from pinchpoint.cli.console import fail
from pinchpoint.cli.errors import exit_for

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
