"""Webhook notifications: new, worsened and resolved findings, POSTed to each configured target.

A sweep hands its transitions to `Notifier.notify`, which only queues them: each target has its
own worker thread and queue, so a slow or dead receiver never holds up a sweep or another target,
and one target receives its batches in the order the sweeps produced them (a RESOLVED never
overtakes the NEW it ends). Failed deliveries are retried with exponential backoff and jitter on
connection errors, timeouts, 5xx, 408 and 429 (honouring Retry-After); other 4xx are final. Logs
name a target by scheme, host and port only, httpx's own request log included (a filter on the
`httpx` logger shortens webhook URLs): paths and headers may hold tokens.

Two payload formats; docs/notifications.md documents both:

* `json`: one POST per target per batch, `{"version": 1, "source": "pinchpoint", "events": […]}`;
  each event carries the finding as reports do (its remediation in Markdown) and the remediation
  as plain text (`remediation_text`), for a receiver that shows it as it comes;
* `alertmanager`: one POST per batch of a JSON list of Alertmanager v2 `postableAlert`s. Firing
  alerts carry no `endsAt`, so Alertmanager resolves them after its `resolve_timeout` unless
  they are sent again: `Notifier.refresh` re-sends the open findings after every sweep. The
  remediation annotation is plain text (no backticks or `**`): Alertmanager's receivers (mail,
  chat, pagers) show annotations as they are.
"""

from __future__ import annotations

import email.utils
import json
import logging
import random
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any
from urllib.parse import urlsplit

import httpx
from pydantic import BaseModel, Field, field_validator

from pinchpoint.markup import markdown_plain
from pinchpoint.model.findings import Finding, Severity
from pinchpoint.service.events import FindingTransition, TransitionKind

log = logging.getLogger(__name__)

PAYLOAD_VERSION = 1
USER_AGENT = "pinchpoint-notifier"
RETRY_STATUSES = frozenset({408, 429})  # besides every 5xx


class WebhookFormat(StrEnum):
    JSON = "json"  # pinchpoint's own payload (docs/notifications.md)
    ALERTMANAGER = "alertmanager"  # a list of Alertmanager v2 alerts (POST /api/v2/alerts)


class WebhookTarget(BaseModel):
    """One receiver: where to POST, from which severity on, in which format, with which headers
    (an `Authorization` header is the usual place for a token: it is never logged)."""

    url: str
    min_severity: Severity = Severity.WARNING
    format: WebhookFormat = WebhookFormat.JSON
    headers: dict[str, str] = Field(default_factory=dict, repr=False)
    timeout_s: float = Field(default=5.0, gt=0)

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("must be an http:// or https:// URL with a host")
        return value


class NotifyCounts(BaseModel):
    """Deliveries (one POST of one batch to one target) since the notifier started."""

    sent: int = 0  # answered 2xx
    failed: int = 0  # given up: out of retries, a final 4xx, or dropped at shutdown
    retried: int = 0  # attempts repeated after a retryable failure
    pending: int = 0  # queued or in flight now


def target_label(url: str) -> str:
    """`https://am.example:9093`: how logs name a target (never its path, query or userinfo,
    which may hold a token)."""
    parts = urlsplit(url)
    host = parts.hostname or "?"
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}"


