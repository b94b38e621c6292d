"""Webhook notifications against a real HTTP server on loopback that records every request and
answers what each test scripts: 2xx, 4xx, 5xx, 429 with Retry-After, or no answer at all."""

from __future__ import annotations

import json
import logging
import socket
import threading
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from pinchpoint.model.findings import (
    EntityKind,
    EntityRef,
    Evidence,
    Fact,
    Finding,
    Mute,
    Severity,
)
from pinchpoint.service.events import FindingTransition, TransitionKind
from pinchpoint.service.notify import (
    Notifier,
    WebhookFormat,
    WebhookTarget,
    alert_name,
    retry_after_s,
    target_label,
)

AT = datetime(2026, 11, 22, 3, 55, tzinfo=UTC)
SECRET = "s3cret-token-value"
PATH_SECRET = "T0KEN-IN-PATH"
WAIT_S = 10.0  # how long a test waits for something that should happen at once


# --- the receiving end -----------------------------------------------------------------


@dataclass
class Answer:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    hang: bool = False  # answer only once the test releases the server
    path: str | None = None  # for requests to this path only


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: Any


class Receiver:
    """A loopback HTTP server that records POSTs and answers from a script (then 200)."""

    def __init__(self) -> None:
        self.requests: list[Received] = []
        self.script: deque[Answer] = deque()
        self.otherwise = Answer()
        self.hanging = threading.Event()  # a request arrived and is being held
        self.release = threading.Event()
        self._changed = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length))
                with receiver._changed:
                    answer = receiver.next_answer(self.path)
                if answer.hang:
                    receiver.hanging.set()
                    receiver.release.wait(WAIT_S)
                with receiver._changed:
                    receiver.requests.append(Received(self.path, dict(self.headers), body))
                    receiver._changed.notify_all()
                try:
                    self.send_response(answer.status)
                    for name, value in answer.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                except OSError:
                    pass  # the client gave up waiting: that is the point of a hang

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    def next_answer(self, path: str) -> Answer:
        """The first scripted answer meant for `path` (taken off the script), else the usual."""
        for answer in self.script:
            if answer.path in (None, path):
                self.script.remove(answer)
                return answer
        return self.otherwise

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def wait_for(self, count: int) -> list[Received]:
        """The requests once `count` have arrived (fails the test after WAIT_S)."""
        with self._changed:
            assert self._changed.wait_for(lambda: len(self.requests) >= count, WAIT_S), (
                f"{len(self.requests)} requests arrived, expected {count}"
            )
            return list(self.requests)

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    yield server
    server.close()


@pytest.fixture
def notifiers() -> Iterator[list[Notifier]]:
    """Notifiers a test makes, closed afterwards whatever happened."""
    made: list[Notifier] = []
    yield made
    for notifier in made:
        notifier.close(timeout_s=0.5)


def make(notifiers: list[Notifier], targets: list[WebhookTarget], **options: Any) -> Notifier:
    options.setdefault("backoff_s", 0.001)
    notifier = Notifier(targets, **options)
    notifiers.append(notifier)
    return notifier


# --- what is sent ----------------------------------------------------------------------


# A remediation as rules write it: Markdown with a command, a bold word and a list.
REMEDIATION = (
    "Cable the **second** I/O module, then run `sg_ses -p 2 /dev/sg3`:\n\n"
    "- check the cable\n- check the HBA port"
)
REMEDIATION_TEXT = (
    "Cable the second I/O module, then run sg_ses -p 2 /dev/sg3:\n• check the cable\n"
    "• check the HBA port"
)


def finding(
    rule: str = "sas.enclosure.single_path",
    severity: Severity = Severity.CRITICAL,
    name: str = "JBOD-003",
    muted: bool = False,
) -> Finding:
    entity = EntityRef(kind=EntityKind.ENCLOSURE, id=f"enclosure:{name.lower()}", name=name)
    return Finding(
        id=f"{rule}@{entity.id}",
        rule=rule,
        category="sas",
        severity=severity,
        title=f"{name} has 1 of 2 SAS paths",
        entity=entity,
        evidence=[
            Evidence(
                rule=rule,
                summary=f"2 of 2 expected paths on JBOD-001; {name} has 1",
                facts=[Fact(name="paths present", value=1)],
            ),
            Evidence(rule=rule, summary="its disks queue 2.9 times as much"),
        ],
        remediation=REMEDIATION,
        muted=Mute(rule=rule, entity_id=entity.id, reason="known") if muted else None,
    )


