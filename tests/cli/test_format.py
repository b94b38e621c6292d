"""One flag for one thing: every command that prints takes `--format` (json always) and `--json`
as its short form; the two asking for different formats is one line and exit 2; `--json` prints
the same bytes as `--format json`, which is what the commands printed before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_commands import every_command
from fixture_paths import TESTS
from typer.testing import CliRunner

from pinchpoint import __version__
from pinchpoint.cli import app
from pinchpoint.model.findings import Report
from pinchpoint.model.inventory import Inventory
from pinchpoint.rules.catalog import CATALOG
from pinchpoint.rules.config import Config
from pinchpoint.rules.docs import catalog_markdown, rule_doc

runner = CliRunner()
FIXTURES = TESTS / "fixtures"
SPECS = FIXTURES / "specs"
RULE = "sas.chain.too_deep"

# commands that print no result of their own: `serve` logs (its format: --log-format)
NOT_PRINTING = {("serve",)}


def test_every_command_that_prints_takes_format_and_json() -> None:
    commands = every_command()
    assert ("stats", "show") in commands and ("config", "show") in commands
    for path, command in commands.items():
        names = {name for param in command.params for name in param.opts}
        if path in NOT_PRINTING:
            assert "--format" not in names, path
            continue
        assert {"--format", "-f", "--json"} <= names, path


# each printing command with the arguments it needs to get as far as reading its format
REQUIRED_ARGS: dict[tuple[str, ...], list[str]] = {
    ("simulate",): [str(SPECS / "healthy_host.toml"), "--out", "unused"],
    ("capture",): ["unused"],
    ("explain",): [RULE],
    ("stats", "diff"): ["unused"],
    ("stats", "import"): ["unused"],
}


@pytest.mark.parametrize(
    "path", sorted(set(every_command()) - NOT_PRINTING), ids=lambda path: " ".join(path)
)
def test_json_and_another_format_together_are_one_line_and_exit_2(
    path: tuple[str, ...], tmp_path: Path
) -> None:
    args = [*path, *REQUIRED_ARGS.get(path, []), "--json", "--format", "table"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert lines == [
        "pinchpoint: error: --format table and --json ask for different formats: give one"
    ]
    assert not (tmp_path / "unused").exists() and not Path("unused").exists()


def test_a_format_a_command_does_not_offer_is_a_usage_error() -> None:
    result = runner.invoke(app, ["capture", "unused", "--format", "markdown"])
    assert result.exit_code == 2
    assert "'markdown': use table, json" in result.output
    result = runner.invoke(app, ["check", "--format", "pdf", "--demo"])
    assert result.exit_code == 2
    assert "'pdf': use table, json, markdown, html" in result.output


def test_json_and_format_json_print_the_same_inventory(procfs_snapshot: Path) -> None:
    outputs = [
        runner.invoke(app, ["inventory", "--snapshot", str(procfs_snapshot), *flags])
        for flags in (["--json"], ["--format", "json"], ["-f", "json", "--json"])
    ]
    assert all(result.exit_code == 0 for result in outputs), outputs[0].output
    assert len({result.stdout for result in outputs}) == 1
    inventory = Inventory.model_validate_json(outputs[0].stdout)
    assert len(inventory.sas.disks) == 4


def test_check_takes_json_as_well_as_format_json(procfs_snapshot: Path) -> None:
    by_format = runner.invoke(app, ["check", "--snapshot", str(procfs_snapshot), "-f", "json"])
    by_alias = runner.invoke(app, ["check", "--snapshot", str(procfs_snapshot), "--json"])
    assert by_format.exit_code == by_alias.exit_code and by_alias.exit_code in (0, 1)
    first, second = (Report.model_validate_json(r.stdout) for r in (by_format, by_alias))
    # the same report but for the moment it was made
    assert first.model_dump(exclude={"generated_at"}) == second.model_dump(exclude={"generated_at"})


def test_check_markdown_and_html_stay(procfs_snapshot: Path) -> None:
    markdown = runner.invoke(app, ["check", "-s", str(procfs_snapshot), "-f", "markdown"])
    html = runner.invoke(app, ["check", "-s", str(procfs_snapshot), "--format", "html"])
    assert markdown.stdout.startswith("#")
    assert html.stdout.lstrip().lower().startswith("<!doctype html")


def test_stats_show_json_alias(procfs_snapshot: Path) -> None:
    args = ["stats", "show", "--snapshot", str(procfs_snapshot), "--by", "hba"]
    by_alias = runner.invoke(app, [*args, "--json"])
    by_format = runner.invoke(app, [*args, "--format", "json"])
    assert by_alias.exit_code == 0, by_alias.output
    assert by_alias.stdout == by_format.stdout
    assert json.loads(by_alias.stdout)["levels"][0]["level"] == "hba"


def test_rules_in_every_format() -> None:
    table = runner.invoke(app, ["rules"])
    assert table.exit_code == 0 and f"{len(CATALOG)} rules" in table.output
    markdown = runner.invoke(app, ["rules", "--format", "markdown"])
    assert markdown.stdout == catalog_markdown(CATALOG)
    assert runner.invoke(app, ["rules", "--markdown"]).stdout == markdown.stdout
    as_json = runner.invoke(app, ["rules", "--json"])
    assert as_json.exit_code == 0
    listed = json.loads(as_json.stdout)
    # what /v1/rules serves (at the defaults: `rules` reads no config)
    assert listed == [rule_doc(rule, Config()).model_dump(mode="json") for rule in CATALOG]
    assert runner.invoke(app, ["rules", "-f", "json"]).stdout == as_json.stdout
    clash = runner.invoke(app, ["rules", "--markdown", "--format", "json"])
    assert clash.exit_code == 2
    assert "--format json and --markdown ask for different formats" in clash.output


def test_explain_in_every_format(tmp_path: Path) -> None:
    config = tmp_path / "pinchpoint.toml"
    config.write_text(f'[rules."{RULE}"]\nmax_enclosures = 3\n')
    as_json = runner.invoke(app, ["explain", RULE, "--config", str(config), "--json"])
    assert as_json.exit_code == 0, as_json.output
    doc = json.loads(as_json.stdout)
    assert doc["id"] == RULE
    assert [t["in_force"] for t in doc["thresholds"] if t["name"] == "max_enclosures"] == [3]
    markdown = runner.invoke(app, ["explain", RULE, "-c", str(config), "--format", "markdown"])
    assert markdown.stdout == doc["markdown"]
    assert markdown.stdout.startswith(f"# `{RULE}`")
    table = runner.invoke(app, ["explain", RULE], env={"COLUMNS": "100"})
    assert table.exit_code == 0 and "# `" not in table.output and RULE in table.output


def test_simulate_json_names_the_snapshot(tmp_path: Path) -> None:
    out = tmp_path / "healthy"
    result = runner.invoke(
        app, ["simulate", str(SPECS / "healthy_host.toml"), "--out", str(out), "--json"]
    )
    assert result.exit_code == 0, result.output
    written = json.loads(result.stdout)
    assert written["snapshot"] == str(out) and (out / "manifest.json").is_file()
    manifest = json.loads((out / "manifest.json").read_text())
    assert written["hostname"] == manifest["hostname"]


def test_version_json() -> None:
    result = runner.invoke(app, ["version", "--format", "json"])
    assert json.loads(result.stdout) == {"version": __version__}
    assert runner.invoke(app, ["version"]).stdout == f"pinchpoint {__version__}\n"


def test_config_show_json_alias(tmp_path: Path) -> None:
    config = tmp_path / "pinchpoint.toml"
    config.write_text("[service]\nport = 9555\n")
    outputs = [
        runner.invoke(app, ["config", "show", "--config", str(config), *flags])
        for flags in (["--json"], ["--format", "json"])
    ]
    assert outputs[0].exit_code == 0, outputs[0].output
    assert outputs[0].stdout == outputs[1].stdout
    assert json.loads(outputs[0].stdout)["service"]["port"]["value"] == 9555


def markdown_tables(text: str) -> dict[str, list[str]]:
    """The Markdown tables of `text` by their bold title: header row, then the rows."""
    tables: dict[str, list[str]] = {}
    title = ""
    for line in text.splitlines():
        if line.startswith("**") and line.endswith("**"):
            title = line.strip("*")
        elif line.startswith("| ") and title:
            tables.setdefault(title, []).append(line)
    return tables


def test_inventory_markdown_has_the_tables_and_the_tree(procfs_snapshot: Path) -> None:
    result = runner.invoke(app, ["inventory", "-s", str(procfs_snapshot), "-f", "markdown"])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.stdout
    tables = markdown_tables(result.stdout)
    enclosures = tables["Enclosures"]
    assert enclosures[0].startswith("| enclosure | model |")
    assert "| 4U60_STOR_ENCL 0x5000ccab020094ff | HGST 4U60_STOR_ENCL |" in enclosures[1]
    assert "|---|" in result.stdout
    # the fabric's tree, drawn as text in a fenced block
    fence = result.stdout.split("```")[1]
    assert "HBA 0000:03:00.0" in fence and "chain of 1 enclosure" in fence


def test_stats_markdown(procfs_snapshot: Path) -> None:
    shown = runner.invoke(
        app, ["stats", "show", "-s", str(procfs_snapshot), "--by", "hba", "-f", "markdown"]
    )
    assert shown.exit_code == 0, shown.output
    rows = markdown_tables(shown.stdout)["by hba"]
    assert rows[0].startswith("| hba | topology | members |")
    assert rows[1].startswith("| 0000:03:00.0 HBA 9400-8i8e |")
    fio = FIXTURES / "imports" / "fio-3.33_json_randrw.json"
    imported = runner.invoke(app, ["stats", "import", str(fio), "--format", "markdown"])
    assert imported.exit_code == 0, imported.output
    rows = markdown_tables(imported.stdout)["fio-3.33_json_randrw.json: fio"]
    assert rows[0].startswith("| entity | kind | points |")
    assert "<br>mean / max |" in rows[0]  # a two-line heading in one cell
    assert rows[1].startswith("| randrw | job | 1 |")
    assert "randrw read: n=20,478" in imported.stdout
    series = FIXTURES / "diskstats" / "series"
    diff = runner.invoke(app, ["stats", "diff", str(series), "--format", "markdown"])
    assert diff.exit_code == 0, diff.output
    titles = list(markdown_tables(diff.stdout))
    assert titles and all(" samples/" in title for title in titles)
    assert "|---|---:|" in diff.stdout  # the figures right-aligned as in iostat


def test_config_show_markdown(tmp_path: Path) -> None:
    config = tmp_path / "pinchpoint.toml"
    config.write_text(f'[service]\nport = 9555\n[rules."{RULE}"]\nmax_enclosures = 3\n')
    result = runner.invoke(app, ["config", "show", "-c", str(config), "--format", "markdown"])
    assert result.exit_code == 0, result.output
    tables = markdown_tables(result.stdout)
    assert f"| port | 9555 | {config} |" in tables["service settings"]
    assert any(row.startswith(f"| {RULE} | yes |") for row in tables["rules changed by the file"])


def test_capture_json_counts_what_the_snapshot_holds(tmp_path: Path) -> None:
    out = tmp_path / "snap"
    result = runner.invoke(app, ["capture", str(out), "--json"])
    assert result.exit_code == 0, result.output
    written = json.loads(result.stdout)
    assert written["snapshot"] == str(out) and (out / "manifest.json").is_file()
    again = runner.invoke(app, ["inventory", "--snapshot", str(out), "--json"])
    inventory = Inventory.model_validate_json(again.stdout)
    assert written["sas_hbas"] == len(inventory.sas.hbas)
    assert written["enclosures"] == len(inventory.sas.enclosures)
    assert written["disk_paths"] == inventory.sas.path_count
    # what the capture could not read is in the snapshot's own account of it
    read_back = {p.reason for p in inventory.problems}
    assert {p["reason"] for p in written["not_collected"]} <= read_back
