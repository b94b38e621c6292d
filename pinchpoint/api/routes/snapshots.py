"""Snapshot upload: a support engineer posts a `pinchpoint capture --tar` archive and gets the
report of that host, stored as a host of its own (`<hostname> (snapshot)`)."""

from __future__ import annotations

import shutil

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from pinchpoint.api.auth import AdminAccess, ServiceDep
from pinchpoint.api.problems import ProblemError
from pinchpoint.checks.source.archives import (
    ArchiveLimits,
    ArchiveRejected,
    extract_snapshot_archive,
)
from pinchpoint.checks.source.scratch import scratch_in
from pinchpoint.checks.source.snapshot import NotASnapshotError
from pinchpoint.service.runtime import HostNameRefusedError
from pinchpoint.service.store import ReportSummary

router = APIRouter(prefix="/v1", tags=["snapshots"])


class SnapshotAnalysis(BaseModel):
    report_id: int
    host: str
    summary: ReportSummary | None
    collection_problems: int


@router.post(
    "/snapshots",
    status_code=201,
    response_model=SnapshotAnalysis,
    dependencies=[AdminAccess],
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/gzip": {"schema": {"type": "string", "format": "binary"}}},
        }
    },
    responses={
        400: {"description": "Not a readable gzip tar (corrupt, truncated, empty)"},
        413: {"description": "Larger than the limits (upload, unpacked bytes, ratio, members)"},
        422: {"description": "A hostile or unrecognised archive: the reason names the member"},
    },
)
async def upload_snapshot(
    request: Request, service: ServiceDep, response: Response
) -> SnapshotAnalysis:
    """Analyse a `capture --tar` archive (the body, `application/gzip`). Archives with paths
    leaving the tree, links out of it, devices, or sizes past the limits are refused."""
    limits = ArchiveLimits(max_bytes=service.settings.max_upload_bytes)
    uploads = service.settings.resolved_data_dir() / "uploads"
    uploads.mkdir(parents=True, exist_ok=True)
    work = scratch_in(uploads, "snapshot-")  # below this process's own: see scratch.py
    try:
        archive = work / "upload.tar.gz"
        size = 0
        with archive.open("wb") as handle:
            async for chunk in request.stream():
                size += len(chunk)
                if size > limits.max_bytes:
                    raise ProblemError(
                        413,
                        "body-too-large",
                        f"the archive may hold at most {limits.max_bytes:,} bytes",
                    )
                handle.write(chunk)
        if size == 0:
            raise ProblemError(400, "empty", "the body is empty: send the archive as the body")
        try:
            root = await run_in_threadpool(extract_snapshot_archive, archive, work / "tree", limits)
        except ArchiveRejected as err:
            raise ProblemError(err.status, "archive-rejected", err.reason) from None
        try:
            saved, problems, host = await run_in_threadpool(service.analyse_snapshot, root)
        except HostNameRefusedError as err:
            raise ProblemError(422, "host-name", str(err)) from None
        except NotASnapshotError as err:
            raise ProblemError(422, "not-a-snapshot", str(err)) from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    response.headers["Location"] = f"/v1/reports/{saved}"
    summaries = service.store.report_summaries(host=host, limit=1).items
    return SnapshotAnalysis(
        report_id=saved,
        host=host,
        summary=summaries[0] if summaries else None,
        collection_problems=problems,
    )