def transition(kind: TransitionKind = TransitionKind.NEW, **kwargs: Any) -> FindingTransition:
    body = finding(**kwargs)
    return FindingTransition(
        kind=kind,
        host="store01",
        finding=body,
        severity=body.severity,
        previous_severity=Severity.WARNING if kind is TransitionKind.WORSENED else None,
        at=AT,
        report_id=42,
    )


# --- delivery and payloads -------------------------------------------------------------


def test_json_batches_arrive_in_order_with_the_documented_shape(
    receiver: Receiver, notifiers: list[Notifier]
) -> None:
    notifier = make(
        notifiers, [WebhookTarget(url=receiver.url())], base_url="https://pp.example:9460/"
    )
    first = [transition(), transition(TransitionKind.WORSENED, name="JBOD-012")]
    notifier.notify(first)
    notifier.notify([transition(TransitionKind.RESOLVED)])
    assert notifier.flush(WAIT_S)
    requests = receiver.wait_for(2)
    assert [r.path for r in requests] == ["/hook", "/hook"]
    assert requests[0].headers["Content-Type"] == "application/json"
    body = requests[0].body
    assert body["version"] == 1 and body["source"] == "pinchpoint"
    event = body["events"][0]
    assert set(event) == {
        "kind",
        "host",
        "severity",
        "previous_severity",
        "at",
        "report_id",
        "report_url",
        "finding",
        "remediation_text",
    }
    assert event["kind"] == "new" and event["host"] == "store01"
    assert event["severity"] == "critical" and event["previous_severity"] is None
    assert datetime.fromisoformat(event["at"]) == AT
    assert event["report_url"] == "https://pp.example:9460/v1/reports/42"
    assert Finding.model_validate(event["finding"]) == first[0].finding
    assert event["finding"]["remediation"] == REMEDIATION  # as reports keep it: Markdown
    assert event["remediation_text"] == REMEDIATION_TEXT
    worsened = body["events"][1]
    assert worsened["kind"] == "worsened" and worsened["previous_severity"] == "warning"
    assert requests[1].body["events"][0]["kind"] == "resolved"
    assert notifier.counts.sent == 2 and notifier.counts.failed == 0
    assert notifier.counts.pending == 0


POSTABLE_ALERT_KEYS = {"labels", "annotations", "startsAt", "endsAt", "generatorURL"}


def check_postable_alerts(body: Any) -> None:
    """Alertmanager v2 `postableAlerts`: a list of objects with a required `labels` label set,
    an optional `annotations` label set (string values), RFC 3339 times and a generator URI."""
    assert isinstance(body, list) and body
    for alert in body:
        assert set(alert) <= POSTABLE_ALERT_KEYS and "labels" in alert
        for key in ("labels", "annotations"):
            assert all(isinstance(k, str) and isinstance(v, str) for k, v in alert[key].items())
        assert alert["labels"]["alertname"]
        for key in ("startsAt", "endsAt"):
            if key in alert:
                assert datetime.fromisoformat(alert[key]).tzinfo is not None
        if "generatorURL" in alert:
            assert alert["generatorURL"].startswith(("http://", "https://"))


def test_alertmanager_mode_posts_v2_alerts(receiver: Receiver, notifiers: list[Notifier]) -> None:
    target = WebhookTarget(url=receiver.url("/api/v2/alerts"), format=WebhookFormat.ALERTMANAGER)
    notifier = make(notifiers, [target], base_url="http://pp:9460")
    notifier.notify([transition(), transition(TransitionKind.RESOLVED, name="JBOD-012")])
    assert notifier.flush(WAIT_S)
    (request,) = receiver.wait_for(1)
    assert request.path == "/api/v2/alerts"
    check_postable_alerts(request.body)
    firing, resolved = request.body
    assert firing["labels"] == {
        "alertname": "pinchpoint_sas_enclosure_single_path",
        "rule": "sas.enclosure.single_path",
        "severity": "critical",
        "host": "store01",
        "instance": "store01",
        "entity_kind": "enclosure",
        "entity_id": "enclosure:jbod-003",
    }
    assert firing["annotations"]["summary"] == "JBOD-003 has 1 of 2 SAS paths"
    assert firing["annotations"]["description"] == (
        "2 of 2 expected paths on JBOD-001; JBOD-003 has 1\nits disks queue 2.9 times as much"
    )
    assert firing["annotations"]["remediation"] == REMEDIATION_TEXT  # no backticks, no **
    assert datetime.fromisoformat(firing["startsAt"]) == AT and "endsAt" not in firing
    assert firing["generatorURL"] == "http://pp:9460/v1/reports/42"
    assert datetime.fromisoformat(resolved["endsAt"]) == AT and "startsAt" not in resolved


