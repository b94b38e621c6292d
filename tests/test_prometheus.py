"""The Grafana dashboard and the alert rules against a real Prometheus scraping a real service.

`pinchpoint serve --snapshot` on a simulated host with statistics (its sampler ticking every
second, so the disks' counters grow) and Debian's `prometheus` scraping it every second with
the shipped rules loaded. Then: `promtool check metrics` on a real scrape; `promtool check
rules` on the shipped rules and on every dashboard expression; every expression, with the
dashboard's variables set to all and to real values, returns series from Prometheus' query
API; every rule evaluates without error; the selectors of every alert find series and the
alerts this host deserves fire. Both processes run in process groups of their own, killed at
the end.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from fixture_paths import ROOT, SPECS

from pinchpoint.simulator import load_spec, write_snapshot
from tests.api.conftest import free_port

pytestmark = [
    pytest.mark.tools,
    pytest.mark.skipif(
        shutil.which("prometheus") is None or shutil.which("promtool") is None,
        reason="prometheus and promtool (Debian: prometheus; scripts/install-system-deps.sh)",
    ),
]

DASHBOARD = ROOT / "deploy" / "grafana" / "pinchpoint.json"
ALERTS = ROOT / "deploy" / "prometheus" / "pinchpoint-alerts.yml"
SPEC = SPECS / "prometheus_host.toml"
SAMPLING_CONFIG = """
[service]
raise_after = 1  # one sweep raises its findings (the schedule runs no other)

[service.schedule]
sweep = ""
smart = ""
daily_report = ""
prune = ""
stats_interval_s = 1
"""
RATE_WINDOW = "1m"  # what `$__rate_interval` stands for here (scrapes every second)
WAIT_S = 25.0  # for series to appear once both run
START_S = 120.0  # for each to start (a loaded 2-core machine takes this long)
TOOL_TIMEOUT_S = 30.0


@dataclass
class Running:
    """The service and the Prometheus scraping it."""

    service: str  # base URL
    prometheus: str
    target: str  # the instance label Prometheus gives the service
    scratch: Path


def _started(
    argv: list[str], log: Path, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """A process in a session (so a process group) of its own, its output in `log`."""
    with log.open("wb") as out:
        return subprocess.Popen(
            argv, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )


def _stopped(process: subprocess.Popen[bytes]) -> None:
    """Kill the process's group: SIGTERM, then SIGKILL after 10 s."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


def _wait_for(
    what: str, ready: Callable[[], object], process: subprocess.Popen[bytes], log: Path
) -> None:
    """Poll `ready()` until it is true; fail with the process's log if it died or took too long."""
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        assert process.poll() is None, f"{what} exited: {log.read_text(errors='replace')[-3000:]}"
        try:
            if ready():
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise AssertionError(
        f"{what} not ready in {START_S:g} s: {log.read_text(errors='replace')[-3000:]}"
    )


