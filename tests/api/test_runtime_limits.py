"""Limits of the running service through a real server: `/readyz` and `/metrics` show a sweep
stuck past its deadline (issue 14, item 6); heavy requests are paged and limited, answered 503
with Retry-After beyond the limit, while `/readyz` keeps answering (item 13)."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from stuck_host import OPERSTATE, LiveRoot, host_root, release

from pinchpoint.api.heavy import RUNNING, WAITING
from pinchpoint.api.routes import stats as stats_route
from pinchpoint.api.views.stats import DEFAULT_SERIES, MAX_SERIES
from tests.api.conftest import Server, demo_settings, start_server


def _metrics(text: str) -> dict[str, float]:
    """Samples without labels (a `host` one is no longer exported), by name."""
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
            after = _metrics(server.fresh_metrics(admin).text)
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


@pytest.fixture
def swept_server(tmp_path: Path) -> Iterator[Server]:
    """A demo service of its own (the flood must not slow the session's), its first sweep done
    and a few statistics ticks taken."""
    server = start_server(demo_settings(tmp_path / "data"))
    try:
        server.wait_for_report()
        for _ in range(3):
            server.service.sampler.tick()
        yield server
    finally:
        server.stop()


def test_the_groups_of_a_level_come_a_page_at_a_time(swept_server: Server) -> None:
    disks = len(swept_server.service.view(None).inventory.sas.disks)  # type: ignore[union-attr]
    assert 2 * DEFAULT_SERIES < disks <= MAX_SERIES  # the demo's 360 disks make three pages
    with swept_server.client() as client:
        first = client.get("/v1/stats", params={"by": "disk"}).json()
        rest = [
            client.get("/v1/stats", params={"by": "disk", "offset": offset}).json()
            for offset in (DEFAULT_SERIES, 2 * DEFAULT_SERIES)
        ]
        whole = client.get("/v1/stats", params={"by": "disk", "limit": MAX_SERIES}).json()
        too_many = client.get("/v1/stats", params={"by": "disk", "limit": MAX_SERIES + 1})
    assert {first["total"], whole["total"]} | {r["total"] for r in rest} == {disks}
    assert (first["offset"], first["limit"]) == (0, DEFAULT_SERIES)
    assert len(first["series"]) == len(rest[0]["series"]) == DEFAULT_SERIES
    assert len(rest[1]["series"]) == disks - 2 * DEFAULT_SERIES
    paged = [s["entity"] for page in (first, *rest) for s in page["series"]]
    assert paged == [s["entity"] for s in whole["series"]]
    assert too_many.status_code == 422


def test_a_flood_of_heavy_requests_is_limited_while_readyz_answers(
    swept_server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each heavy request is made to take 0.5 s. Of 26 at once, `RUNNING` run, `WAITING` wait
    their turn and are served, the others are refused at once with 503 and Retry-After; `/readyz`
    is asked all along and answers 200 every time, also while every heavy slot is taken: it
    never waits behind them (shown by the order of events, not by a clock)."""
    real = stats_route.series_views

    def slow(*args: Any, **kwargs: Any) -> Any:
        time.sleep(0.5)
        return real(*args, **kwargs)

    monkeypatch.setattr(stats_route, "series_views", slow)
    limit = swept_server.server.config.app.state.heavy  # the app the server runs
    flood = RUNNING + WAITING + 8
    answers: list[httpx.Response] = []
    probes: list[tuple[bool, int]] = []  # (every heavy slot busy as it answered, status)
    done = threading.Event()

    def heavy() -> None:
        with swept_server.client() as client:
            answers.append(client.get("/v1/stats", params={"by": "disk"}))

    def probe() -> None:
        with swept_server.client(token=None) as anonymous:
            while not done.is_set():
                status = anonymous.get("/readyz").status_code
                probes.append((limit.running == limit.running_max, status))
                time.sleep(0.05)

    prober = threading.Thread(target=probe)
    prober.start()
    senders = [threading.Thread(target=heavy) for _ in range(flood)]
    try:
        for sender in senders:
            sender.start()
        for sender in senders:
            sender.join(120)
    finally:
        done.set()
        prober.join(30)
    statuses = Counter(a.status_code for a in answers)
    assert statuses == {200: RUNNING + WAITING, 503: flood - RUNNING - WAITING}, statuses
    refused = next(a for a in answers if a.status_code == 503)
    assert refused.headers["retry-after"] == "2"
    assert refused.headers["content-type"].startswith("application/problem+json")
    assert "heavy requests are running" in refused.json()["detail"]
    assert probes and all(status == 200 for _, status in probes)
    assert any(busy for busy, _ in probes), "no /readyz answer came while the slots were busy"