def test_a_worsened_finding_ends_its_alert_of_the_old_severity(
    receiver: Receiver, notifiers: list[Notifier]
) -> None:
    """`severity` is a label: the warning and the critical alert are two alerts to Alertmanager."""
    target = WebhookTarget(url=receiver.url("/api/v2/alerts"), format=WebhookFormat.ALERTMANAGER)
    notifier = make(notifiers, [target])
    notifier.notify([transition(TransitionKind.WORSENED)])  # warning -> critical
    assert notifier.flush(WAIT_S)
    (request,) = receiver.wait_for(1)
    check_postable_alerts(request.body)
    ended, firing = request.body
    assert ended["labels"]["severity"] == "warning" and "endsAt" in ended
    assert firing["labels"]["severity"] == "critical" and "startsAt" in firing
    assert {k: v for k, v in ended["labels"].items() if k != "severity"} == {
        k: v for k, v in firing["labels"].items() if k != "severity"
    }


def test_alert_names_are_valid_prometheus_label_values() -> None:
    assert alert_name("latency.disk.overwhelmed") == "pinchpoint_latency_disk_overwhelmed"
    assert alert_name("net.nic-speed") == "pinchpoint_net_nic_speed"


def test_refresh_keeps_open_findings_firing_in_alertmanager_only(
    receiver: Receiver, notifiers: list[Notifier]
) -> None:
    """Alertmanager resolves an alert not sent again within its resolve_timeout."""
    targets = [
        WebhookTarget(url=receiver.url("/am"), format=WebhookFormat.ALERTMANAGER),
        WebhookTarget(url=receiver.url("/json")),
    ]
    notifier = make(notifiers, targets)
    open_findings = [
        finding(),
        finding(name="JBOD-012", muted=True),
        finding(rule="sas.chain.imbalance", severity=Severity.INFO),
    ]
    notifier.refresh("store01", open_findings, AT, 43)
    assert notifier.flush(WAIT_S)
    (request,) = receiver.wait_for(1)
    assert request.path == "/am"
    check_postable_alerts(request.body)
    assert [a["labels"]["entity_id"] for a in request.body] == ["enclosure:jbod-003"]


def test_each_target_gets_what_reaches_its_severity(
    receiver: Receiver, notifiers: list[Notifier]
) -> None:
    notifier = make(
        notifiers,
        [
            WebhookTarget(url=receiver.url("/critical"), min_severity=Severity.CRITICAL),
            WebhookTarget(url=receiver.url("/warning")),  # the default: warning and up
            WebhookTarget(url=receiver.url("/info"), min_severity=Severity.INFO),
        ],
    )
    notifier.notify(
        [
            transition(severity=Severity.INFO, name="JBOD-001"),
            transition(severity=Severity.WARNING, name="JBOD-002"),
            # a resolved finding counts with the severity it had
            transition(TransitionKind.RESOLVED, severity=Severity.CRITICAL, name="JBOD-003"),
            transition(severity=Severity.CRITICAL, name="JBOD-004", muted=True),  # muted: no
        ]
    )
    assert notifier.flush(WAIT_S)
    got = {
        r.path: [e["finding"]["entity"]["name"] for e in r.body["events"]]
        for r in receiver.wait_for(3)
    }
    assert got == {
        "/critical": ["JBOD-003"],
        "/warning": ["JBOD-002", "JBOD-003"],
        "/info": ["JBOD-001", "JBOD-002", "JBOD-003"],
    }


def test_nothing_to_send_sends_nothing(receiver: Receiver, notifiers: list[Notifier]) -> None:
    notifier = make(notifiers, [WebhookTarget(url=receiver.url(), min_severity=Severity.CRITICAL)])
    notifier.notify([transition(severity=Severity.WARNING)])
    notifier.notify([])
    assert notifier.flush(WAIT_S)
    assert receiver.requests == [] and notifier.counts.sent == 0


# --- retries ---------------------------------------------------------------------------


