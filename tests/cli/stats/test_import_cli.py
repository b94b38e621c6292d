"""`pinchpoint stats import`: summary, JSON and one-line errors with exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

from fixture_paths import IMPORTS
from typer.testing import CliRunner

from pinchpoint.cli import app
from pinchpoint.model.stats import ImportedStats

runner = CliRunner()


def test_summary_shows_entities_metrics_and_histograms() -> None:
    result = runner.invoke(
        app,
        [
            "stats",
            "import",
            str(IMPORTS / "synthetic__zpool_iostat_-wvHp_tank_mirror_2_blocks.txt"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "mirror-0" in result.output
    assert "total_wait/read: n=1,893" in result.output
    assert "p99.9" in result.output


def test_perfmon_summary_has_mean_and_max() -> None:
    path = IMPORTS / "synthetic__perfmon_relog_DBSRV01_LogicalDisk_H.csv"
    result = runner.invoke(
        app, ["stats", "import", str(path), "--kind", "perfmon"], env={"COLUMNS": "250"}
    )
    assert result.exit_code == 0, result.output
    assert "LogicalDisk(H:)" in result.output
    assert "386.2 / 951.2" in result.output  # read latency ms, mean / max
    assert "Available MBytes" in result.output  # the unused counter is said


def test_json_is_the_model() -> None:
    result = runner.invoke(
        app, ["stats", "import", str(IMPORTS / "fio-3.33_json_randrw.json"), "--json"]
    )
    assert result.exit_code == 0
    imported = ImportedStats.model_validate(json.loads(result.stdout))
    assert imported.entities[0].name == "randrw"


def test_errors_exit_2(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["stats", "import", str(tmp_path / "nope.csv")])
    assert missing.exit_code == 2
    assert "no such file" in missing.output
    (tmp_path / "x.txt").write_text("nothing known\n")
    unknown = runner.invoke(app, ["stats", "import", str(tmp_path / "x.txt")])
    assert unknown.exit_code == 2
    wrong = runner.invoke(
        app, ["stats", "import", str(tmp_path / "x.txt"), "--kind", "iostat-json"]
    )
    assert wrong.exit_code == 2
    assert "not valid JSON" in wrong.output


def test_deeply_nested_json_is_one_line_and_exit_2(tmp_path: Path) -> None:
    """A real fio capture with one value nested 100,000 deep: one line, not a RecursionError."""
    real = json.loads((IMPORTS / "fio-3.33_json_randrw.json").read_text(encoding="utf-8"))
    text = json.dumps(real).replace(
        '"jobs":', '"nested": ' + "[" * 100_000 + "]" * 100_000 + ', "jobs":', 1
    )
    path = tmp_path / "deep.json"
    path.write_text(text, encoding="utf-8")
    for kind in ([], ["--kind", "fio"], ["--kind", "iostat-json"]):
        result = runner.invoke(app, ["stats", "import", str(path), *kind])
        assert result.exit_code == 2, result.output
        assert "deep.json: the JSON nests deeper than 64 levels" in result.output
        assert "Traceback" not in result.output and "RecursionError" not in result.output
