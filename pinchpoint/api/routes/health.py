"""Probes: `/healthz` (the process answers) and `/readyz` (the store answers and sweeps run)."""

from __future__ import annotations

from datetime import datetime

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
    sweep_overdue_since: datetime | None = None  # the first deadline missed since a success
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
async def readyz(service: ServiceDep) -> JSONResponse:
    """Ready when the store answers, sweeps keep their deadline (`sweep_deadline_s`) and one
    has succeeded within three sweep intervals (`stale_sweep_after_s`), or the first sweep is
    still running. Answered on the event loop from what the service holds in memory: it never
    waits for a worker thread, the store or a sweep."""
    facts = service.readiness()
    body = Readiness(
        ready=facts.ready,
        store=facts.store,
        database=service.store.dialect,
        target=service.target.label,
        last_sweep_at=facts.last_sweep_at,
        last_sweep_age_s=facts.last_sweep_age_s,
        last_sweep_error=facts.last_sweep_error,
        sweep_running=facts.sweep_running,
        sweep_overdue_since=facts.overdue_since,
        reasons=facts.reasons,
    )
    return JSONResponse(body.model_dump(mode="json"), status_code=200 if facts.ready else 503)
