"""`pinchpoint serve`: the service — REST API, scheduled sweeps, report store, notifications,
metrics and the maintenance view — on this host, the demo host or a snapshot.

Declared here, imported when it runs (FastAPI, SQLAlchemy and uvicorn are heavy for `inventory`).
"""

from __future__ import annotations

import logging
import socket
from pathlib import Path
from typing import Annotated, Protocol

import typer

from pinchpoint.cli.console import data, errors, fail
from pinchpoint.cli.errors import error_message, exit_for
from pinchpoint.cli.examples import examples_epilog

LISTEN_BACKLOG = 2048  # uvicorn's default


def listening_socket(host: str, port: int) -> socket.socket:
    """The service's socket, bound and listening before anything else starts, so that a port
    already taken (a second `serve`) stops this one before it opens the store or sweeps.
    Raises `OSError` when the address cannot be had."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # past TIME_WAIT only
        listener.bind((host, port))
        listener.listen(LISTEN_BACKLOG)
    except BaseException:
        listener.close()
        raise
    listener.set_inheritable(True)
    return listener


class Announce(Protocol):
    def __call__(self, message: str, warning: bool = False) -> None: ...


def announcer(log_format: str) -> Announce:
    """How `serve` tells the operator what it started: a line on the terminal, or with JSON logs
    a log record like every other line (a JSON-lines stream holds nothing else)."""
    log = logging.getLogger("pinchpoint.serve")

    def say(message: str, warning: bool = False) -> None:
        if log_format == "json":
            log.log(logging.WARNING if warning else logging.INFO, "%s", message)
        else:
            errors.print(data(message), style="yellow" if warning else None, soft_wrap=True)

    return say


def serve_command(
    listen: Annotated[
        str | None, typer.Option("--host", help="Address to listen on (default 127.0.0.1).")
    ] = None,
    port: Annotated[int | None, typer.Option("--port", "-p", help="Port (default 9460).")] = None,
    config_file: Annotated[
        Path | None,
        typer.Option(
            "--config",
            "-c",
            help="pinchpoint.toml: \\[service] and the rules' settings (default: the file every "
            "command finds; `pinchpoint config show`).",  # help is Rich markup
        ),
    ] = None,
    data_dir: Annotated[
        Path | None, typer.Option("--data-dir", help="Store, tokens and daily reports.")
    ] = None,
    database_url: Annotated[
        str | None,
        typer.Option("--database-url", help="SQLAlchemy URL (default: SQLite in --data-dir)."),
    ] = None,
    demo: Annotated[bool, typer.Option("--demo", help="Serve the simulated demo host.")] = False,
    demo_if_no_sas: Annotated[
        bool, typer.Option("--demo-if-no-sas", help="The demo host when this one has no SAS HBA.")
    ] = False,
    snapshot: Annotated[
        Path | None, typer.Option("--snapshot", "-s", help="Serve a captured snapshot.")
    ] = None,
    role: Annotated[
        str | None, typer.Option("--role", help="agent (default) or central (accepts pushes).")
    ] = None,
    push_to: Annotated[
        str | None, typer.Option("--push-to", help="Push each report to this central service.")
    ] = None,
    open_reads: Annotated[
        bool,
        typer.Option(
            "--open-reads", help="Serve reads without a token (only when listening on loopback)."
        ),
    ] = False,
    allowed_hosts: Annotated[
        list[str] | None,
        typer.Option(
            "--allowed-host",
            help="A Host header name to answer (repeat it; *.example.com, * for any). Default: "
            "the names and addresses it listens on, and localhost.",
        ),
    ] = None,
    no_first_sweep: Annotated[
        bool, typer.Option("--no-first-sweep", help="Wait for the schedule instead.")
    ] = False,
    log_level: Annotated[
        str, typer.Option("--log-level", help="debug, info, warning or error.")
    ] = "info",
    log_format: Annotated[
        str,
        typer.Option(
            "--log-format",
            help="text (one line per record, for a terminal) or json (one JSON object per line, "
            "for journald or Loki).",
        ),
    ] = "text",
    access_log: Annotated[
        bool,
        typer.Option(
            "--access-log/--no-access-log", help="Log each HTTP request (method, path, status)."
        ),
    ] = False,
) -> None:
    """Run the service: REST API under /v1, sweeps on a schedule, the report store, webhooks,
    /metrics and the maintenance view at /."""
    import uvicorn

    from pinchpoint.api.app import create_app
    from pinchpoint.service.runtime import Service
    from pinchpoint.service.settings import (
        SettingsError,
        TargetKind,
        ensure_tokens,
        load_settings,
    )
    from pinchpoint.text import LOG_FORMATS, configure_logging

    if demo and snapshot is not None:
        raise fail("--demo and --snapshot exclude each other — give one of them")
    if log_format not in LOG_FORMATS:
        raise fail(f"--log-format {log_format}: unknown — use {' or '.join(LOG_FORMATS)}")
    if log_level.lower() not in ("debug", "info", "warning", "error", "critical"):
        raise fail(f"--log-level {log_level}: unknown — use debug, info, warning or error")
    target = TargetKind.DEMO if demo else TargetKind.SNAPSHOT if snapshot else None
    try:
        settings = load_settings(
            config_file,
            listen=listen,
            port=port,
            data_dir=data_dir,
            database_url=database_url,
            target=target,
            snapshot=snapshot,
            demo_if_no_sas=demo_if_no_sas or None,
            role=role,
            push_to=push_to,
            open_reads_on_loopback=open_reads or None,
            allowed_hosts=allowed_hosts or None,
        )
    except SettingsError as err:
        raise exit_for(err) from None
    configure_logging(log_level, log_format=log_format)
    say = announcer(log_format)
    if settings.open_reads_on_loopback and not settings.on_loopback:
        say(f"reads stay behind the token: {settings.listen} is not a loopback address", True)
    try:
        listener = listening_socket(settings.listen, settings.port)
    except OSError as err:
        why = err.strerror or str(err)
        raise fail(
            f"cannot listen on {settings.listen}:{settings.port}: {why}: another pinchpoint "
            "serve (or another program) holds it — stop it or choose another --port"
        ) from None
    try:
        written = ensure_tokens(settings)
        service = Service(settings)
    except OSError as err:
        listener.close()
        raise fail(error_message(err)) from None
    except Exception as err:
        listener.close()
        raise fail(f"the service cannot start: {error_message(err)}") from None
    for path in written:
        say(f"a new token was written to {path} (readable by this user only)")
    port = listener.getsockname()[1]  # the port given, or the one chosen for port 0
    say(
        f"pinchpoint serving {service.target.label} on http://{settings.listen}:{port} "
        f"(store: {service.store.dialect}, data: {settings.resolved_data_dir()}"
        f"{', reads open on loopback' if settings.reads_open else ''})"
    )
    app = create_app(service, first_sweep=not no_first_sweep)
    config = uvicorn.Config(
        app,
        host=settings.listen,
        port=port,
        log_level=log_level.lower(),
        access_log=access_log,
        server_header=False,
        log_config=None,  # its loggers (access log too) propagate to ours: one format, escaped
    )
    uvicorn.Server(config).run(sockets=[listener])


EXAMPLES = (
    "pinchpoint serve --demo",
    "pinchpoint serve --host 0.0.0.0 --port 9460 --log-format json",
    "pinchpoint serve --push-to https://central.example:9460",
)


def register(app: typer.Typer) -> None:
    """Add `serve` to the `pinchpoint` command."""
    app.command("serve", epilog=examples_epilog(EXAMPLES))(serve_command)