class _RedactTargetUrls(logging.Filter):
    """httpx logs every request's full URL at INFO; for webhook targets, keep only the scheme,
    host and port (a Slack-style URL carries its token in the path)."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: set[str] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) > 1 and str(args[1]) in self.urls:
            record.args = (args[0], target_label(str(args[1])), *args[2:])
        return True


_REDACT = _RedactTargetUrls()
logging.getLogger("httpx").addFilter(_REDACT)


def report_url(base_url: str | None, report_id: int | None) -> str | None:
    """`<base>/v1/reports/<id>`, when both are known."""
    if not base_url or report_id is None:
        return None
    return f"{base_url.rstrip('/')}/v1/reports/{report_id}"


def passes(transition: FindingTransition, target: WebhookTarget) -> bool:
    """A transition the target wants: at or above its severity; a muted finding only when it
    resolves (its mute already kept it from paging anyone)."""
    if transition.severity.rank < target.min_severity.rank:
        return False
    return transition.kind is TransitionKind.RESOLVED or transition.finding.muted is None


def _timestamp(moment: datetime) -> str:
    """RFC 3339 with an offset (a naive time is taken as UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.isoformat()


def json_event(transition: FindingTransition, base_url: str | None) -> dict[str, Any]:
    """One transition in the `json` format."""
    return {
        "kind": transition.kind.value,
        "host": transition.host,
        "severity": transition.severity.value,
        "previous_severity": (
            transition.previous_severity.value if transition.previous_severity else None
        ),
        "at": _timestamp(transition.at),
        "report_id": transition.report_id,
        "report_url": report_url(base_url, transition.report_id),
        "finding": transition.finding.model_dump(mode="json"),
        "remediation_text": markdown_plain(transition.finding.remediation),
    }


def json_payload(transitions: Sequence[FindingTransition], base_url: str | None) -> bytes:
    """A batch in the `json` format: a versioned object holding the events in sweep order."""
    body = {
        "version": PAYLOAD_VERSION,
        "source": "pinchpoint",
        "events": [json_event(t, base_url) for t in transitions],
    }
    return json.dumps(body, ensure_ascii=False).encode("utf-8")


def alert_name(rule: str) -> str:
    """`sas.enclosure.single_path` -> `pinchpoint_sas_enclosure_single_path`."""
    return "pinchpoint_" + "".join(c if c.isalnum() or c == "_" else "_" for c in rule)


def alertmanager_alert(
    finding: Finding,
    *,
    host: str,
    severity: Severity,
    at: datetime,
    resolved: bool,
    generator_url: str | None,
) -> dict[str, Any]:
    """One Alertmanager v2 `postableAlert`: labels identify the alert (rule, entity and host),
    annotations describe it; a resolved alert ends at `at`, a firing one starts then."""
    alert: dict[str, Any] = {
        "labels": {
            "alertname": alert_name(finding.rule),
            "rule": finding.rule,
            "severity": severity.value,
            "host": host,
            "instance": host,
            "entity_kind": finding.entity.kind.value,
            "entity_id": finding.entity.id,
        },
        "annotations": {
            "summary": finding.title,
            "description": "\n".join(e.summary for e in finding.evidence),
            "remediation": markdown_plain(finding.remediation),
            "entity": finding.entity.name,
        },
    }
    if resolved:
        alert["endsAt"] = _timestamp(at)  # Alertmanager sets startsAt to it when unknown
    else:
        alert["startsAt"] = _timestamp(at)
    if generator_url:
        alert["generatorURL"] = generator_url
    return alert


def alertmanager_payload(transitions: Sequence[FindingTransition], base_url: str | None) -> bytes:
    """A batch as the JSON list `POST /api/v2/alerts` takes. A worsened finding also ends the
    alert of its previous severity: `severity` is a label, so it was another alert."""
    alerts = []
    for t in transitions:
        url = report_url(base_url, t.report_id)
        resolved = t.kind is TransitionKind.RESOLVED
        if t.kind is TransitionKind.WORSENED and t.previous_severity is not None:
            alerts.append(
                alertmanager_alert(
                    t.finding,
                    host=t.host,
                    severity=t.previous_severity,
                    at=t.at,
                    resolved=True,
                    generator_url=url,
                )
            )
        alerts.append(
            alertmanager_alert(
                t.finding,
                host=t.host,
                severity=t.severity,
                at=t.at,
                resolved=resolved,
                generator_url=url,
            )
        )
    return json.dumps(alerts, ensure_ascii=False).encode("utf-8")


def retry_after_s(response: httpx.Response) -> float | None:
    """The delay a `Retry-After` header asks for (seconds or an HTTP date), if any."""
    value = response.headers.get("retry-after")
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


@dataclass
class _Delivery:
    body: bytes
    events: int  # transitions (or alerts) in the batch, for the log


@dataclass
class _Lane:
    """One target's queue and worker."""

    target: WebhookTarget
    label: str
    queue: deque[_Delivery] = field(default_factory=deque)
    busy: bool = False  # a delivery is in flight (or waiting to be retried)
    thread: threading.Thread | None = None


class Notifier:
    """Queues notifications per target and delivers them from background threads."""

    def __init__(
        self,
        targets: Sequence[WebhookTarget],
        *,
        retries: int = 5,
        backoff_s: float = 1.0,
        max_backoff_s: float = 60.0,
        client: httpx.Client | None = None,
        base_url: str | None = None,
    ) -> None:
        if retries < 0 or backoff_s < 0 or max_backoff_s < 0:
            raise ValueError("retries and backoff times cannot be negative")
        self.retries = retries
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self.base_url = base_url
        self._own_client = client is None
        self._client = client or httpx.Client(
            headers={"User-Agent": USER_AGENT}, follow_redirects=False
        )
        self._lock = threading.Condition()
        self._closing = threading.Event()  # stop retrying; drop what cannot be sent in time
        self._closed = False
        self._counts = NotifyCounts()
        self._lanes = [_Lane(t, target_label(t.url)) for t in targets]
        _REDACT.urls.update(str(httpx.URL(t.url)) for t in targets)
        for index, lane in enumerate(self._lanes):
            lane.thread = threading.Thread(
                target=self._work, args=(lane,), name=f"pinchpoint-notify-{index}", daemon=True
            )
            lane.thread.start()

    @property
    def counts(self) -> NotifyCounts:
        with self._lock:
            pending = sum(len(lane.queue) + lane.busy for lane in self._lanes)
            return self._counts.model_copy(update={"pending": pending})

    # --- what sweeps call --------------------------------------------------------------

    def notify(self, transitions: Sequence[FindingTransition]) -> None:
        """Queue `transitions` for every target that wants some of them; returns at once."""
        for lane in self._lanes:
            chosen = [t for t in transitions if passes(t, lane.target)]
            if chosen:
                self._enqueue(lane, self._payload(lane.target, chosen), len(chosen))

    def refresh(
        self, host: str, open_findings: Sequence[Finding], at: datetime, report_id: int | None
    ) -> None:
        """Send the findings still open again to the Alertmanager targets, so Alertmanager keeps
        them firing (it resolves an alert not re-sent within its `resolve_timeout`). Call it
        after every sweep; JSON targets hear of transitions only."""
        for lane in self._lanes:
            if lane.target.format is not WebhookFormat.ALERTMANAGER:
                continue
            alerts = [
                alertmanager_alert(
                    f,
                    host=host,
                    severity=f.severity,
                    at=at,
                    resolved=False,
                    generator_url=report_url(self.base_url, report_id),
                )
                for f in open_findings
                if f.muted is None and f.severity.rank >= lane.target.min_severity.rank
            ]
            if alerts:
                body = json.dumps(alerts, ensure_ascii=False).encode("utf-8")
                self._enqueue(lane, body, len(alerts))

    def flush(self, timeout_s: float) -> bool:
        """Wait until every queue is empty and nothing is in flight; False on timeout."""
        deadline = time.monotonic() + timeout_s
        with self._lock:
            while any(lane.queue or lane.busy for lane in self._lanes):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._lock.wait(remaining)
        return True

    def close(self, timeout_s: float = 5.0) -> None:
        """Deliver what is queued for up to `timeout_s` (without further retries), then stop;
        what is left is counted as failed and logged."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._closing.set()
        self.flush(timeout_s)
        with self._lock:
            dropped = 0
            for lane in self._lanes:
                dropped += len(lane.queue)
                lane.queue.clear()
            self._counts.failed += dropped
            self._lock.notify_all()
        if dropped:
            log.warning("notifications: %d undelivered batches dropped at shutdown", dropped)
        for lane in self._lanes:
            if lane.thread is not None:
                lane.thread.join(timeout=max(0.1, timeout_s))
        if self._own_client:
            self._client.close()

    # --- the workers -------------------------------------------------------------------

    def _payload(self, target: WebhookTarget, transitions: list[FindingTransition]) -> bytes:
        if target.format is WebhookFormat.ALERTMANAGER:
            return alertmanager_payload(transitions, self.base_url)
        return json_payload(transitions, self.base_url)

    def _enqueue(self, lane: _Lane, body: bytes, events: int) -> None:
        with self._lock:
            if self._closed:
                self._counts.failed += 1
                log.warning("notifications: %s: notifier closed, batch dropped", lane.label)
                return
            lane.queue.append(_Delivery(body, events))
            self._lock.notify_all()

    def _work(self, lane: _Lane) -> None:
        while True:
            with self._lock:
                while not lane.queue and not self._closed:
                    self._lock.wait()
                if not lane.queue:
                    return
                delivery = lane.queue.popleft()
                lane.busy = True
            try:
                sent = self._deliver(lane, delivery)
            except Exception:  # a bug must not kill the lane: count it and go on
                log.exception("notifications: %s: delivery failed unexpectedly", lane.label)
                sent = False
            with self._lock:
                lane.busy = False
                if sent:
                    self._counts.sent += 1
                else:
                    self._counts.failed += 1
                self._lock.notify_all()

    def _backoff(self, attempt: int) -> float:
        """Full jitter: a random delay up to `backoff_s × 2^attempt`, capped."""
        ceiling = min(self.max_backoff_s, self.backoff_s * (2**attempt))
        return random.uniform(0, ceiling)

    def _deliver(self, lane: _Lane, delivery: _Delivery) -> bool:
        """POST one batch until it is accepted, refused for good, or out of retries."""
        target = lane.target
        headers = {"Content-Type": "application/json", **target.headers}
        attempt = 0
        while True:
            delay: float | None = None
            try:
                response = self._client.post(
                    target.url, content=delivery.body, headers=headers, timeout=target.timeout_s
                )
            except httpx.TransportError as err:  # connection refused, timeouts, resets
                problem = f"{type(err).__name__}: {str(err)[:200]}"
            else:
                status = response.status_code
                if 200 <= status < 300:
                    return True
                problem = f"HTTP {status}"
                if status < 500 and status not in RETRY_STATUSES:
                    log.error(
                        "notifications: %s refused a batch of %d (%s): not retried",
                        lane.label,
                        delivery.events,
                        problem,
                    )
                    return False
                delay = retry_after_s(response)
            if attempt >= self.retries or self._closing.is_set():
                log.error(
                    "notifications: %s: gave up on a batch of %d after %d attempts (%s)",
                    lane.label,
                    delivery.events,
                    attempt + 1,
                    problem,
                )
                return False
            wait = min(self.max_backoff_s, delay) if delay is not None else self._backoff(attempt)
            log.warning(
                "notifications: %s: %s; retry %d of %d in %.1f s",
                lane.label,
                problem,
                attempt + 1,
                self.retries,
                wait,
            )
            with self._lock:
                self._counts.retried += 1
            attempt += 1
            if self._closing.wait(wait):  # shutting down: one last try, no more waiting
                continue
