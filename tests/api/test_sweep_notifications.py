"""A sweep's new findings reach a webhook, without the sweep waiting for it."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.api.conftest import demo_settings, start_server


class Hook:
    """A loopback receiver that records the JSON bodies posted to it."""

    def __init__(self) -> None:
        self.bodies: list[Any] = []
        self.arrived = threading.Condition()
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with hook.arrived:
                    hook.bodies.append(body)
                    hook.arrived.notify_all()
                self.send_response(204)
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def wait(self, count: int, timeout_s: float = 60) -> list[Any]:
        with self.arrived:
            assert self.arrived.wait_for(lambda: len(self.bodies) >= count, timeout_s)
            return list(self.bodies)


@pytest.fixture
def hook() -> Iterator[Hook]:
    receiver = Hook()
    yield receiver
    receiver.server.shutdown()


def test_new_findings_of_a_sweep_are_posted_to_the_webhook(hook: Hook, tmp_path: Path) -> None:
    settings = demo_settings(
        tmp_path,
        webhooks=[{"url": hook.url, "format": "json", "min_severity": "critical"}],
        public_url="http://pinchpoint.example:9460",
    )
    server = start_server(settings, first_sweep=False)
    try:
        sweep = server.service.runner.request("test")
        done = server.service.runner.wait(sweep.id, 300)
        assert done is not None and done.report_id is not None
        body = hook.wait(1)[0]
    finally:
        server.stop()
    events = body["events"]
    assert {e["kind"] for e in events} == {"new"}
    assert all(e["severity"] == "critical" for e in events)  # the target's floor
    single = sorted(
        e["finding"]["entity"]["name"][-3:]
        for e in events
        if e["finding"]["rule"] == "sas.enclosure.single_path"
    )
    assert single == ["003", "012"]
    assert events[0]["report_url"] == f"http://pinchpoint.example:9460/v1/reports/{done.report_id}"
