"""Fleet plumbing: an agent pushes each report to a central service."""

from __future__ import annotations

import logging
import time

import httpx
from pydantic import SecretStr

from pinchpoint.model.findings import Report
from pinchpoint.model.inventory import Inventory

log = logging.getLogger(__name__)

PUSH_PATH = "/v1/pushed-reports"
PUSH_ATTEMPTS = 4
PUSH_TIMEOUT_S = 30.0


MAX_WAIT_S = 30.0


def _retry_after(value: str | None) -> float:
    """The seconds a `Retry-After` header asks for (0 when absent or not a number of seconds)."""
    try:
        return max(0.0, float(value)) if value else 0.0
    except ValueError:
        return 0.0


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
    it was stored under. Retries connection errors, 429 and 5xx with backoff (at least the
    `Retry-After` the central asks for, e.g. while its database restarts); a 4xx is final.
    Sending again is safe: the central keeps the same report once and answers with its id."""
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
            asked = 0.0
            try:
                response = http.post(url, content=body.encode(), headers=headers)
            except httpx.HTTPError as err:
                last = f"{type(err).__name__}: {err}"
            else:
                if response.status_code in (200, 201):
                    stored: int = response.json()["id"]
                    return stored
                detail = response.text[:300]
                last = f"HTTP {response.status_code}: {detail}"
                if response.status_code < 500 and response.status_code != 429:
                    break
                asked = _retry_after(response.headers.get("Retry-After"))
            if attempt + 1 < attempts:
                time.sleep(min(MAX_WAIT_S, max(asked, 0.5 * 2**attempt)))
    finally:
        if own:
            http.close()
    raise PushError(f"{url}: the report was not taken: {last}")