def _promtool(*args: str, stdin: bytes | None = None, cwd: Path | None = None) -> str:
    """promtool's output (bounded); a failure fails the test with it."""
    done = subprocess.run(
        ["promtool", *args],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        timeout=TOOL_TIMEOUT_S,
        check=False,
    )
    output = (done.stdout + done.stderr).decode(errors="replace")[:20_000]
    assert done.returncode == 0, f"promtool {' '.join(args)}: {output}"
    return output


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    scratch = tmp_path_factory.mktemp("prometheus")
    snapshot = scratch / "host"
    write_snapshot(load_spec(SPEC), snapshot)
    config = scratch / "pinchpoint.toml"
    config.write_text(SAMPLING_CONFIG, encoding="utf-8")
    service_port, prometheus_port = free_port(), free_port()
    target = f"127.0.0.1:{service_port}"
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PINCHPOINT_")}
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), *filter(None, [environment.get("PYTHONPATH")])]
    )
    service_log, prometheus_log = scratch / "service.log", scratch / "prometheus.log"
    service = _started(
        [
            sys.executable,
            "-m",
            "pinchpoint",
            "serve",
            "--snapshot",
            str(snapshot),
            "--host",
            "127.0.0.1",
            "--port",
            str(service_port),
            "--data-dir",
            str(scratch / "data"),
            "--config",
            str(config),
            "--open-reads",
            "--log-level",
            "warning",
        ],
        service_log,
        environment,
    )
    prometheus: subprocess.Popen[bytes] | None = None
    try:
        base = f"http://{target}"
        _wait_for(
            "pinchpoint serve",
            lambda: (
                b"pinchpoint_disk_reads_completed_total{"
                in httpx.get(f"{base}/metrics", timeout=5).content
            ),
            service,
            service_log,
        )
        shutil.copy(ALERTS, scratch / ALERTS.name)
        (scratch / "prometheus.yml").write_text(
            yaml.safe_dump(
                {
                    "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
                    "rule_files": [ALERTS.name],
                    "scrape_configs": [
                        {"job_name": "pinchpoint", "static_configs": [{"targets": [target]}]}
                    ],
                }
            ),
            encoding="utf-8",
        )
        _promtool("check", "config", "prometheus.yml", cwd=scratch)
        prometheus = _started(
            [
                "prometheus",
                f"--config.file={scratch / 'prometheus.yml'}",
                f"--storage.tsdb.path={scratch / 'tsdb'}",
                f"--web.listen-address=127.0.0.1:{prometheus_port}",
                "--log.level=warn",
            ],
            prometheus_log,
        )
        url = f"http://127.0.0.1:{prometheus_port}"
        # two scrapes at least, so that rate() has two points of every counter
        _wait_for(
            "prometheus",
            lambda: (
                httpx.get(f"{url}/-/ready", timeout=5).status_code == 200
                and _query(url, 'count_over_time(up{job="pinchpoint"}[1m]) >= 3')
            ),
            prometheus,
            prometheus_log,
        )
        yield Running(service=base, prometheus=url, target=target, scratch=scratch)
    finally:
        if prometheus is not None:
            _stopped(prometheus)
        _stopped(service)


def _query(prometheus: str, expr: str) -> list[dict[str, Any]]:
    """The series an instant query returns (an error in the query fails the test)."""
    answer = httpx.get(f"{prometheus}/api/v1/query", params={"query": expr}, timeout=10)
    body = answer.json()
    assert answer.status_code == 200 and body["status"] == "success", (expr, body)
    result: list[dict[str, Any]] = body["data"]["result"]
    return result


def _dashboard() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    return loaded


def _panel_expressions(dashboard: dict[str, Any]) -> list[tuple[str, str]]:
    """(panel title, expression) of every query of every panel, rows' panels included."""
    found = []
    for panel in dashboard["panels"]:
        for inner in [panel, *panel.get("panels", [])]:
            for target in inner.get("targets", []):
                found.append((inner["title"], target["expr"]))
    return found


def _substituted(expr: str, values: dict[str, str]) -> str:
    """`expr` with the dashboard's variables replaced (as Grafana would) and the rate window."""
    expr = expr.replace("$__rate_interval", RATE_WINDOW)
    for name, value in values.items():
        expr = expr.replace(f"${{{name}:regex}}", value).replace(f"${name}", value)
    assert "$" not in expr, f"a variable left in: {expr}"
    return expr


def _regex_value(value: str) -> str:
    """One value of a variable as Grafana puts it in a PromQL regex: regex-escaped, and each
    backslash doubled for the PromQL string."""
    return re.escape(value).replace("\\", "\\\\")


def _all_values(dashboard: dict[str, Any]) -> dict[str, str]:
    return {v["name"]: v["allValue"] for v in dashboard["templating"]["list"]}


