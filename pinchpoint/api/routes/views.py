"""Views for the maintenance pages: the SAS tree with each node's load and findings, one
enclosure's front view, and the entities the latency heat maps can be drawn for. Each page gets
what it draws in one answer (the 1,920-path host's topology page paints within a second)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Query, Request, Response
from pydantic import BaseModel, TypeAdapter

from pinchpoint.api.auth import ReadAccess, ServiceDep
from pinchpoint.api.problems import ProblemError
from pinchpoint.api.views.topology import (
    SLOWER_THAN_S,
    WINDOW_S,
    EnclosureView,
    TopologyView,
    enclosure_view,
    topology_view,
)
from pinchpoint.model.breakdown import GroupLevel
from pinchpoint.service.runtime import HostView, Service

router = APIRouter(prefix="/v1/views", tags=["views"], dependencies=[ReadAccess])

HostQuery = Annotated[str | None, Query(description="Host name (default: the newest report's)")]
WindowQuery = Annotated[
    int, Query(ge=10, le=3600, description="Figures over the last this many seconds")
]
SlowerQuery = Annotated[
    float, Query(gt=0, le=600_000, description="Count I/Os slower than this as slow (ms)")
]
JSON = "application/json"
STALE_S = 60.0  # an answer older than this is rebuilt before it is served
MAX_ANSWERS = 16
log = logging.getLogger(__name__)


class Entity(BaseModel):
    """Something the latency page can draw: a group of disks, or a LUN or FC group."""

    id: str
    name: str
    level: GroupLevel
    members: int  # disks (or LUNs) in it


@dataclass
class _Answer:
    report_id: int
    ticks: int
    built_at: float
    body: bytes


class _Answers:
    """The newest topology answer per question (host, window, threshold), served at once while
    a newer one is built in the background: the sampler ticks every 10 s, and rebuilding the
    1,920-path host's answer then costs a few hundred milliseconds that no page should wait
    for. An answer of an older report, or older than `STALE_S`, is rebuilt before answering."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.answers: dict[tuple[object, ...], _Answer] = {}
        self.building: set[tuple[object, ...]] = set()

    def get(
        self, key: tuple[object, ...], report_id: int, ticks: int, build: Callable[[], bytes]
    ) -> bytes:
        with self.lock:
            known = self.answers.get(key)
        fresh_enough = (
            known is not None
            and known.report_id == report_id
            and time.monotonic() - known.built_at < STALE_S
        )
        if known is None or not fresh_enough:
            return self._build(key, report_id, ticks, build).body
        if known.ticks != ticks:
            self._refresh(key, report_id, ticks, build)
        return known.body

    def _build(
        self, key: tuple[object, ...], report_id: int, ticks: int, build: Callable[[], bytes]
    ) -> _Answer:
        answer = _Answer(report_id, ticks, time.monotonic(), build())
        with self.lock:
            current = self.answers.get(key)
            if current is None or current.built_at < answer.built_at:
                if len(self.answers) >= MAX_ANSWERS and key not in self.answers:
                    self.answers.pop(next(iter(self.answers)))
                self.answers[key] = answer
        return answer

    def _refresh(
        self, key: tuple[object, ...], report_id: int, ticks: int, build: Callable[[], bytes]
    ) -> None:
        with self.lock:
            if key in self.building:
                return
            self.building.add(key)

        def run() -> None:
            try:
                self._build(key, report_id, ticks, build)
            except Exception:  # the next request builds it and reports the error
                log.exception("rebuilding the topology view failed")
            finally:
                with self.lock:
                    self.building.discard(key)

        threading.Thread(target=run, name="topology-view", daemon=True).start()


def _answers(request: Request) -> _Answers:
    state = request.app.state
    answers: _Answers | None = getattr(state, "view_answers", None)
    if answers is None:
        answers = state.view_answers = _Answers()
    return answers


