"""Real central instances for the fleet tests and benchmarks: `pinchpoint serve --role central`
processes on loopback ports over one PostgreSQL database, and a TCP relay in front of the
database that can drop every connection and refuse new ones (what a database restart looks
like to a client) without touching the PostgreSQL server other tests share."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
from sqlalchemy.engine import make_url

ADMIN = "central-admin-token-for-tests-0123456789"
READ = "central-read-token-for-tests-0123456789"
QUIET_CONFIG = """
[service.schedule]
sweep = ""
smart = ""
daily_report = ""
prune = ""
stats_interval_s = 0
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Central:
    """One `pinchpoint serve --role central` process."""

    process: subprocess.Popen[bytes]
    url: str
    log: Path

    def client(self, timeout: float = 30) -> httpx.Client:
        return httpx.Client(
            base_url=self.url, headers={"Authorization": f"Bearer {READ}"}, timeout=timeout
        )

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=20)


def start_central(database_url: str, data_dir: Path, workers_log: Path | None = None) -> Central:
    """A central instance on a free loopback port over `database_url`, ready to answer."""
    data_dir.mkdir(parents=True, exist_ok=True)
    config = data_dir / "pinchpoint.toml"
    config.write_text(QUIET_CONFIG, encoding="utf-8")
    port = free_port()
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PINCHPOINT_")}
    environment.update(PINCHPOINT_ADMIN_TOKEN=ADMIN, PINCHPOINT_READ_TOKEN=READ)
    log = workers_log or data_dir / "serve.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [
                str(Path(sys.executable).with_name("pinchpoint")),
                "serve",
                "--role",
                "central",
                "--demo",
                "--no-first-sweep",
                "--port",
                str(port),
                "--data-dir",
                str(data_dir),
                "--database-url",
                database_url,
                "--config",
                str(config),
                "--log-level",
                "warning",
            ],
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=environment,
        )
    central = Central(process=process, url=f"http://127.0.0.1:{port}", log=log)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the central exited: {log.read_text(errors='replace')}")
        try:
            if httpx.get(f"{central.url}/healthz", timeout=2).status_code == 200:
                return central
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    central.stop()
    raise AssertionError(f"the central did not answer: {log.read_text(errors='replace')}")


class DatabaseRelay:
    """A TCP relay to the database: `down()` drops every relayed connection and refuses new
    ones until `up()`, as a restarting server does."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.listener.getsockname()[1]
        self.accepting = True
        self.refused = 0
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._closed = False
        threading.Thread(target=self._accept, daemon=True, name="relay").start()

    @classmethod
    def to(cls, database_url: str) -> tuple[DatabaseRelay, str]:
        """A relay to the server of `database_url`, and the URL that goes through it."""
        url = make_url(database_url)
        relay = cls(url.host or "127.0.0.1", url.port or 5432)
        through = url.set(host="127.0.0.1", port=relay.port)
        return relay, through.render_as_string(hide_password=False)

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if not self.accepting:
                self.refused += 1
                client.close()
                continue
            try:
                server = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            with self._lock:
                self._open.update((client, server))
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while chunk := source.recv(65536):
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                self._drop(end)

    def _drop(self, end: socket.socket) -> None:
        with self._lock:
            self._open.discard(end)
        with contextlib.suppress(OSError):
            end.shutdown(socket.SHUT_RDWR)
        end.close()

    def down(self) -> None:
        self.accepting = False
        with self._lock:
            ends = list(self._open)
        for end in ends:
            self._drop(end)

    def up(self) -> None:
        self.accepting = True

    def close(self) -> None:
        self._closed = True
        self.down()
        self.listener.close()
