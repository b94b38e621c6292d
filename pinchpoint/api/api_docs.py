"""The API's own documentation pages, `/docs` (Swagger UI) and `/redoc` (ReDoc), drawn from
assets this service serves itself (`static/vendor/`, written by scripts/vendor-assets.sh):
FastAPI's default pages load both from a CDN and render blank on a host without internet."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from pinchpoint import __version__
from pinchpoint.api.web import TEMPLATES_DIR, static_path

# Scripts from this origin only, none inline (api-docs.js starts both viewers). Both viewers set
# style attributes and ReDoc writes its own <style> elements (styled-components), and ReDoc's
# search index runs in a worker it starts from a blob: URL.
DOCS_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self'; connect-src 'self'; worker-src 'self' blob:; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)

router = APIRouter(include_in_schema=False)
templates = Jinja2Templates(directory=TEMPLATES_DIR)


def documentation_page(request: Request, viewer: str) -> Response:
    """The page of `viewer` ("swagger" or "redoc") pointed at this service's OpenAPI document."""
    root = str(request.scope.get("root_path", "")).rstrip("/")
    response = templates.TemplateResponse(
        request,
        f"api_docs/{viewer}.html",
        {
            "static": lambda path: static_path(request, path),
            "openapi_url": f"{root}/openapi.json",
            "version": __version__,
        },
    )
    response.headers["Content-Security-Policy"] = DOCS_POLICY
    response.headers["Cache-Control"] = "no-cache"
    return response


@router.get("/docs", response_class=HTMLResponse)
def swagger_ui(request: Request) -> Response:
    return documentation_page(request, "swagger")


@router.get("/redoc", response_class=HTMLResponse)
def redoc(request: Request) -> Response:
    return documentation_page(request, "redoc")