def _view(service: Service, host: str | None) -> HostView:
    view = service.view(host)
    if view is None or view.inventory is None:
        raise ProblemError(404, "not-found", "no inventory yet" + (f" for {host}" if host else ""))
    return view


def _ticks(service: Service) -> int:
    return service.sampler.ticks if service.sampler is not None else 0


@router.get("/topology", response_model=TopologyView)
def topology(
    request: Request,
    service: ServiceDep,
    host: HostQuery = None,
    window_s: WindowQuery = WINDOW_S,
    slower_than_ms: SlowerQuery = SLOWER_THAN_S * 1000,
) -> Response:
    """HBA → port → chain → enclosure → slot, each node with its worst open finding and its
    load over the window: I/Os per second, MB/s, I/Os queued (per disk and in total), I/Os
    slower than `slower_than_ms`, p99. The figures may be one sampler tick old (`window_end`
    says when they were taken): a newer answer is built while this one is served."""
    view = _view(service, host)
    inventory = view.inventory
    assert inventory is not None

    def build() -> bytes:
        built = topology_view(
            service,
            inventory,
            view.report.findings,
            view.report_id,
            view.report.generated_at,
            window_s=window_s,
            slower_than_s=slower_than_ms / 1000,
            now=datetime.now(UTC),
        )
        return built.model_dump_json().encode()

    key = (host, window_s, slower_than_ms)
    body = _answers(request).get(key, view.report_id, _ticks(service), build)
    return Response(body, media_type=JSON, headers={"X-Report-Id": str(view.report_id)})


@router.get("/enclosures/{enclosure_id}", response_model=EnclosureView)
def enclosure(
    enclosure_id: str,
    service: ServiceDep,
    host: HostQuery = None,
    window_s: WindowQuery = WINDOW_S,
    slower_than_ms: SlowerQuery = SLOWER_THAN_S * 1000,
) -> EnclosureView:
    """One enclosure (by id, logical id or nickname): cabling, I/O modules and the HBA port
    each is cabled to, every bay with its disk's paths, SMART health and load, the vdev tree of
    each ZFS pool with a disk in it (every device by its bay), and why the locate LEDs cannot
    be switched here (None when they can)."""
    view = _view(service, host)
    assert view.inventory is not None
    found = enclosure_view(
        service,
        view.inventory,
        view.report.findings,
        view.report_id,
        enclosure_id,
        window_s=window_s,
        slower_than_s=slower_than_ms / 1000,
    )
    if found is None:
        raise ProblemError(404, "not-found", f"no enclosure {enclosure_id!r}")
    return found


ENTITY_LEVELS = (
    GroupLevel.HBA,
    GroupLevel.HBA_PORT,
    GroupLevel.CHAIN,
    GroupLevel.ENCLOSURE,
    GroupLevel.FC_ADAPTER,
    GroupLevel.FC_PORT,
    GroupLevel.LUN,
    GroupLevel.CONTROLLER,
    GroupLevel.CONTROLLER_PORT,
)


def _entities(view: HostView) -> list[Entity]:
    from pinchpoint.stats.aggregate import breakdown

    assert view.inventory is not None
    grouped = breakdown(view.inventory, levels=list(ENTITY_LEVELS))
    return [
        Entity(id=group.id, name=group.name, level=level.level, members=group.members)
        for level in grouped.levels
        for group in level.groups
    ]


@router.get("/entities", response_model=list[Entity])
def entities(service: ServiceDep, host: HostQuery = None) -> Response:
    """Every group the latency heat maps can be drawn for (HBA, HBA port, chain, enclosure,
    FC adapter and port, LUN, a disk controller off the SAS fabric and its ports), named as
    `GET /v1/stats` names them; disks are reached by
    drilling down from a group (`/v1/stats?entity=<group>&by=disk`)."""
    view = _view(service, host)
    adapter = TypeAdapter(list[Entity])
    body = view.cached("view-entities", lambda: adapter.dump_json(_entities(view)))
    return Response(body, media_type=JSON, headers={"X-Report-Id": str(view.report_id)})
