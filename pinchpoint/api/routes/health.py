"""Probes: `/healthz` (the process answers) and `/readyz` (the store answers and sweeps run)."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from pinchpoint import __version__
from pinchpoint.api.auth import ServiceDep

router = APIRouter(tags=["health"])


class Health(BaseModel):
    status: str
    version: str


class Readiness(BaseModel):
    ready: bool
    store: bool
    database: str  # "sqlite" or "postgresql"
    target: str
    last_sweep_at: datetime | None
    last_sweep_age_s: float | None
    last_sweep_error: str | None
    sweep_running: bool
    reasons: list[str]


@router.get("/healthz", response_model=Health)
async def healthz() -> Health:
    """The process is up."""
    return Health(status="ok", version=__version__)


@router.get(
    "/readyz",
    response_model=Readiness,
    responses={503: {"model": Readiness, "description": "Not ready: see `reasons`"}},
)
def readyz(service: ServiceDep) -> JSONResponse:
    """Ready when the store answers and a sweep has succeeded within three sweep intervals
    (`stale_sweep_after_s`), or the first sweep is still running."""
    reasons = []
    store_ok = service.store.ping()
    if not store_ok:
        reasons.append("the report store does not answer")
    counters = service.runner.counters
    last = counters.last_success
    age = (datetime.now(UTC) - last).total_seconds() if last else None
    running = service.runner.running() is not None
    failed = next((s for s in service.runner.recent() if s.error), None)
    if last is None and not running:
        reasons.append("no sweep has succeeded yet")
    stale_after = service.settings.sweep_stale_after_s()
    if stale_after is not None and age is not None and age > stale_after and not running:
        reasons.append(f"the last successful sweep is {age:.0f} s old")
    body = Readiness(
        ready=not reasons,
        store=store_ok,
        database=service.store.dialect,
        target=service.target.label,
        last_sweep_at=last,
        last_sweep_age_s=age,
        last_sweep_error=failed.error if failed else None,
        sweep_running=running,
        reasons=reasons,
    )
    return JSONResponse(body.model_dump(mode="json"), status_code=200 if not reasons else 503)
