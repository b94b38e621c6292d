"""Fleet plumbing: an agent pushes each report to a central service."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Collection

import httpx
from pydantic import SecretStr

from pinchpoint.model.findings import Report
from pinchpoint.model.inventory import Inventory
from pinchpoint.service.store.bodies import SplitInventory, split_inventory

log = logging.getLogger(__name__)

PUSH_PATH = "/v1/pushed-reports"
BY_DIGEST_PATH = "/v1/pushed-reports/by-digest"
MISSING_ROUNDS = 3  # pushes by digest before giving up on a central that keeps lacking parts
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


def _whole_body(report: Report, inventory: Inventory | None, duration_s: float | None) -> bytes:
    """The body of a whole push: the report and its inventory (what old centrals take)."""
    return (
        '{"report":'
        + report.model_dump_json()
        + ',"inventory":'
        + (inventory.model_dump_json() if inventory is not None else "null")
        + ',"duration_s":'
        + _seconds(duration_s)
        + "}"
    ).encode()


def _seconds(duration_s: float | None) -> str:
    return "null" if duration_s is None else repr(float(duration_s))


def _by_digest_body(
    report: Report,
    inventory: Inventory,
    split: SplitInventory,
    send: Collection[str],
    duration_s: float | None,
) -> bytes:
    """The body of a push by digest: every part named by the SHA-256 of its compact JSON, and
    the JSON itself of the parts in `send` (those the central said it lacks)."""
    head = {
        "format_version": split.format_version,
        "host": inventory.host.model_dump(mode="json"),
        "parts": {part.name: part.digest for part in split.parts},
    }
    bodies = b",".join(
        b'"' + part.name.encode() + b'":' + part.json
        for part in split.parts
        if part.name in send and part.json is not None
    )
    return (
        b'{"report":'
        + report.model_dump_json().encode()
        + b',"inventory":'
        + json.dumps(head, separators=(",", ":")).encode()
        + b',"bodies":{'
        + bodies
        + b'},"duration_s":'
        + _seconds(duration_s).encode()
        + b"}"
    )


def _missing_parts(response: httpx.Response) -> list[str] | None:
    """The parts a central asked for (409 `missing-parts`), else None."""
    if response.status_code != 409:
        return None
    try:
        problem = response.json()
    except ValueError:
        return None
    if not isinstance(problem, dict) or not str(problem.get("type", "")).endswith("/missing-parts"):
        return None
    missing = problem.get("missing")
    return [str(name) for name in missing] if isinstance(missing, list) else None


def _post(
    http: httpx.Client, url: str, body: bytes, headers: dict[str, str], attempts: int
) -> httpx.Response:
    """POST `body`, again on connection errors, 429 and 5xx with backoff (at least the
    `Retry-After` the central asks for, e.g. while its database restarts); the answer that
    ends it (2xx or another 4xx), or `PushError` once the attempts are spent."""
    last = "no attempt made"
    for attempt in range(attempts):
        asked = 0.0
        try:
            response = http.post(url, content=body, headers=headers)
        except httpx.HTTPError as err:
            last = f"{type(err).__name__}: {err}"
        else:
            if response.status_code < 500 and response.status_code != 429:
                return response
            last = f"HTTP {response.status_code}: {response.text[:300]}"
            asked = _retry_after(response.headers.get("Retry-After"))
        if attempt + 1 < attempts:
            time.sleep(min(MAX_WAIT_S, max(asked, 0.5 * 2**attempt)))
    raise PushError(f"{url}: the report was not taken: {last}")


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
    it was stored under. The inventory goes by digest first: its parts named by SHA-256, and
    sent again with the JSON of those the central lacks (most sweeps change none); a central
    without that route (404/405: an older one) gets the whole push. Each request is retried
    on connection errors, 429 and 5xx (`_post`); a 4xx is final. Sending again is safe: the
    central keeps the same report once and answers with its id."""
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token.get_secret_value()}"
    base = base_url.rstrip("/")
    own = client is None
    http = client or httpx.Client(timeout=PUSH_TIMEOUT_S)
    url = base + PUSH_PATH
    try:
        response: httpx.Response | None = None
        if inventory is not None:
            url = base + BY_DIGEST_PATH
            split = split_inventory(inventory)
            send: set[str] = set()
            for _round in range(MISSING_ROUNDS):
                body = _by_digest_body(report, inventory, split, send, duration_s)
                response = _post(http, url, body, headers, attempts)
                missing = _missing_parts(response)
                if missing is None:
                    break
                # the second round sends what was named; later ones (a prune between the
                # two requests) every part
                send = set(missing) if not send else {part.name for part in split.parts}
            if response is not None and response.status_code in (404, 405):
                response = None  # a central older than pushes by digest
                url = base + PUSH_PATH
        if response is None:
            body = _whole_body(report, inventory, duration_s)
            response = _post(http, url, body, headers, attempts)
    finally:
        if own:
            http.close()
    if response.status_code in (200, 201):
        stored: int = response.json()["id"]
        return stored
    raise PushError(
        f"{url}: the report was not taken: HTTP {response.status_code}: {response.text[:300]}"
    )
