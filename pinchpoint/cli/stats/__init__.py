"""`pinchpoint stats`: latency and load figures from samples, imports and the live host.

The commands are declared here and do their work in `diff`, `imports` and `show`, imported when
a command runs: every `pinchpoint` invocation reads this file, few need the statistics code.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pinchpoint.cli.examples import examples_epilog
from pinchpoint.cli.options import JsonOption, chosen_format, format_option
from pinchpoint.model.breakdown import GroupLevel
from pinchpoint.model.stats import ImportKind
from pinchpoint.report import ReportFormat

# `--format` of the stats commands: the terminal's tables, JSON, and (but for the live `watch`)
# the tables in Markdown
FormatOption = Annotated[
    ReportFormat | None,
    format_option(ReportFormat.TABLE, ReportFormat.JSON, ReportFormat.MARKDOWN),
]
WatchFormatOption = Annotated[
    ReportFormat | None, format_option(ReportFormat.TABLE, ReportFormat.JSON)
]

EXAMPLES = {
    "stats": (
        "pinchpoint stats show --demo --by enclosure",
        "pinchpoint stats diff host42.tar.gz --json",
        "pinchpoint stats watch --interval 1 --top 10",
    ),
    "diff": (
        "pinchpoint stats diff before after",
        "pinchpoint stats diff host42.tar.gz --all --partitions --format markdown",
        "pinchpoint stats diff host42.tar.gz --format json",
    ),
    "record": (
        "pinchpoint stats record --seconds 10",
        "pinchpoint stats record --seconds 30 --device sda --device sdb --json",
    ),
    "watch": (
        "pinchpoint stats watch",
        "pinchpoint stats watch --interval 5 --count 12 --top 10",
        "pinchpoint stats watch --count 60 --json",
    ),
    "import": (
        "pinchpoint stats import zpool-iostat-w.txt",
        "pinchpoint stats import perfmon.csv --kind perfmon --format json",
    ),
    "show": (
        "pinchpoint stats show --demo --by enclosure --by hba",
        "pinchpoint stats show --snapshot host42.tar.gz --by chain --format markdown",
        "pinchpoint stats show --by nic --by bond --seconds 5 --json",
    ),
}

stats_app = typer.Typer(
    help="Latency and load: iostat figures, imported series, breakdowns along the hierarchy.",
    epilog=examples_epilog(EXAMPLES["stats"]),
    no_args_is_help=True,
)


@stats_app.command("diff", epilog=examples_epilog(EXAMPLES["diff"]))
def diff_command(
    first: Annotated[
        Path,
        typer.Argument(
            help="Snapshot (directory or .tar.gz) or sample directory; alone: a "
            "snapshot with samples/, each interval in turn."
        ),
    ],
    second: Annotated[
        Path | None, typer.Argument(help="The later snapshot or sample directory.")
    ] = None,
    form: FormatOption = None,
    as_json: JsonOption = False,
    everything: Annotated[
        bool, typer.Option("--all", help="Also devices with no I/O in the interval.")
    ] = False,
    partitions: Annotated[
        bool, typer.Option("--partitions", help="Also partitions (as iostat -p ALL).")
    ] = False,
) -> None:
    """The figures `iostat -x` prints, between two samples of /proc/diskstats."""
    from pinchpoint.cli.stats.diff import diff_report

    diff_report(first, second, chosen_format(form, as_json), everything, partitions)


@stats_app.command("record", epilog=examples_epilog(EXAMPLES["record"]))
def record_command(
    seconds: Annotated[
        float, typer.Option("--seconds", "-s", min=0.1, max=86400, help="How long to record.")
    ] = 10.0,
    devices: Annotated[
        list[str] | None,
        typer.Option(
            "--device",
            "-d",
            help="A block device to record (kernel name, e.g. sda, "
            "nvme0n1); repeat for more. Default: every device.",
        ),
    ] = None,
    form: FormatOption = None,
    as_json: JsonOption = False,
    bpf_stats: Annotated[
        bool,
        typer.Option(
            "--bpf-stats",
            help="Also measure what the probes cost (the kernel's BPF run-time statistics).",
        ),
    ] = False,
    map_budget: Annotated[
        int | None,
        typer.Option(
            "--map-budget-bytes",
            min=1,
            help="The most kernel memory the recorder's maps may take (default 64 MiB): "
            "per-CPU histograms where it holds them, else shared ones (docs/ebpf.md).",
        ),
    ] = None,
) -> None:
    """Per-I/O latency of this host's block devices, recorded in the kernel (eBPF): per device
    and operation, the count and the p50/p90/p99/max of device time (issue to completion) and
    of time queued in the block layer. Needs root (or CAP_BPF and CAP_PERFMON) and a kernel
    with BTF; the seconds run from the moment the probes are attached."""
    from pinchpoint.cli.stats.record import record_report

    record_report(seconds, devices or [], chosen_format(form, as_json), bpf_stats, map_budget)


@stats_app.command("watch", epilog=examples_epilog(EXAMPLES["watch"]))
def watch_command(
    interval: Annotated[
        float, typer.Option("--interval", "-i", min=0.05, help="Seconds between samples.")
    ] = 1.0,
    count: Annotated[
        int | None,
        typer.Option("--count", "-n", min=1, help="Intervals to show (default: until Ctrl-C)."),
    ] = None,
    top: Annotated[int, typer.Option("--top", min=1, help="Busiest devices to show.")] = 20,
    form: WatchFormatOption = None,
    as_json: JsonOption = False,
    everything: Annotated[
        bool,
        typer.Option(
            "--all",
            help="Every device, idle ones and partitions too, instead of the --top busiest "
            "whole devices. Computes every device's figures each interval: on a host with "
            "thousands of devices that costs more CPU than the sampling itself.",
        ),
    ] = False,
) -> None:
    """This host's iostat -x figures, live: the busiest devices each interval.

    Each interval the counters are read raw and ranked by busy time, then completed I/Os
    (as %util, then r/s + w/s + d/s + f/s); figures are computed only for the devices shown.
    """
    from pinchpoint.cli.stats.diff import watch_report

    as_lines = chosen_format(form, as_json) is ReportFormat.JSON
    watch_report(interval, count, top, as_lines, everything)


@stats_app.command("import", epilog=examples_epilog(EXAMPLES["import"]))
def import_command(
    file: Annotated[Path, typer.Argument(help="The statistics file to read.")],
    kind: Annotated[
        ImportKind | None,
        typer.Option("--kind", help="Its format; guessed from the content when not given."),
    ] = None,
    form: FormatOption = None,
    as_json: JsonOption = False,
) -> None:
    """Read zpool iostat -w/-l, iostat -x (text or JSON), fio JSON or a PerfMon CSV."""
    from pinchpoint.cli.stats.imports import import_report

    import_report(file, kind, chosen_format(form, as_json))


@stats_app.command("show", epilog=examples_epilog(EXAMPLES["show"]))
def show_command(
    snapshot: Annotated[
        Path | None,
        typer.Option("--snapshot", "-s", help="Read a snapshot directory or .tar.gz."),
    ] = None,
    demo: Annotated[
        bool, typer.Option("--demo", help="The bundled demo host with its workload.")
    ] = False,
    by: Annotated[
        list[GroupLevel] | None,
        typer.Option("--by", help="Level to group by (repeat for several)."),
    ] = None,
    slower_than: Annotated[
        str, typer.Option("--slower-than", help="Threshold for the share of slow I/Os.")
    ] = "220ms",
    import_files: Annotated[
        list[Path] | None,
        typer.Option("--import", help="Another tool's statistics file (repeatable)."),
    ] = None,
    kinds: Annotated[
        list[ImportKind] | None,
        typer.Option("--kind", help="Format of the --import file in the same position."),
    ] = None,
    seconds: Annotated[
        float, typer.Option("--seconds", help="Live host: seconds between the two samples.")
    ] = 1.0,
    form: FormatOption = None,
    as_json: JsonOption = False,
) -> None:
    """Load and latency grouped along the hierarchy: which JBOD, chain or HBA stands out."""
    from pinchpoint.cli.stats.show import show_report

    show_report(
        snapshot, demo, by, slower_than, import_files, kinds, seconds, chosen_format(form, as_json)
    )


def register(app: typer.Typer) -> None:
    """Add `stats` and its commands to the `pinchpoint` command."""
    app.add_typer(stats_app, name="stats")