def _wait_for_series(running: Running, expressions: list[tuple[str, str]]) -> dict[str, int]:
    """How many series each expression returns, polled until all return some (counters
    need a second scrape and a sampler tick between) or the wait is over."""
    deadline = time.monotonic() + WAIT_S
    while True:
        counts = {expr: len(_query(running.prometheus, expr)) for _, expr in expressions}
        if all(counts.values()) or time.monotonic() > deadline:
            return counts
        time.sleep(1)


def test_a_real_scrape_passes_promtool_check_metrics(running: Running) -> None:
    body = httpx.get(f"{running.service}/metrics", timeout=10).content
    assert b'host="' not in body  # Prometheus adds `instance`
    assert b"pinchpoint_disk_read_time_seconds_total{" in body
    assert _promtool("check", "metrics", stdin=body) == ""  # no problem, not even a warning


def test_the_dashboard_is_a_grafana_model_with_its_datasource_as_an_input() -> None:
    dashboard = _dashboard()
    assert [i["name"] for i in dashboard["__inputs"]] == ["DS_PROMETHEUS"]
    assert dashboard["__inputs"][0]["pluginId"] == "prometheus"
    grafana = next(r for r in dashboard["__requires"] if r["id"] == "grafana")
    assert int(grafana["version"].split(".")[0]) >= 10
    ids = [p["id"] for p in dashboard["panels"]]
    assert len(ids) == len(set(ids))
    for panel in dashboard["panels"]:
        if panel["type"] == "row":
            continue
        assert panel["datasource"] == {"type": "prometheus", "uid": "${DS_PROMETHEUS}"}
        assert all(t["datasource"]["uid"] == "${DS_PROMETHEUS}" for t in panel["targets"])
    assert [v["name"] for v in dashboard["templating"]["list"]] == ["instance", "hba", "enclosure"]
    for title, expr in _panel_expressions(dashboard):  # the host variable applies everywhere
        assert 'instance=~"$instance"' in expr, title
        if "pinchpoint_disk_info" in expr:  # and the HBA and enclosure ones to the hierarchy
            assert 'hba=~".*${hba:regex}.*"' in expr and 'enclosure=~"$enclosure"' in expr, title
    titles = " ".join(p["title"] for p in dashboard["panels"])
    for wanted in ("findings", "by HBA", "by HBA port", "by enclosure", "Device time", "line rate"):
        assert wanted in titles, wanted


def test_promtool_accepts_every_dashboard_expression(running: Running) -> None:
    """Each expression (variables set) as a recording rule: `promtool check rules` parses it."""
    dashboard = _dashboard()
    values = _all_values(dashboard)
    rules = [
        {"record": f"pinchpoint_dashboard:check_{i}", "expr": _substituted(expr, values)}
        for i, (_, expr) in enumerate(_panel_expressions(dashboard))
    ]
    checked = running.scratch / "dashboard-rules.yml"
    checked.write_text(yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}))
    output = _promtool("check", "rules", str(checked))
    assert f"SUCCESS: {len(rules)} rules found" in output


def test_every_dashboard_expression_returns_series(running: Running) -> None:
    dashboard = _dashboard()
    values = _all_values(dashboard)
    expressions = [(t, _substituted(e, values)) for t, e in _panel_expressions(dashboard)]
    counts = _wait_for_series(running, expressions)
    empty = [f"{title}: {expr}" for title, expr in expressions if counts[expr] == 0]
    assert not empty, "no series:\n" + "\n".join(empty)


