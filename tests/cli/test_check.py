"""`pinchpoint check`, `rules` and `explain` as a user runs them: formats, exit codes,
`--fail-on`, `--config`, `--output`, and clear errors.

Findings come from the example rule `sas.chain.too_deep`, tightened through `--config`, on the
simulated balanced host (6 JBODs in 3 chains of 2, each cabled from both ends: 6 chains as the
inventory counts them): the CLI is tested, not the other rules.
"""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest
import typer
from fixture_paths import SPECS
from typer.testing import CliRunner

from pinchpoint.cli import check as check_commands
from pinchpoint.cli import rules as rules_commands
from pinchpoint.cli.rules import close_matches
from pinchpoint.model.findings import Report
from pinchpoint.rules.catalog import CATALOG
from pinchpoint.simulator import load_spec, write_snapshot

RULE = "sas.chain.too_deep"
runner = CliRunner()


def cli() -> typer.Typer:
    app = typer.Typer()
    check_commands.register(app)
    rules_commands.register(app)
    return app


@pytest.fixture(scope="module")
def balanced(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("balanced") / "snapshot"
    write_snapshot(load_spec(SPECS / "three_chains_of_two.toml"), target)
    return target


def config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "pinchpoint.toml"
    path.write_text(text, encoding="utf-8")
    return path


TIGHT = f'[rules."{RULE}"]\nmax_enclosures = 1\n'  # every chain is now too deep: 6 warnings


def check(*args: str, stdout: bool = False) -> tuple[int, str]:
    """The exit code, and the output (stdout alone with `stdout`, to parse it)."""
    result = runner.invoke(cli(), ["check", *args])
    return result.exit_code, result.stdout if stdout else result.output


def test_a_host_with_nothing_to_report_exits_0(balanced: Path, tmp_path: Path) -> None:
    code, out = check("--snapshot", str(balanced), "--config", str(tmp_path / "none.toml"))
    assert code == 2 and "no such config file" in out  # a named config must exist
    monkey_free = config(tmp_path, "")
    code, out = check("--snapshot", str(balanced), "--config", str(monkey_free))
    assert code == 0, out
    assert "balanced-storage-head" in out
    assert "rules skipped" in out and "no diskstats samples" in out


def test_json_is_the_report_model_with_the_documented_keys(balanced: Path, tmp_path: Path) -> None:
    tight = config(tmp_path, TIGHT)
    code, out = check("-s", str(balanced), "-c", str(tight), "--format", "json", stdout=True)
    assert code == 0, out  # warnings only, and --fail-on defaults to critical
    document = json.loads(out)
    assert {"host", "generated_at", "findings", "skipped", "collection"} <= set(document)
    report = Report.model_validate(document)
    assert len(report.findings) == 6
    finding = document["findings"][0]
    assert {"id", "rule", "severity", "title", "entity", "evidence", "remediation", "muted"} <= set(
        finding
    )
    assert set(finding["entity"]) == {"kind", "id", "name"}
    assert finding["rule"] == RULE and finding["severity"] == "warning"
    assert finding["muted"] is None
    assert finding["evidence"][0]["facts"][0] == {
        "name": "enclosures in the chain",
        "value": 2,
        "unit": None,
        "entity": None,
    }


def test_fail_on_warning_makes_warnings_exit_1(balanced: Path, tmp_path: Path) -> None:
    tight = config(tmp_path, TIGHT)
    code, out = check("-s", str(balanced), "-c", str(tight), "--fail-on", "warning")
    assert code == 1
    assert "WARNING (6)" in out and "fix:" in out and "enclosures in the chain: 2" in out


def test_a_critical_finding_exits_1(balanced: Path, tmp_path: Path) -> None:
    critical = config(tmp_path, TIGHT + 'severity = "critical"\n')
    code, out = check("-s", str(balanced), "-c", str(critical))
    assert code == 1 and "CRITICAL (6)" in out


def test_muted_findings_are_shown_as_muted_and_do_not_fail(balanced: Path, tmp_path: Path) -> None:
    tight = config(tmp_path, TIGHT + 'severity = "critical"\n')
    code, out = check("-s", str(balanced), "-c", str(tight), "-f", "json", stdout=True)
    ids = [f["entity"]["id"] for f in json.loads(out)["findings"]]
    mutes = "".join(
        f'[[mute]]\nrule = "{RULE}"\nentity = "{i}"\nreason = "recabling booked"\n' for i in ids
    )
    muted = config(tmp_path, TIGHT + 'severity = "critical"\n' + mutes)
    code, out = check("-s", str(balanced), "-c", str(muted))
    assert code == 0, out
    assert "MUTED (6)" in out and "muted: recabling booked" in out
    code, out = check("-s", str(balanced), "-c", str(muted), "-f", "json", stdout=True)
    assert all(f["muted"]["reason"] == "recabling booked" for f in json.loads(out)["findings"])


def test_markdown_is_for_tickets(balanced: Path, tmp_path: Path) -> None:
    tight = config(tmp_path, TIGHT)
    code, out = check("-s", str(balanced), "-c", str(tight), "-f", "markdown", stdout=True)
    assert code == 0
    assert out.startswith("## pinchpoint check: balanced-storage-head")
    assert "### WARNING: " in out and "**Fix:**" in out
    assert "| `sas.phy.errors` |" in out  # skipped rules, with their reason


def test_html_is_one_self_contained_page_to_a_file(balanced: Path, tmp_path: Path) -> None:
    tight = config(tmp_path, TIGHT)
    page = tmp_path / "report.html"
    code, out = check("-s", str(balanced), "-c", str(tight), "-f", "html", "-o", str(page))
    assert code == 0 and f"report written to {page}" in out.replace("\n", "")
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    assert "http://" not in html and "https://" not in html  # nothing fetched
    assert '<span class="badge warning">WARNING</span>' in html  # colour and word
    assert "Worst finding: WARNING" in html
    assert "→" in html and "&lt;" not in html.split("<body>")[0]


def test_html_escapes_what_it_shows(balanced: Path, tmp_path: Path) -> None:
    mute = f'[[mute]]\nrule = "{RULE}"\nentity = "x"\nreason = "<script>alert(1)</script>"\n'
    code, out = check(
        "-s", str(balanced), "-c", str(config(tmp_path, mute)), "-f", "html", stdout=True
    )
    assert code == 0 and "<script>" not in out


def test_the_table_goes_to_a_file_without_colours(balanced: Path, tmp_path: Path) -> None:
    target = tmp_path / "report.txt"
    code, _ = check("-s", str(balanced), "-c", str(config(tmp_path, TIGHT)), "-o", str(target))
    assert code == 0
    text = target.read_text(encoding="utf-8")
    assert "WARNING (6)" in text and "\x1b[" not in text


def test_a_real_capture_reports_what_was_not_collected(procfs_snapshot: Path) -> None:
    result = runner.invoke(cli(), ["check", "-s", str(procfs_snapshot), "-f", "json"])
    assert result.exit_code in (0, 1), result.output
    report = Report.model_validate_json(result.stdout)
    assert report.collection  # the capture lacks tools' outputs: said, not hidden
    assert all(not s.reason.startswith("rule failed") for s in report.skipped), report.skipped


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--snapshot", "nowhere", "--demo"], "exclude each other"),
        (["--snapshot", "/nonexistent/snapshot"], "no snapshot at"),
        (["--seconds", "0"], "--seconds must be above 0"),
        (["--format", "pdf"], "pdf"),
        (["--fail-on", "info"], "info"),
    ],
)
def test_usage_errors_exit_2(args: list[str], message: str) -> None:
    code, out = check(*args)
    assert code == 2 and message in out


