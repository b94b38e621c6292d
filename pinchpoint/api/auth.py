"""Who may call what: a read token for reads, an admin token for anything that changes state
(mutes, locate LEDs, starting sweeps, uploads, pushed reports). Tokens come from the settings,
are compared in constant time and never logged. Reads may be left open on loopback only when the
settings say so."""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.security.utils import get_authorization_scheme_param

from pinchpoint.api.problems import ProblemError
from pinchpoint.service.runtime import Service
from pinchpoint.service.settings import ServiceSettings

bearer = HTTPBearer(auto_error=False, description="`Authorization: Bearer <token>`")
Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
CHALLENGE = {"WWW-Authenticate": 'Bearer realm="pinchpoint"'}


def _service(request: Request) -> Service:
    service: Service = request.app.state.service
    return service


async def service_of(request: Request) -> Service:
    """The running service (a dependency; async so that it needs no worker thread)."""
    return _service(request)


def _matches(given: str, expected: str | None) -> bool:
    return expected is not None and hmac.compare_digest(given.encode(), expected.encode())


def _token(credentials: HTTPAuthorizationCredentials | None) -> str:
    if credentials is None or not credentials.credentials:
        raise ProblemError(401, "unauthorized", "a bearer token is required", CHALLENGE)
    return credentials.credentials


def _may_read(settings: ServiceSettings, token: str) -> bool:
    read = settings.read_token.get_secret_value() if settings.read_token else None
    admin = settings.admin_token.get_secret_value() if settings.admin_token else None
    return _matches(token, read) | _matches(token, admin)  # both compared, always


async def require_read(request: Request, credentials: Credentials) -> None:
    """Reads: the read or the admin token, or nothing when reads are open on loopback."""
    settings = _service(request).settings
    if settings.reads_open and credentials is None:
        return
    if not _may_read(settings, _token(credentials)):
        raise ProblemError(401, "unauthorized", "the token is not valid here", CHALLENGE)


def bearer_token(authorization: str | None) -> str | None:
    """The token of an `Authorization` header, read as `bearer` reads it: None unless the
    header is `Bearer <token>` (any case) with a token."""
    scheme, token = get_authorization_scheme_param(authorization)
    if not (authorization and scheme and token) or scheme.lower() != "bearer":
        return None
    return token


def read_allowed(settings: ServiceSettings, authorization: str | None) -> bool:
    """Whether `require_read` lets a request with this `Authorization` header (None: none)
    through, for the paths that answer below FastAPI's routing (api/fast_reads.py)."""
    token = bearer_token(authorization)
    if token is None:
        return settings.reads_open
    return _may_read(settings, token)


async def require_admin(request: Request, credentials: Credentials) -> None:
    """Changes: the admin token only."""
    settings = _service(request).settings
    token = _token(credentials)
    admin = settings.admin_token.get_secret_value() if settings.admin_token else None
    if not _matches(token, admin):
        read = settings.read_token.get_secret_value() if settings.read_token else None
        if _matches(token, read):
            raise ProblemError(403, "forbidden", "this needs the admin token")
        raise ProblemError(401, "unauthorized", "the token is not valid here", CHALLENGE)


ReadAccess = Depends(require_read)
AdminAccess = Depends(require_admin)
ServiceDep = Annotated[Service, Depends(service_of)]
