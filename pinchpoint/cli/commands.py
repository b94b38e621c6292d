"""The `pinchpoint` commands by name: the module declaring each and its one-line help.

Every invocation reads this table (the top-level `--help` is drawn from it, and a command's
module is imported only when that command runs), so it imports nothing.
`tests/cli/test_start.py` holds it equal to what the modules declare.
"""

from __future__ import annotations

# (name, module that declares it with `register(app)`, help as the command list shows it);
# in the order `pinchpoint --help` lists them. `version` is declared by the app itself.
COMMANDS: tuple[tuple[str, str, str], ...] = (
    (
        "inventory",
        "pinchpoint.cli.inventory",
        "The SAS fabric: HBA → port → chain → enclosure → slots, with the path count of each.",
    ),
    (
        "capture",
        "pinchpoint.cli.capture",
        "Write a snapshot of everything the collectors read, to analyse this host elsewhere.",
    ),
    (
        "simulate",
        "pinchpoint.cli.simulate",
        "Write a snapshot of an imagined host described by SPEC.",
    ),
    (
        "check",
        "pinchpoint.cli.check",
        "Evaluate every rule: findings by severity with entity, evidence and fix.",
    ),
    (
        "rules",
        "pinchpoint.cli.rules",
        "The rule catalog: id, default severity, category, title and the inputs each needs.",
    ),
    (
        "explain",
        "pinchpoint.cli.rules",
        "One rule: what it finds and why, its inputs, thresholds (default and in force), and fix.",
    ),
    (
        "serve",
        "pinchpoint.cli.serve",
        "Run the service: REST API under /v1, sweeps on a schedule, the report store, webhooks,\n"
        "/metrics and the maintenance view at /.",
    ),
    ("version", "", "Print the pinchpoint version."),
    (
        "config",
        "pinchpoint.cli.config",
        "The configuration in force: `pinchpoint config show`.",
    ),
    (
        "stats",
        "pinchpoint.cli.stats",
        "Latency and load: iostat figures, imported series, breakdowns along the hierarchy.",
    ),
)

APP_HELP = "Is the I/O path cabled and configured as it should be, and where is the pinch point?"
VERSION_HELP = "Print the version and exit."
HELP_HELP = "Show this message and exit."

# `pinchpoint --install-completion SHELL` / `--show-completion SHELL` (Typer's scripts)
SHELLS = ("bash", "zsh", "fish")
SHELL_METAVAR = "SHELL"
INSTALL_COMPLETION_HELP = "Install tab completion for SHELL: bash, zsh or fish."
SHOW_COMPLETION_HELP = "Print the completion script for SHELL, to install it by hand."

# the options of `pinchpoint` itself as its help lists them: (name, metavar, help)
APP_OPTIONS: tuple[tuple[str, str, str], ...] = (
    ("--version", "<bool>", VERSION_HELP),
    ("--install-completion", SHELL_METAVAR, INSTALL_COMPLETION_HELP),
    ("--show-completion", SHELL_METAVAR, SHOW_COMPLETION_HELP),
    ("--help", "<bool>", HELP_HELP),
)