@pytest.mark.parametrize("status", [500, 502, 503, 408, 429])
def test_retryable_answers_are_retried_until_accepted(
    receiver: Receiver, notifiers: list[Notifier], status: int
) -> None:
    receiver.script.extend([Answer(status), Answer(status)])
    notifier = make(notifiers, [WebhookTarget(url=receiver.url())], retries=3)
    notifier.notify([transition()])
    assert notifier.flush(WAIT_S)
    requests = receiver.wait_for(3)
    assert len(requests) == 3 and requests[0].body == requests[2].body
    counts = notifier.counts
    assert (counts.sent, counts.failed, counts.retried) == (1, 0, 2)


def test_retry_after_is_honoured_over_a_long_backoff(
    receiver: Receiver, notifiers: list[Notifier]
) -> None:
    """The backoff alone could wait up to 600 s; `Retry-After: 0` retries at once."""
    receiver.script.append(Answer(429, {"Retry-After": "0"}))
    notifier = make(
        notifiers, [WebhookTarget(url=receiver.url())], backoff_s=600, max_backoff_s=600
    )
    notifier.notify([transition()])
    assert len(receiver.wait_for(2)) == 2
    assert notifier.flush(WAIT_S) and notifier.counts.sent == 1


def test_retry_after_reads_seconds_and_http_dates() -> None:
    import httpx

    def after(value: str) -> float | None:
        return retry_after_s(httpx.Response(429, headers={"Retry-After": value}))

    assert after("7") == 7.0
    assert after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past: at once
    assert 3000 < (after(_http_date(3600)) or 0) <= 3600
    assert after("soon") is None
    assert retry_after_s(httpx.Response(503)) is None


def _http_date(seconds_ahead: int) -> str:
    from datetime import timedelta
    from email.utils import format_datetime

    return format_datetime(datetime.now(UTC) + timedelta(seconds=seconds_ahead), usegmt=True)


def test_gives_up_after_the_retries_and_logs_it(
    receiver: Receiver, notifiers: list[Notifier], caplog: pytest.LogCaptureFixture
) -> None:
    receiver.otherwise = Answer(500)
    notifier = make(notifiers, [WebhookTarget(url=receiver.url())], retries=2)
    with caplog.at_level(logging.WARNING, logger="pinchpoint.service.notify"):
        notifier.notify([transition()])
        assert notifier.flush(WAIT_S)
    assert len(receiver.requests) == 3  # the first attempt and 2 retries
    counts = notifier.counts
    assert (counts.sent, counts.failed, counts.retried, counts.pending) == (0, 1, 2, 0)
    assert "gave up on a batch of 1 after 3 attempts (HTTP 500)" in caplog.text


@pytest.mark.parametrize("status", [400, 401, 404, 413])
def test_client_errors_are_not_retried(
    receiver: Receiver, notifiers: list[Notifier], status: int, caplog: pytest.LogCaptureFixture
) -> None:
    receiver.script.append(Answer(status))
    notifier = make(notifiers, [WebhookTarget(url=receiver.url())], retries=5)
    with caplog.at_level(logging.ERROR, logger="pinchpoint.service.notify"):
        notifier.notify([transition()])
        assert notifier.flush(WAIT_S)
    assert len(receiver.requests) == 1
    counts = notifier.counts
    assert (counts.failed, counts.retried) == (1, 0)
    assert f"HTTP {status}" in caplog.text and "not retried" in caplog.text


def test_a_receiver_that_does_not_answer_in_time_is_retried(
    receiver: Receiver, notifiers: list[Notifier]
) -> None:
    receiver.script.append(Answer(hang=True))
    notifier = make(notifiers, [WebhookTarget(url=receiver.url(), timeout_s=0.2)], retries=2)
    notifier.notify([transition()])
    assert receiver.hanging.wait(WAIT_S)
    assert notifier.flush(WAIT_S)  # the retry went through while the first is still held
    assert notifier.counts.sent == 1 and notifier.counts.retried == 1


def test_a_refused_connection_is_retried_then_given_up(notifiers: list[Notifier]) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    notifier = make(notifiers, [WebhookTarget(url=f"http://127.0.0.1:{port}/hook")], retries=2)
    notifier.notify([transition()])
    assert notifier.flush(WAIT_S)
    counts = notifier.counts
    assert (counts.sent, counts.failed, counts.retried) == (0, 1, 2)


# --- never blocking, never leaking -----------------------------------------------------