def test_the_dashboard_variables_list_values_and_filter_with_them(running: Running) -> None:
    """Each variable's `label_values(selector, label)` finds values; with one real host, HBA
    and enclosure chosen, the hierarchy panels still show that HBA's and enclosure's series."""
    dashboard = _dashboard()
    values = _all_values(dashboard)
    chosen: dict[str, str] = {}
    raw: dict[str, str] = {}
    for variable in dashboard["templating"]["list"]:
        match = re.fullmatch(r"label_values\((.+), (\w+)\)", variable["query"]["query"])
        assert match, variable["query"]
        selector, label = _substituted(match[1], {**values, **chosen}), match[2]
        found = sorted({s["metric"].get(label, "") for s in _query(running.prometheus, selector)})
        found = [v for v in found if v]
        assert found, f"{variable['name']}: no {label} in {selector}"
        raw[variable["name"]] = found[0]
        chosen[variable["name"]] = _regex_value(found[0])
    assert raw["instance"] == running.target
    hierarchy = [
        (title, _substituted(expr, chosen))
        for title, expr in _panel_expressions(dashboard)
        if "pinchpoint_disk_info" in expr and "io_latency_seconds_bucket" not in expr
    ]
    assert len(hierarchy) >= 6
    counts = _wait_for_series(running, hierarchy)
    empty = [f"{title}: {expr}" for title, expr in hierarchy if counts[expr] == 0]
    assert not empty, f"no series with {chosen}:\n" + "\n".join(empty)
    by_enclosure = next(e for t, e in hierarchy if t == "Mean I/O latency by enclosure")
    series = _query(running.prometheus, by_enclosure)
    assert {s["metric"]["enclosure"] for s in series} == {raw["enclosure"]}
    assert all(float(s["value"][1]) > 0 for s in series)  # a mean latency, not 0/0


def _alert_rules() -> list[dict[str, Any]]:
    loaded = yaml.safe_load(ALERTS.read_text(encoding="utf-8"))
    return [rule for group in loaded["groups"] for rule in group["rules"]]


SELECTOR = re.compile(r"\b((?:pinchpoint_|instance_enclosure:|up\b)[\w:]*)(\{[^}]*\})?")


def test_every_rule_evaluates_and_every_selector_finds_series(running: Running) -> None:
    _promtool("check", "rules", str(ALERTS))
    deadline = time.monotonic() + WAIT_S
    while True:  # every rule evaluated at least once since the counters had two points
        groups = httpx.get(f"{running.prometheus}/api/v1/rules", timeout=10).json()["data"]
        loaded = [rule for group in groups["groups"] for rule in group["rules"]]
        recorded = [r["name"] for r in loaded if r["type"] == "recording"]
        evaluated = all(r["health"] != "unknown" for r in loaded)
        if evaluated and all(_query(running.prometheus, name) for name in recorded):
            break
        assert time.monotonic() < deadline, f"no series of {recorded}"
        time.sleep(1)
    assert len(loaded) == len(_alert_rules())
    unhealthy = [(r["name"], r.get("lastError")) for r in loaded if r["health"] != "ok"]
    assert not unhealthy
    selectors = {
        f"{name}{labels or ''}"
        for rule in _alert_rules()
        for name, labels in SELECTOR.findall(rule["expr"])
    }
    assert 'pinchpoint_disk_info{enclosure!=""}' in selectors
    empty = [s for s in sorted(selectors) if not _query(running.prometheus, s)]
    assert not empty, f"selectors of the alert rules with no series: {empty}"


def test_the_alerts_this_host_deserves_fire(running: Running) -> None:
    """JBOD-003 and JBOD-012 are reached through one HBA port of two (critical findings, and
    the topology rule); the chain of four and the SAN's queue depth raise warnings. Queried
    as they are written (the `for` of each rule aside)."""
    rules = {r["alert"]: r for r in _alert_rules() if "alert" in r}
    missing = {
        s["metric"]["enclosure"]
        for s in _query(running.prometheus, rules["PinchpointEnclosureMissingPaths"]["expr"])
    }
    assert missing == {"JBOD-003", "JBOD-012"}
    for name in ("PinchpointCriticalFindings", "PinchpointWarningFindings"):
        (fired,) = _query(running.prometheus, rules[name]["expr"])
        assert fired["metric"]["instance"] == running.target and float(fired["value"][1]) > 0
