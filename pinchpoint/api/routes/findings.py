"""Findings across reports (open, muted, resolved, with first and last seen) and mutes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated

from fastapi import APIRouter, Path, Query, Response
from pydantic import BaseModel, Field, TypeAdapter
from starlette.concurrency import run_in_threadpool

from pinchpoint.api.auth import AdminAccess, ReadAccess, ServiceDep
from pinchpoint.api.params import IsoDatetime
from pinchpoint.api.problems import ProblemError
from pinchpoint.model.findings import Mute, Severity
from pinchpoint.rules.catalog import rule_by_id
from pinchpoint.service.store import FindingRecord, FindingState, MuteRecord, Page

router = APIRouter(prefix="/v1", tags=["findings"])


FINDINGS_PAGE = TypeAdapter(Page[FindingRecord])
DEFAULT_LIMIT = 100


def findings_key(
    host: str | None,
    severity: Severity | None,
    rule: str | None,
    entity: str | None,
    state: FindingState | None,
    limit: int,
    offset: int,
) -> tuple[object, ...]:
    """What a page of findings is kept under in `service.recent_answers`."""
    return ("findings", host, severity, rule, entity, state, limit, offset)


# `GET /v1/findings` without parameters: the key api/fast_reads.py looks its kept answer up by
FIRST_PAGE = findings_key(None, None, None, None, None, DEFAULT_LIMIT, 0)


def findings_response(body: bytes) -> Response:
    """A page of findings' answer (the same from the route and from api/fast_reads.py)."""
    return Response(body, media_type="application/json")


@router.get("/findings", response_model=Page[FindingRecord], dependencies=[ReadAccess])
async def list_findings(
    service: ServiceDep,
    host: Annotated[str | None, Query()] = None,
    severity: Annotated[Severity | None, Query()] = None,
    rule: Annotated[str | None, Query(description="Rule id")] = None,
    entity: Annotated[str | None, Query(description="Entity id, or part of its name")] = None,
    state: Annotated[FindingState | None, Query()] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = DEFAULT_LIMIT,
    offset: Annotated[int, Query(ge=0, le=1_000_000_000)] = 0,
) -> Response:
    """Findings with their state, first and last seen and how many reports held them (read
    at most once a second for the same question: `service/recent_answers.py`)."""

    def page() -> bytes:
        found = service.store.findings(
            host=host,
            severity=severity,
            rule=rule,
            entity=entity,
            state=state,
            limit=limit,
            offset=offset,
        )
        return FINDINGS_PAGE.dump_json(found)

    key = findings_key(host, severity, rule, entity, state, limit, offset)
    generation = service.changes
    body = service.recent_answers.peek(key, generation)  # no thread hop for a kept answer
    if body is None:
        body = await run_in_threadpool(service.recent_answers.get, key, generation, page)
    return findings_response(body)


class MuteRequest(BaseModel):
    """Silence one rule on one entity, for a while and for a reason."""

    rule: str = Field(min_length=1, max_length=200, examples=["sas.enclosure.single_path"])
    entity_id: str = Field(min_length=1, max_length=500, examples=["enclosure:0x5000ccab0200947e"])
    reason: str = Field(min_length=1, max_length=2000)
    until: IsoDatetime | None = Field(default=None, description="Expiry (or give `hours`)")
    hours: float | None = Field(
        default=None, gt=0, le=24 * 366, description="Expiry from now; with `until`, the earlier"
    )
    host: str | None = Field(default=None, max_length=255, description="None: every host")


@router.post("/mutes", status_code=201, response_model=MuteRecord, dependencies=[AdminAccess])
def add_mute(request: MuteRequest, service: ServiceDep, response: Response) -> MuteRecord:
    """Mute a finding. The mute lifts by itself at its expiry, or early when the finding gets
    worse than it was when muted."""
    if rule_by_id(request.rule) is None:
        raise ProblemError(422, "unknown-rule", f"no rule {request.rule!r} (GET /v1/rules)")
    now = datetime.now(UTC)
    expiries = [request.until, now + timedelta(hours=request.hours) if request.hours else None]
    until = min((e for e in expiries if e is not None), default=None)
    if until is not None and until <= now:
        raise ProblemError(422, "validation", "the expiry is in the past")
    current = service.store.findings(rule=request.rule, entity=request.entity_id, host=request.host)
    severity = max(
        (r.severity for r in current.items if r.entity.id == request.entity_id),
        key=lambda s: s.rank,
        default=None,
    )
    mute = Mute(
        rule=request.rule,
        entity_id=request.entity_id,
        until=until,
        reason=request.reason,
        severity_at_mute=severity,
    )
    record = service.store.add_mute(mute, host=request.host, created_by="api", now=now)
    service.forget(request.host or "")
    response.headers["Location"] = f"/v1/mutes/{record.id}"
    return record


@router.get("/mutes", response_model=list[MuteRecord], dependencies=[ReadAccess])
def list_mutes(
    service: ServiceDep,
    host: Annotated[str | None, Query()] = None,
    include_expired: bool = False,
) -> list[MuteRecord]:
    """Mutes in force (or every mute with `include_expired`)."""
    return service.store.mutes(host=host, active_only=not include_expired)


@router.delete("/mutes/{mute_id}", status_code=204, dependencies=[AdminAccess])
def delete_mute(mute_id: Annotated[int, Path(ge=1, le=2**62)], service: ServiceDep) -> Response:
    """Lift a mute now."""
    if not service.store.delete_mute(mute_id):
        raise ProblemError(404, "not-found", f"no mute {mute_id}")
    service.forget("")  # what /metrics shows of findings changed
    return Response(status_code=204)
