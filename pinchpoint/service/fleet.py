"""Fleet plumbing: an agent pushes each report to a central service, and the figures one sweep's
statistics give the metrics endpoint."""

from __future__ import annotations

import logging
import time

import httpx
from pydantic import SecretStr

from pinchpoint.model.findings import Report
from pinchpoint.model.inventory import Inventory
from pinchpoint.naming import disk_ref
from pinchpoint.service.checkup import Checkup
from pinchpoint.service.metrics import LatencySummary
from pinchpoint.stats.attach import AttachedKind, attach_names

log = logging.getLogger(__name__)

PUSH_PATH = "/v1/pushed-reports"
PUSH_ATTEMPTS = 4
PUSH_TIMEOUT_S = 30.0


class PushError(RuntimeError):
    """The central service did not take the report; the message says why."""


def push_report(
    base_url: str,
    token: SecretStr | None,
    report: Report,
    inventory: Inventory | None,
    *,
    duration_s: float | None = None,
    attempts: int = PUSH_ATTEMPTS,
    client: httpx.Client | None = None,
) -> int:
    """Send `report` (and its inventory) to the central service at `base_url`; returns the id
    it was stored under. Retries connection errors and 5xx with backoff; a 4xx is final."""
    body = (
        '{"report":'
        + report.model_dump_json()
        + ',"inventory":'
        + (inventory.model_dump_json() if inventory is not None else "null")
        + ',"duration_s":'
        + ("null" if duration_s is None else repr(float(duration_s)))
        + "}"
    )
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token.get_secret_value()}"
    url = base_url.rstrip("/") + PUSH_PATH
    own = client is None
    http = client or httpx.Client(timeout=PUSH_TIMEOUT_S)
    last = "no attempt made"
    try:
        for attempt in range(attempts):
            try:
                response = http.post(url, content=body.encode(), headers=headers)
            except httpx.HTTPError as err:
                last = f"{type(err).__name__}: {err}"
            else:
                if response.status_code == 201:
                    stored: int = response.json()["id"]
                    return stored
                detail = response.text[:300]
                last = f"HTTP {response.status_code}: {detail}"
                if response.status_code < 500 and response.status_code != 429:
                    break
            if attempt + 1 < attempts:
                time.sleep(min(30.0, 0.5 * 2**attempt))
    finally:
        if own:
            http.close()
    raise PushError(f"{url}: the report was not taken: {last}")


def latency_summaries(checkup: Checkup) -> list[LatencySummary]:
    """Each disk's iostat figures over the newest statistics interval: its paths' devices
    summed (rates, queue), waits weighted by the I/Os they timed, %util of the busiest path."""
    intervals = checkup.statistics.intervals
    if not intervals:
        return []
    newest = intervals[-1]
    inventory = checkup.inventory
    attached = attach_names(inventory, [d.device for d in newest.devices]).attached
    disks = {d.id: d for d in inventory.sas.disks}
    sums: dict[str, list[float]] = {}  # r/s, w/s, r_await·r/s, w_await·w/s, aqu-sz, util
    for figures in newest.devices:
        found = attached.get(figures.device)
        if found is None or found.kind is not AttachedKind.DISK or found.entity_id not in disks:
            continue
        total = sums.setdefault(found.entity_id, [0.0] * 6)
        total[0] += figures.r_s
        total[1] += figures.w_s
        total[2] += figures.r_await * figures.r_s
        total[3] += figures.w_await * figures.w_s
        total[4] += figures.aqu_sz
        total[5] = max(total[5], figures.util)
    summaries = []
    for disk_id, (reads, writes, read_wait, write_wait, queue, util) in sums.items():
        summaries.append(
            LatencySummary(
                entity=disk_ref(disks[disk_id], inventory),
                read_await_ms=read_wait / reads if reads else None,
                write_await_ms=write_wait / writes if writes else None,
                queue=queue,
                util_percent=util,
                iops=reads + writes,
            )
        )
    return summaries
