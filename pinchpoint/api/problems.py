"""Errors as RFC 9457 problem details: `{"type", "title", "status", "detail"}`, served as
`application/problem+json`; a validation error names each field that is wrong."""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlalchemy.exc import DBAPIError
from starlette.exceptions import HTTPException as StarletteHTTPException

from pinchpoint.service.store import MissingPartsError, StoreInputError, store_unavailable

STORE_RETRY_AFTER_S = 5  # a database restart or failover takes seconds

log = logging.getLogger(__name__)

PROBLEM_JSON = "application/problem+json"
PROBLEM_BASE = "https://pinchpoint.dev/problems/"


class Problem(BaseModel):
    """The body of every error response."""

    type: str
    title: str
    status: int
    detail: str | None = None
    errors: list[dict[str, Any]] | None = None  # validation: one entry per wrong field
    missing: list[str] | None = None  # missing-parts: the inventory parts to send the JSON of


class ProblemError(Exception):
    """Raise to answer with a problem: `ProblemError(409, "locate-refused", "the demo …")`."""

    def __init__(
        self, status: int, kind: str, detail: str, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.kind = kind
        self.detail = detail
        self.headers = headers


class BodyTooLargeError(Exception):
    """A request body grew past the limit while it was read."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the body may hold at most {limit:,} bytes")
        self.limit = limit


def problem_response(
    status: int,
    detail: str | None,
    kind: str | None = None,
    errors: list[dict[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
    missing: list[str] | None = None,
) -> JSONResponse:
    """A problem-details response for `status`."""
    title = HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ else "Error"
    slug = kind or title.lower().replace(" ", "-")
    problem = Problem(
        type=PROBLEM_BASE + slug,
        title=title,
        status=status,
        detail=detail,
        errors=errors,
        missing=missing,
    )
    return JSONResponse(
        problem.model_dump(exclude_none=True),
        status_code=status,
        media_type=PROBLEM_JSON,
        headers=headers,
    )


def _field(location: tuple[Any, ...] | list[Any]) -> str:
    parts = [str(p) for p in location]
    if parts and parts[0] in ("body", "query", "path", "header"):
        return f"{parts[0]}: {'.'.join(parts[1:]) or '(whole)'}"
    return ".".join(parts)


def install_problem_handlers(app: FastAPI) -> None:
    """Answer every error of `app` with a problem document."""

    @app.exception_handler(ProblemError)
    async def _problem(_request: Request, err: ProblemError) -> JSONResponse:
        return problem_response(err.status, err.detail, err.kind, headers=err.headers)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_request: Request, err: StarletteHTTPException) -> JSONResponse:
        headers = dict(err.headers) if err.headers else None
        return problem_response(err.status_code, str(err.detail), headers=headers)

    @app.exception_handler(RequestValidationError)
    async def _validation(_request: Request, err: RequestValidationError) -> JSONResponse:
        errors = [
            {"field": _field(e.get("loc", ())), "message": e.get("msg", ""), "type": e.get("type")}
            for e in err.errors()
        ]
        detail = "; ".join(f"{e['field']}: {e['message']}" for e in errors)
        return problem_response(422, detail, "validation", errors=errors)

    @app.exception_handler(BodyTooLargeError)
    async def _too_large(_request: Request, err: BodyTooLargeError) -> JSONResponse:
        return problem_response(413, str(err), "body-too-large")

    @app.exception_handler(StoreInputError)
    async def _store_input(_request: Request, err: StoreInputError) -> JSONResponse:
        return problem_response(422, str(err), "validation")

    @app.exception_handler(MissingPartsError)
    async def _missing_parts(_request: Request, err: MissingPartsError) -> JSONResponse:
        return problem_response(409, str(err), "missing-parts", missing=err.names)

    @app.exception_handler(DBAPIError)
    async def _store(_request: Request, err: DBAPIError) -> JSONResponse:
        """The database unreachable or restarting: 503 with Retry-After (an agent's push is
        sent again then), never a 500; nothing of the request was stored."""
        if store_unavailable(err):
            log.warning("the store is unavailable: %s", type(err.orig).__name__)
            return problem_response(
                503,
                "the store's database cannot be reached just now; try again",
                "store-unavailable",
                headers={"Retry-After": str(STORE_RETRY_AFTER_S)},
            )
        log.error("a store error: %s", type(err.orig).__name__)
        return problem_response(500, f"internal error: {type(err).__name__}", "internal")

    @app.exception_handler(Exception)
    async def _internal(_request: Request, err: Exception) -> JSONResponse:
        return problem_response(500, f"internal error: {type(err).__name__}", "internal")
