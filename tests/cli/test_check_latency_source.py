"""`pinchpoint check` says where the latency its rules judged came from: recorded in the kernel
with `--record` on a live host (a loop device under fio here), averages only and why without it
(not asked, or the recorder cannot run), from a snapshot, or simulated for the demo."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fixture_paths import SPECS
from loop_devices import fio_in_background, loop_device, recording_unavailable
from typer.testing import CliRunner

from pinchpoint.checks.source.biolat import LOADER_ENV
from pinchpoint.cli import app
from pinchpoint.model.latency_source import AVERAGES_ONLY, NOT_ASKED
from pinchpoint.simulator import load_spec, write_snapshot
from pinchpoint.stats.latency_source import SNAPSHOT_HAS_NONE

runner = CliRunner()


def check(*args: str) -> dict[str, object]:
    """The latency part of `check ... --format json` (its exit code is that of the findings)."""
    result = runner.invoke(app, ["check", *args, "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    latency = json.loads(result.stdout)["latency"]
    assert isinstance(latency, dict)
    return latency


def test_the_demo_is_simulated() -> None:
    latency = check("--demo")
    assert latency["kind"] == "simulated"
    table = runner.invoke(app, ["check", "--demo"])
    assert "latency: simulated (the demo host): not measured" in table.output


def test_a_snapshot_without_a_recording_is_averages_only(tmp_path: Path) -> None:
    snapshot = tmp_path / "host"
    write_snapshot(load_spec(SPECS / "three_chains_of_two_loaded.toml"), snapshot)
    latency = check("--snapshot", str(snapshot))
    assert latency["kind"] == "imported"  # the simulator writes ZFS's own histograms
    assert latency["origins"] == ["commands/zpool/iostat-w.txt"]
    for histograms in (snapshot / "commands" / "zpool").glob("iostat-w*"):
        histograms.unlink()
    latency = check("--snapshot", str(snapshot))
    assert latency["kind"] == "diskstats"
    assert latency["summary"] == AVERAGES_ONLY + SNAPSHOT_HAS_NONE
    markdown = runner.invoke(app, ["check", "--snapshot", str(snapshot), "--format", "markdown"])
    assert f"Latency: {AVERAGES_ONLY}{SNAPSHOT_HAS_NONE}." in markdown.output


def test_a_live_check_without_record_says_it_was_not_asked() -> None:
    latency = check("--seconds", "0.2")
    assert latency["kind"] == "diskstats" and latency["reason"] == NOT_ASKED


def test_a_live_check_whose_recorder_cannot_run_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(LOADER_ENV, str(tmp_path / "missing"))
    latency = check("--seconds", "0.2", "--record")
    assert latency["kind"] == "diskstats"
    reason = str(latency["reason"])
    assert "make bpf" in reason or "needs root" in reason or "BTF" in reason


@pytest.fixture(scope="module")
def busy_loop(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if recording_unavailable() is not None:
        pytest.skip(recording_unavailable() or "")
    with (
        loop_device(tmp_path_factory.mktemp("loop")) as name,
        fio_in_background(name, rw="randread", iodepth=2, rate_iops=500, runtime_s=120),
    ):
        yield name


def test_a_live_check_with_record_says_recorded_in_the_kernel(busy_loop: str) -> None:
    latency = check("--seconds", "2", "--record")
    assert latency["kind"] == "ebpf", latency
    assert latency["origins"] == [] and latency["reason"] is None
    assert latency["seconds"] == pytest.approx(2.0, abs=0.5)
    assert str(latency["summary"]).startswith("per-I/O latency recorded in the kernel (eBPF), 2")
