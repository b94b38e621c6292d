"""The maintenance view in the browser: the pages served at `/` (the API stays under /v1).

One HTML shell from a Jinja2 template, the same for every page so a link or a reload lands on
the right one; a small vanilla-JS application (one module per page, no build step) fetches the
JSON API from the same origin and draws with the vendored Apache ECharts. Every asset is shipped
in the package: the view works with no internet access. The admin token for mutes and locate
LEDs is asked for once and kept in the page's memory only.
"""

from __future__ import annotations

import base64
import hashlib
import logging
from pathlib import Path

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates

from pinchpoint import __version__
from pinchpoint.api.auth import ServiceDep
from pinchpoint.api.views.networks import has_networks

HERE = Path(__file__).parent
STATIC_DIR = HERE / "static"
TEMPLATES_DIR = HERE / "templates"

REPORT_TEMPLATE = Path(__file__).parent.parent / "report" / "templates" / "report.html.j2"


def inline_style_hash(template: Path) -> str:
    """The CSP source of the one `<style>` element of an HTML template (`'sha256-…'`), or ""
    when it has none: the Reports page shows the HTML report in a sandboxed `srcdoc` frame,
    which keeps this page's policy, so the report's own style block is allowed by its hash."""
    text = template.read_text(encoding="utf-8")
    if "<style>" not in text or "</style>" not in text:
        return ""
    css = text.split("<style>", 1)[1].split("</style>", 1)[0]
    digest = base64.b64encode(hashlib.sha256(css.encode("utf-8")).digest()).decode("ascii")
    return f"'sha256-{digest}'"


# What the pages may load: only this origin, no inline script; style attributes (the charts'
# tooltips are HTML with inline styles) and the HTML report's style block, no other inline
# style; never framed.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; "
    f"style-src-elem 'self' {inline_style_hash(REPORT_TEMPLATE)}; "
    "style-src-attr 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; "
    "frame-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)

# Path → page name: each page's skeleton is a template of the same name under pages/.
PAGES = {
    "/": "overview",
    "/topology": "topology",
    "/enclosures": "enclosure",
    "/enclosures/{enclosure_id}": "enclosure",
    "/networks": "networks",
    "/latency": "latency",
    "/findings": "findings",
    "/reports": "reports",
}
NAVIGATION = (
    ("/", "overview", "Overview"),
    ("/topology", "topology", "Topology"),
    ("/enclosures", "enclosure", "Enclosures"),
    ("/networks", "networks", "Networks"),
    ("/latency", "latency", "Latency"),
    ("/findings", "findings", "Findings"),
    ("/reports", "reports", "Reports"),
)

log = logging.getLogger(__name__)
router = APIRouter(include_in_schema=False)
router.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
templates = Jinja2Templates(directory=TEMPLATES_DIR)


def static_path(request: Request, path: str) -> str:
    """The path of a static asset, from this server's own root path (its configuration), never
    from a request header: `url_for` would make `http://<Host header>/static/…`, so a forged Host
    would choose where the page's scripts come from."""
    root = str(request.scope.get("root_path", "")).rstrip("/")
    return f"{root}/static/{path}"


def _navigation(service: ServiceDep) -> tuple[tuple[str, str, str], ...]:
    """The pages linked from the top: Networks only when the newest inventory has NVMe
    subsystems, iSCSI sessions, FC ports or physical NICs with counters (its page still
    answers at its address, saying there is nothing to show)."""
    try:
        view = service.fresh_view(None) or service.view(None)
    except Exception:  # the store unreadable: the shell still opens, without the link
        log.exception("reading the newest inventory for the navigation")
        view = None
    if view is not None and view.inventory is not None and has_networks(view.inventory):
        return NAVIGATION
    return tuple(link for link in NAVIGATION if link[1] != "networks")


def _shell(request: Request, service: ServiceDep, page: str) -> Response:
    """The application shell, opened at `page`."""
    response = templates.TemplateResponse(
        request,
        "shell.html",
        {
            "static": lambda path: static_path(request, path),
            "page": page,
            "pages": sorted(set(PAGES.values())),
            "navigation": _navigation(service),
            "version": __version__,
            "target": service.target.label,
            "demo": service.target.kind.value == "demo",
        },
    )
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["Cache-Control"] = "no-cache"
    return response


def _page_route(path: str, page: str) -> None:
    def serve(request: Request, service: ServiceDep) -> Response:
        return _shell(request, service, page)

    serve.__name__ = f"page_{page}_{len(path)}"
    router.add_api_route(path, serve, methods=["GET"], response_class=HTMLResponse)


for _path, _page in PAGES.items():
    _page_route(_path, _page)