def test_notify_returns_while_the_receiver_hangs(
    receiver: Receiver, notifiers: list[Notifier]
) -> None:
    """The receiver holds the first request until released; notify() returned before that
    (the test thread released it), and a second batch queues behind it in order."""
    receiver.script.append(Answer(hang=True))
    slow = WebhookTarget(url=receiver.url(), timeout_s=WAIT_S)
    notifier = make(notifiers, [slow])
    notifier.notify([transition(name="JBOD-001")])
    assert receiver.hanging.wait(WAIT_S)  # the delivery is in flight, held by the server
    notifier.notify([transition(name="JBOD-002")])  # returns although the first is stuck
    assert notifier.counts.pending == 2 and receiver.requests == []
    receiver.release.set()
    assert notifier.flush(WAIT_S)
    names = [r.body["events"][0]["finding"]["entity"]["name"] for r in receiver.wait_for(2)]
    assert names == ["JBOD-001", "JBOD-002"]


def test_a_dead_target_does_not_hold_up_another(
    receiver: Receiver, notifiers: list[Notifier]
) -> None:
    receiver.script.append(Answer(hang=True, path="/stuck"))
    notifier = make(
        notifiers,
        [
            WebhookTarget(url=receiver.url("/stuck"), timeout_s=WAIT_S),
            WebhookTarget(url=receiver.url("/fine")),
        ],
    )
    notifier.notify([transition()])
    assert receiver.hanging.wait(WAIT_S)
    (arrived,) = receiver.wait_for(1)  # the other target's copy, while the first hangs
    assert arrived.path == "/fine"
    receiver.release.set()


def test_header_values_and_url_paths_never_reach_the_logs(
    receiver: Receiver, notifiers: list[Notifier], caplog: pytest.LogCaptureFixture
) -> None:
    receiver.script.extend([Answer(503), Answer(401)])
    target = WebhookTarget(
        url=receiver.url(f"/hooks/{PATH_SECRET}"),
        headers={"Authorization": f"Bearer {SECRET}", "X-Api-Key": SECRET},
    )
    notifier = make(notifiers, [target], retries=3)
    with caplog.at_level(logging.DEBUG):
        notifier.notify([transition()])
        assert notifier.flush(WAIT_S)
    requests = receiver.wait_for(2)
    assert requests[0].headers["Authorization"] == f"Bearer {SECRET}"  # sent, of course
    assert f"127.0.0.1:{receiver.server.server_address[1]}" in caplog.text  # it did log
    assert SECRET not in caplog.text and PATH_SECRET not in caplog.text
    assert SECRET not in repr(target) and SECRET not in str(notifier.counts)


def test_target_labels_keep_only_scheme_host_and_port() -> None:
    assert target_label("https://user:pw@am.example:9093/api/v2/alerts?t=x") == (
        "https://am.example:9093"
    )
    assert target_label("http://hooks.example/T0/B1/XYZ") == "http://hooks.example"


def test_close_drops_what_cannot_be_sent_in_time_and_refuses_more(
    receiver: Receiver, notifiers: list[Notifier], caplog: pytest.LogCaptureFixture
) -> None:
    receiver.script.append(Answer(hang=True))
    notifier = Notifier([WebhookTarget(url=receiver.url(), timeout_s=WAIT_S)], backoff_s=0.001)
    notifier.notify([transition(name="JBOD-001")])
    assert receiver.hanging.wait(WAIT_S)
    notifier.notify([transition(name="JBOD-002")])
    with caplog.at_level(logging.WARNING, logger="pinchpoint.service.notify"):
        notifier.close(timeout_s=0.1)  # returns although a delivery is still held
        notifier.notify([transition(name="JBOD-003")])
    assert notifier.counts.failed == 2  # the queued batch, and the one after closing
    assert "1 undelivered batches dropped at shutdown" in caplog.text
    receiver.release.set()
    receiver.wait_for(1)
    assert [r.body["events"][0]["finding"]["entity"]["name"] for r in receiver.requests] == [
        "JBOD-001"
    ]


def test_bad_settings_are_refused_with_the_field_named() -> None:
    with pytest.raises(ValueError, match="timeout_s"):
        WebhookTarget(url="http://x", timeout_s=0)
    with pytest.raises(ValueError, match="min_severity"):
        WebhookTarget.model_validate({"url": "http://x", "min_severity": "urgent"})
    with pytest.raises(ValueError, match="format"):
        WebhookTarget.model_validate({"url": "http://x", "format": "slack"})
    with pytest.raises(ValueError, match="url"):
        WebhookTarget(url="ftp://am.example/alerts")
    with pytest.raises(ValueError, match="url"):
        WebhookTarget(url="am.example:9093/api/v2/alerts")
    with pytest.raises(ValueError, match="negative"):
        Notifier([], retries=-1)
