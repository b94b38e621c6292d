"""A real `pinchpoint serve` for the API tests: uvicorn on a free loopback port, the demo host,
a store in a temporary data directory, known tokens, and the schedule off so that the tests say
when sweeps run."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from postgres_db import create_database, drop_database
from sqlalchemy import Engine

from pinchpoint.api.app import create_app
from pinchpoint.service.runtime import Service
from pinchpoint.service.settings import Role, Schedule, ServiceSettings, TargetKind

READ_TOKEN = "read-token-for-tests-0123456789"
ADMIN_TOKEN = "admin-token-for-tests-0123456789"
QUIET = Schedule(
    sweep="", smart="", daily_report="", prune="", compact_stats="", stats_interval_s=0
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Server:
    """A running service and clients for it."""

    service: Service
    url: str
    thread: threading.Thread
    server: uvicorn.Server

    def client(self, token: str | None = READ_TOKEN, **kwargs: Any) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60, **kwargs)

    def admin(self) -> httpx.Client:
        return self.client(ADMIN_TOKEN)

    def wait_for_report(self, timeout_s: float = 120) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.service.store.latest_report() is not None:
                return
            failed = [s for s in self.service.runner.recent() if s.error]
            if failed:
                raise AssertionError(f"the first sweep failed: {failed[0].error}")
            time.sleep(0.1)
        raise AssertionError("no report within the time limit")

    def fresh_metrics(
        self, client: httpx.Client, headers: dict[str, str] | None = None
    ) -> httpx.Response:
        """A scrape of what the service holds now: the first scrape after a change gets the
        previous render and starts the new one in the background, the next gets it."""
        client.get("/metrics", headers=headers)
        self.service._metrics_cache.settle(30)
        return client.get("/metrics", headers=headers)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(30)


def start_server(settings: ServiceSettings, first_sweep: bool = True) -> Server:
    service = Service(settings)
    app = create_app(service, first_sweep=first_sweep)
    config = uvicorn.Config(
        app, host=settings.listen, port=settings.port, log_level="warning", access_log=False
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise AssertionError("uvicorn did not start")
        time.sleep(0.02)
    return Server(service, f"http://{settings.listen}:{settings.port}", thread, server)


def demo_settings(data_dir: Path, **changes: Any) -> ServiceSettings:
    values: dict[str, Any] = {
        "port": free_port(),
        "data_dir": data_dir,
        "target": TargetKind.DEMO,
        "read_token": READ_TOKEN,
        "admin_token": ADMIN_TOKEN,
        "raise_after": 1,
        "resolve_after": 1,
        "schedule": QUIET,
    }
    values.update(changes)
    return ServiceSettings.model_validate(values)


@pytest.fixture(scope="session")
def demo_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One service on the demo host for the read-mostly tests, its first sweep done."""
    handle = start_server(demo_settings(tmp_path_factory.mktemp("serve-demo")))
    try:
        handle.wait_for_report()
        yield handle
    finally:
        handle.stop()


@pytest.fixture
def fresh_server(tmp_path: Path) -> Iterator[Server]:
    """A service of its own (the tests that change state or count sweeps)."""
    handle = start_server(demo_settings(tmp_path / "data"), first_sweep=False)
    try:
        yield handle
    finally:
        handle.stop()


@pytest.fixture
def central_server(tmp_path: Path, postgres_admin: Engine) -> Iterator[Server]:
    """A central service on a PostgreSQL database of its own, taking pushed reports."""
    url = create_database(postgres_admin)
    settings = demo_settings(
        tmp_path / "central", role=Role.CENTRAL, database_url=url, target=TargetKind.DEMO
    )
    handle = start_server(settings, first_sweep=False)
    try:
        yield handle
    finally:
        handle.stop()
        drop_database(postgres_admin, url)
