"""`pinchpoint serve` as an operator starts it: the real command in a process of its own."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.api.conftest import free_port

QUIET_CONFIG = """
[service.schedule]
sweep = ""
smart = ""
daily_report = ""
prune = ""
stats_interval_s = 0
"""


def _pinchpoint() -> str:
    return str(Path(sys.executable).with_name("pinchpoint"))


def test_serve_starts_on_the_demo_writes_tokens_and_stops_on_sigterm(tmp_path: Path) -> None:
    port = free_port()
    config = tmp_path / "pinchpoint.toml"
    config.write_text(QUIET_CONFIG, encoding="utf-8")
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PINCHPOINT_")}
    process = subprocess.Popen(
        [
            _pinchpoint(),
            "serve",
            "--demo",
            "--port",
            str(port),
            "--data-dir",
            str(tmp_path / "data"),
            "--config",
            str(config),
            "--open-reads",
            "--log-level",
            "warning",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        report = None
        while time.monotonic() < deadline and report is None:
            assert process.poll() is None, process.communicate()
            try:
                answer = httpx.get(f"{url}/v1/reports/latest", timeout=5)
            except httpx.TransportError:
                time.sleep(0.2)
                continue
            if answer.status_code == 200:
                report = answer.json()
            time.sleep(0.2)
        assert report is not None, "no report from the first sweep"
        assert report["host"]["source"] == "demo"
        admin_token = (tmp_path / "data" / "admin.token").read_text().strip()
        assert (tmp_path / "data" / "admin.token").stat().st_mode & 0o777 == 0o600
        denied = httpx.post(f"{url}/v1/checks", timeout=5)
        started = httpx.post(
            f"{url}/v1/checks", headers={"Authorization": f"Bearer {admin_token}"}, timeout=5
        )
        assert denied.status_code == 401 and started.status_code == 202
    finally:
        process.send_signal(signal.SIGTERM)
        _out, err = process.communicate(timeout=60)
    # uvicorn shuts down gracefully, then re-raises the signal it caught (exit by SIGTERM)
    assert process.returncode in (0, -signal.SIGTERM), err
    assert "Traceback" not in err
    assert "a new token was written to" in " ".join(err.split())
    assert admin_token not in err  # tokens are never printed


@pytest.mark.parametrize(
    ("config_text", "said"),
    [
        ('[service]\nport = "many"\nadmin_token = "x"\n', ["keep tokens out of the config file"]),
        ('[service.schedule]\nsweep = "every five minutes"\n', ["schedule.sweep", "cron"]),
    ],
    ids=["token-in-file", "bad-schedule"],
)
def test_serve_refuses_a_bad_config_with_a_clear_message(
    tmp_path: Path, config_text: str, said: list[str]
) -> None:
    config = tmp_path / "pinchpoint.toml"
    config.write_text(config_text, encoding="utf-8")
    done = subprocess.run(
        [_pinchpoint(), "serve", "--demo", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert all(words in done.stderr for words in said), done.stderr


def test_a_second_serve_on_a_taken_port_stops_before_touching_the_store(tmp_path: Path) -> None:
    """Two `serve` on one port and one data directory: the second says so in one line, exits 2,
    and the store still holds the first one's single report (the second never swept)."""
    port = free_port()
    config = tmp_path / "pinchpoint.toml"
    config.write_text(QUIET_CONFIG, encoding="utf-8")
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PINCHPOINT_")}
    environment["COLUMNS"] = "300"  # one line is one line, whatever the terminal
    command = [
        _pinchpoint(),
        "serve",
        "--demo",
        "--port",
        str(port),
        "--data-dir",
        str(tmp_path / "data"),
        "--config",
        str(config),
        "--open-reads",
        "--log-level",
        "warning",
    ]
    first = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        reports = None
        while reports is None or reports["total"] < 1:
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < deadline, "no report from the first serve"
            with contextlib.suppress(httpx.TransportError):
                reports = httpx.get(f"{url}/v1/reports", timeout=5).json()
            time.sleep(0.2)
        second = subprocess.run(
            command, capture_output=True, text=True, env=environment, timeout=120, check=False
        )
        assert second.returncode == 2, second.stderr
        (line,) = second.stderr.strip().splitlines()
        assert line.startswith(
            f"pinchpoint: error: cannot listen on 127.0.0.1:{port}: Address already in use"
        )
        assert line.endswith("choose another --port")
        time.sleep(1.0)  # a sweep the second one had started would have been stored by now
        assert httpx.get(f"{url}/v1/reports", timeout=5).json()["total"] == 1
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=60)


def test_serve_with_json_logs_writes_only_json_lines_with_the_access_log(tmp_path: Path) -> None:
    """`--log-format json --access-log`: every line on stderr is one JSON object (the start-up
    lines too), each request is one of them, and the sampler's job lines every second stay at
    DEBUG."""
    port = free_port()
    config = tmp_path / "pinchpoint.toml"
    config.write_text(QUIET_CONFIG.replace("stats_interval_s = 0", "stats_interval_s = 1"))
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PINCHPOINT_")}
    command = [_pinchpoint(), "serve", "--demo", "--port", str(port)]
    command += ["--data-dir", str(tmp_path / "data"), "--config", str(config), "--open-reads"]
    command += ["--log-format", "json", "--access-log"]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            assert process.poll() is None, process.communicate()
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"{url}/v1/reports/latest", timeout=5).status_code == 200:
                    break
            time.sleep(0.3)
        time.sleep(2.5)  # the sampler runs its job a few times
        assert httpx.get(f"{url}/healthz", timeout=5).status_code == 200
    finally:
        process.send_signal(signal.SIGTERM)
        _out, err = process.communicate(timeout=60)
    entries = [json.loads(line) for line in err.splitlines()]  # every line parses
    messages = [e["message"] for e in entries]
    assert any(m.startswith("pinchpoint serving demo") for m in messages), messages
    assert any(m.startswith("a new token was written to") for m in messages)
    requests = [e for e in entries if e["logger"] == "uvicorn.access"]
    assert {"method": "GET", "path": "/healthz", "status": 200}.items() <= requests[-1].items()
    routine = ("Running job", "executed successfully", "Added job")
    assert not [m for m in messages if m.startswith(routine) or "executed successfully" in m]


def test_serve_refuses_an_unknown_log_format(tmp_path: Path) -> None:
    done = subprocess.run(
        [_pinchpoint(), "serve", "--demo", "--log-format", "xml"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "--log-format xml: unknown — use text or json" in done.stderr
