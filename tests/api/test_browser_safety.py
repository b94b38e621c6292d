"""A browser cannot be turned against the service: Host headers it does not answer to get 400
(DNS rebinding), no URL in a page comes from a request header, and every answer carries the
headers that forbid sniffing, framing and inline script."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.api.conftest import Server, demo_settings, start_server

SECURITY_HEADERS = {"x-content-type-options": "nosniff", "x-frame-options": "DENY"}


@pytest.fixture
def open_reads_server(tmp_path: Path) -> Iterator[Server]:
    """Reads without a token on loopback: what a rebinding page would aim at."""
    handle = start_server(demo_settings(tmp_path / "data", open_reads_on_loopback=True), False)
    try:
        yield handle
    finally:
        handle.stop()


@pytest.fixture
def any_host_server(tmp_path: Path) -> Iterator[Server]:
    """Every Host allowed, so that a forged one reaches the page."""
    handle = start_server(demo_settings(tmp_path / "data", allowed_hosts=["*"]), False)
    try:
        yield handle
    finally:
        handle.stop()


def test_a_rebound_name_cannot_read_the_open_api(open_reads_server: Server) -> None:
    port = open_reads_server.url.rsplit(":", 1)[1]
    with httpx.Client(base_url=open_reads_server.url, timeout=30) as anonymous:
        rebound = {
            path: anonymous.get(path, headers={"host": f"attacker.example:{port}"})
            for path in ("/v1/rules", "/v1/hosts", "/", "/static/js/app.js", "/healthz")
        }
        missing = anonymous.get("/v1/rules", headers={"host": ""})
        local = {
            host: anonymous.get("/v1/rules", headers={"host": host})
            for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", "LOCALHOST.")
        }
        probes = [anonymous.get(p, headers={"host": f"localhost:{port}"}) for p in ("/healthz",)]
    for path, answer in rebound.items():
        assert answer.status_code == 400, (path, answer.text)
        assert answer.headers["content-type"] == "application/problem+json"
        assert answer.json()["detail"].startswith("Host header 'attacker.example:")
        assert "allowed_hosts" in answer.json()["detail"]
    assert missing.status_code == 400
    assert all(a.status_code == 200 for a in local.values()), {h: a.text for h, a in local.items()}
    assert all(p.status_code == 200 for p in probes)


def test_configured_names_and_patterns_are_answered(tmp_path: Path) -> None:
    settings = demo_settings(
        tmp_path / "data", allowed_hosts=["pinchpoint.example.com", "*.storage.example.org"]
    )
    server = start_server(settings, first_sweep=False)
    try:
        with server.client() as client:
            answers = {
                host: client.get("/v1/rules", headers={"host": host}).status_code
                for host in (
                    "pinchpoint.example.com",
                    "PinchPoint.Example.com:443",
                    "rack1.storage.example.org",
                    "storage.example.org",
                    "evil-pinchpoint.example.com",
                    "pinchpoint.example.com.evil.net",
                    "localhost",
                )
            }
    finally:
        server.stop()
    assert answers == {
        "pinchpoint.example.com": 200,
        "PinchPoint.Example.com:443": 200,
        "rack1.storage.example.org": 200,
        "storage.example.org": 400,
        "evil-pinchpoint.example.com": 400,
        "pinchpoint.example.com.evil.net": 400,
        "localhost": 200,  # loopback names always: local probes
    }


@pytest.mark.parametrize(
    ("path", "script"),
    [
        ("/topology", "/static/js/app.js?v="),
        ("/docs", "/static/vendor/swagger-ui/swagger-ui-bundle.js?v="),
        ("/redoc", "/static/vendor/redoc/redoc.standalone.js?v="),
    ],
)
def test_no_url_in_the_page_comes_from_the_host_header_or_the_internet(
    any_host_server: Server, path: str, script: str
) -> None:
    with any_host_server.client() as client:
        page = client.get(path, headers={"host": "evil.example"})
        assert page.status_code == 200
        assert "evil.example" not in page.text
        sources = re.findall(r'(?:src|href|data-openapi)="([^"]+)"', page.text)
        assert script in " ".join(sources)
        assert all(s.startswith(("/", "#")) for s in sources), sources
        for source in sources:
            if source.startswith("/static/"):
                assert client.get(source).status_code == 200, source


@pytest.mark.parametrize("path", ["/", "/docs", "/redoc"])
def test_the_page_has_no_inline_script_and_a_policy_that_forbids_it(
    any_host_server: Server, path: str
) -> None:
    with any_host_server.client() as client:
        page = client.get(path)
    policy = dict(
        part.strip().split(" ", 1) for part in page.headers["content-security-policy"].split(";")
    )
    assert policy["script-src"] == "'self'"
    assert policy["frame-ancestors"] == "'none'" and policy["object-src"] == "'none'"
    assert "unsafe-inline" not in policy["default-src"]
    if path == "/":
        assert "unsafe-inline" not in policy["style-src"]
    scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", page.text, re.DOTALL)
    assert scripts and all(
        "src=" in attributes and not body.strip() for attributes, body in scripts
    )
    assert not re.search(r"\son[a-z]+\s*=", page.text), "an inline event handler"
    assert "javascript:" not in page.text
    for name, value in SECURITY_HEADERS.items():
        assert page.headers[name] == value


@pytest.mark.parametrize(
    "path",
    ["/v1/rules", "/v1/reports/999999", "/static/js/app.js", "/metrics", "/healthz", "/nowhere"],
)
def test_every_answer_carries_the_security_headers(any_host_server: Server, path: str) -> None:
    with any_host_server.client() as client:
        answer = client.get(path)
    for name, value in SECURITY_HEADERS.items():
        assert answer.headers[name] == value, (path, dict(answer.headers))
    assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
    if not path.startswith("/static"):
        assert answer.headers["content-security-policy"].startswith("default-src 'none'")