def test_a_bad_config_exits_2_with_the_message(balanced: Path, tmp_path: Path) -> None:
    bad = config(tmp_path, '[rules."sas.chain.too_depp"]\nenabled = false\n')
    code, out = check("-s", str(balanced), "-c", str(bad))
    assert code == 2
    assert "unknown rule 'sas.chain.too_depp'" in out.replace("\n", "")


def test_rules_lists_the_catalog() -> None:
    result = runner.invoke(cli(), ["rules"])
    assert result.exit_code == 0
    for rule in CATALOG:
        assert rule.id in result.output
    assert f"{len(CATALOG)} rules" in result.output


def test_rules_markdown_is_the_catalog_document() -> None:
    result = runner.invoke(cli(), ["rules", "--markdown"])
    assert result.exit_code == 0
    assert result.output.startswith("# Rules")
    assert f"## `{RULE}`" in result.output


def test_explain_prints_a_rule_with_its_thresholds_in_force(tmp_path: Path) -> None:
    result = runner.invoke(cli(), ["explain", RULE, "--config", str(config(tmp_path, TIGHT))])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "More enclosures in a chain than the maximum" in out
    assert "max_enclosures" in out and "4 enclosures" in out and "1 enclosures" in out
    assert "Fix:" in out and "field case 1" in out


def test_explain_of_an_unknown_rule_exits_2_with_close_matches() -> None:
    result = runner.invoke(cli(), ["explain", "sas.chain.to_deep"])
    assert result.exit_code == 2
    assert "did you mean sas.chain.too_deep" in result.output.replace("\n", "")


def test_close_matches_offer_the_same_family_when_nothing_is_similar() -> None:
    known = ["sas.chain.too_deep", "sas.enclosure.single_path", "net.link.downgraded"]
    assert close_matches("sas.zzz", known) == ["sas.chain.too_deep", "sas.enclosure.single_path"]
    assert close_matches("qqq", known) == []


def test_previous_compares_two_sweeps_of_a_host(tmp_path: Path) -> None:
    """`--previous`: phy error counters rising between two snapshots are a finding."""
    sweeps = []
    for name in ("phy_errors_sweep1", "phy_errors_sweep2"):
        write_snapshot(load_spec(SPECS / f"{name}.toml"), tmp_path / name)
        sweeps.append(str(tmp_path / name))
    code, out = check("--snapshot", sweeps[1], "--format", "json", stdout=True)
    alone = Report.model_validate_json(out)
    assert "sas.phy.errors" not in {f.rule for f in alone.findings}
    code, out = check(
        "--snapshot", sweeps[1], "--previous", sweeps[0], "--format", "json", stdout=True
    )
    compared = Report.model_validate_json(out)
    rising = [f for f in compared.findings if f.rule == "sas.phy.errors"]
    assert [f.entity.name for f in rising] == ["0000:03:00.0 SAS9300-8e connector 0 phy 1"]
    code, out = check("--snapshot", sweeps[1], "--previous", str(tmp_path / "nowhere"))
    assert code == 2 and "--previous" in out and "nowhere" in out


def test_the_collector_is_paused_through_the_whole_command_and_resumed(
    balanced: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From the rules' import to the report written (`check_command`), then running again."""
    seen: list[bool] = []
    write = check_commands._write
    monkeypatch.setattr(
        check_commands, "_write", lambda *args: (seen.append(gc.isenabled()), write(*args))
    )
    assert gc.isenabled()
    code, out = check("--snapshot", str(balanced), "--config", str(config(tmp_path, "")))
    assert code == 0 and seen == [False], out
    assert gc.isenabled()
    code, out = check("--snapshot", str(balanced), "--config", str(tmp_path / "none.toml"))
    assert code == 2 and "no such config file" in out
    assert gc.isenabled()  # an error on the way resumes it too
