"""The FastAPI application: routes under /v1, probes, metrics and problem-details errors.

`create_app(service)` serves a `Service` built elsewhere (`pinchpoint serve` or a test); the
application starts it when it starts and stops it when it stops, unless told otherwise.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from pinchpoint import __version__
from pinchpoint.api import api_docs, web
from pinchpoint.api.allow import AllowedMethods
from pinchpoint.api.browser_safety import AllowedHosts, SecurityHeaders
from pinchpoint.api.cached import prepare_view
from pinchpoint.api.fast_reads import CachedReads
from pinchpoint.api.heavy import HeavyLimit
from pinchpoint.api.limits import BodyLimit, JsonDepthLimit
from pinchpoint.api.problems import Problem, install_problem_handlers
from pinchpoint.api.routes import (
    findings,
    fleet,
    health,
    inventory,
    maintenance,
    metrics,
    networks,
    reports,
    rules,
    snapshots,
    stats,
    views,
)
from pinchpoint.api.views.stats import HistogramUpload
from pinchpoint.service.runtime import Service

DESCRIPTION = """Configuration health of a storage server's I/O path: SAS HBAs, ports, phys,
expander chains, enclosures, disks and every path to them; NICs, bonds, FC and PCIe links.

Reads need the read token (or the admin token); anything that changes state needs the admin
token: `Authorization: Bearer <token>`. Errors are RFC 9457 problem details."""


ERRORS_OF_EVERY_OPERATION = {
    "401": "No token, or a wrong one",
    "404": "No such thing (or nothing collected yet)",
    "422": "A parameter or the body is wrong: `errors` names each field",
    "500": "An internal error",
}
ERRORS_OF_CHANGES = {
    "400": "The body cannot be used",
    "403": "This needs the admin token",
    "409": "Not possible in this state (a snapshot, the demo host, not a central service)",
    "413": "The body is larger than the limit",
    "429": "Too many requests waiting (see Retry-After)",
}
ERRORS_OF_HEAVY_ROUTES = {"503": "Too many heavy requests at once (see Retry-After)"}
HEAVY_ROUTES = ("/v1/stats",)


def documented_openapi(app: FastAPI) -> dict[str, Any]:
    """The OpenAPI document with every error documented as `application/problem+json` and the
    schemas of hand-written request bodies moved where their references point."""
    if app.openapi_schema:
        return app.openapi_schema
    schema = get_openapi(
        title=app.title,
        version=app.version,
        description=app.description,
        routes=app.routes,
    )
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    problem = {"$ref": "#/components/schemas/Problem"}
    components["Problem"] = Problem.model_json_schema()
    for name, definition in (
        HistogramUpload.model_json_schema(ref_template="#/components/schemas/{model}")
        .pop("$defs", {})
        .items()
    ):
        components.setdefault(name, definition)
    for path, operations in schema.get("paths", {}).items():
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            errors = dict(ERRORS_OF_EVERY_OPERATION)
            if method in ("post", "put", "patch", "delete"):
                errors |= ERRORS_OF_CHANGES
            if path in HEAVY_ROUTES:
                errors |= ERRORS_OF_HEAVY_ROUTES
            for code, description in errors.items():
                responses.setdefault(code, {"description": description})
            for code, response in responses.items():
                if code.isdigit() and int(code) >= 400:
                    response["content"] = {"application/problem+json": {"schema": problem}}
            body = operation.get("requestBody", {}).get("content", {})
            if path == "/v1/stats" and "application/json" in body:
                upload = HistogramUpload.model_json_schema(
                    ref_template="#/components/schemas/{model}"
                )
                upload.pop("$defs", None)
                components["HistogramUpload"] = upload
                body["application/json"] = {
                    "schema": {"$ref": "#/components/schemas/HistogramUpload"}
                }
    _add_links(schema)
    app.openapi_schema = schema
    return schema


# OpenAPI links: which answer gives the parameters of which operation (a created mute's id to
# lift it, a listed report's id to read it, a listed disk to show it). Clients can follow them;
# schemathesis's stateful phase chains operations along them (tests/api/test_openapi_fuzz.py).
LINKS: tuple[tuple[str, str, str, str, str, dict[str, str]], ...] = (
    (
        "/v1/mutes",
        "post",
        "201",
        "/v1/mutes/{mute_id}",
        "delete",
        {"mute_id": "$response.body#/id"},
    ),
    (
        "/v1/mutes",
        "get",
        "200",
        "/v1/mutes/{mute_id}",
        "delete",
        {"mute_id": "$response.body#/0/id"},
    ),
    (
        "/v1/reports",
        "get",
        "200",
        "/v1/reports/{report_id}",
        "get",
        {"report_id": "$response.body#/items/0/id"},
    ),
    (
        "/v1/reports",
        "get",
        "200",
        "/v1/reports/{a}/diff/{b}",
        "get",
        {"a": "$response.body#/items/1/id", "b": "$response.body#/items/0/id"},
    ),
    ("/v1/rules", "get", "200", "/v1/rules/{rule_id}", "get", {"rule_id": "$response.body#/0/id"}),
    (
        "/v1/inventory/disks",
        "get",
        "200",
        "/v1/inventory/disks/{disk_id}",
        "get",
        {"disk_id": "$response.body#/items/0/id"},
    ),
    (
        "/v1/inventory/enclosures",
        "get",
        "200",
        "/v1/inventory/enclosures/{enclosure_id}",
        "get",
        {"enclosure_id": "$response.body#/0/id"},
    ),
    (
        "/v1/checks",
        "post",
        "202",
        "/v1/checks/{sweep_id}",
        "get",
        {"sweep_id": "$response.body#/id"},
    ),
)


def _add_links(schema: dict[str, Any]) -> None:
    paths = schema.get("paths", {})
    for source, method, status, target, target_method, parameters in LINKS:
        response = paths.get(source, {}).get(method, {}).get("responses", {}).get(status)
        operation = paths.get(target, {}).get(target_method)
        if response is None or operation is None:
            continue
        name = operation["operationId"]
        response.setdefault("links", {})[name] = {
            "operationId": name,
            "parameters": parameters,
        }


def create_app(service: Service, *, manage: bool = True, first_sweep: bool = True) -> FastAPI:
    """The application serving `service`; `manage`: start and stop it with the application."""

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        if manage:
            service.start(first_sweep=first_sweep)
        try:
            yield
        finally:
            if manage:
                service.stop()

    app = FastAPI(
        title="pinchpoint",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,  # /docs and /redoc are api_docs' pages, from assets served here
        redoc_url=None,
    )
    app.state.service = service
    if prepare_view not in service.view_preparers:
        service.view_preparers.append(prepare_view)
    app.state.heavy = HeavyLimit()  # slots for heavy routes (api/heavy.py)
    install_problem_handlers(app)
    app.add_middleware(AllowedMethods)
    app.add_middleware(JsonDepthLimit)  # inside BodyLimit: the body it measures is capped
    app.add_middleware(
        BodyLimit,
        default_bytes=service.settings.max_body_bytes,
        upload_bytes=service.settings.max_upload_bytes,
    )
    # the hottest reads answered from memory without FastAPI's routing (api/fast_reads.py),
    # inside the Host check and the safety headers, outside what only bodies need
    app.add_middleware(CachedReads, service=service)
    app.add_middleware(AllowedHosts, allowed=service.settings.resolved_allowed_hosts())
    app.add_middleware(SecurityHeaders)  # outermost: on every answer, refusals included
    app.openapi = lambda: documented_openapi(app)  # type: ignore[method-assign]
    for module in (
        health,
        reports,
        findings,
        rules,
        inventory,
        maintenance,
        stats,
        snapshots,
        fleet,
        metrics,
        views,
        networks,
    ):
        app.include_router(module.router)
    app.include_router(api_docs.router)
    app.include_router(web.router)  # last: it owns `/` and mounts `/static`
    return app
