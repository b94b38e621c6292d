"""The probes through a real server: `/readyz` and `/metrics` show a sweep stuck past its deadline
(issue 14, item 6), and `/readyz` answers while heavy routes are flooded (item 13)."""

from __future__ import annotations

import time
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families
from stuck_host import OPERSTATE, LiveRoot, host_root, release

from tests.api.conftest import demo_settings, start_server


def _metrics(text: str) -> dict[str, float]:
    """Samples without labels but `host`, by name."""
    return {
        sample.name: sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if set(sample.labels) <= {"host"}
    }


def test_readyz_and_metrics_show_a_sweep_stuck_past_its_deadline(tmp_path: Path) -> None:
    server = start_server(demo_settings(tmp_path / "data", sweep_deadline_s=3.0), first_sweep=False)
    root = host_root(tmp_path / "host", fifo=OPERSTATE)
    try:
        server.service.runner.target = LiveRoot(root, hung=OPERSTATE)  # type: ignore[assignment]
        with server.admin() as admin:
            sweep_id = admin.post("/v1/checks").json()["id"]
            time.sleep(1.0)
            running = _metrics(admin.get("/metrics").text)
            assert running["pinchpoint_sweep_running_seconds"] > 0
            assert admin.get("/readyz").json()["sweep_running"] is True
            deadline = time.monotonic() + 30
            while admin.get(f"/v1/checks/{sweep_id}").json()["state"] != "failed":
                assert time.monotonic() < deadline, "the sweep was not abandoned at its deadline"
                time.sleep(0.1)
            sweep = admin.get(f"/v1/checks/{sweep_id}").json()
            ready = admin.get("/readyz")
            after = _metrics(admin.get("/metrics").text)
        assert sweep["missed_deadline"] is True
        assert sweep["error"].startswith("missed its deadline of 3 s, stuck at: reading NICs")
        assert ready.status_code == 503
        body = ready.json()
        assert body["sweep_overdue_since"] is not None
        assert body["reasons"][0].startswith("sweep overdue since ")
        assert body["reasons"][0].endswith("(stuck at: reading NICs and bonds)")
        assert body["last_sweep_error"] == sweep["error"]
        assert after["pinchpoint_sweep_deadline_misses_total"] == 1
        assert after["pinchpoint_sweep_errors_total"] == 1
        assert after["pinchpoint_sweeps_stuck"] == 1
        assert "pinchpoint_sweep_running_seconds" not in after
    finally:
        release(root / OPERSTATE.lstrip("/"))
        server.stop()
