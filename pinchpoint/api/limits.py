"""Ceilings on request bodies, enforced before a route reads them: their size (by `Content-Length`
when the client sends it, and by counting while the body streams in when it does not) and the
nesting depth of JSON bodies."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pinchpoint.api.problems import BodyTooLargeError, problem_response
from pinchpoint.checks.parse.json_text import MAX_JSON_DEPTH, json_too_deep


class BodyLimit:
    """ASGI middleware: at most `default_bytes` per body, `upload_bytes` under `upload_prefixes`."""

    def __init__(
        self,
        app: ASGIApp,
        default_bytes: int,
        upload_bytes: int,
        upload_prefixes: tuple[str, ...] = ("/v1/snapshots", "/v1/stats"),
    ) -> None:
        self.app = app
        self.default_bytes = default_bytes
        self.upload_bytes = upload_bytes
        self.upload_prefixes = upload_prefixes

    def _limit(self, path: str) -> int:
        if path.startswith(self.upload_prefixes):
            return self.upload_bytes
        return self.default_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self._limit(scope.get("path", ""))
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = -1
                if declared < 0 or declared > limit:
                    response = problem_response(
                        413 if declared > limit else 400,
                        f"the body may hold at most {limit:,} bytes"
                        if declared > limit
                        else "Content-Length is not a number",
                        "body-too-large" if declared > limit else "bad-content-length",
                    )
                    await response(scope, receive, send)
                    return
        received = 0
        started = False

        async def counted_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLargeError(limit)
            return message

        async def tracked_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted_receive, tracked_send)
        except BodyTooLargeError:
            if not started:
                response = problem_response(
                    413, f"the body may hold at most {limit:,} bytes", "body-too-large"
                )
                await response(scope, receive, send)


def _declares_json(scope: Scope) -> bool:
    for name, value in scope.get("headers", []):
        if name == b"content-type":
            media: bytes = value.split(b";", 1)[0].strip().lower()
            return media == b"application/json" or media.endswith(b"+json")
    return False


class JsonDepthLimit:
    """ASGI middleware: a JSON body nested deeper than `max_depth` is answered with 400 before
    any route decodes it (the decoder and the validators recurse once per level: 100,000 `[`
    would raise `RecursionError` inside them). Runs inside `BodyLimit`, so the body it holds
    in memory to measure is already capped."""

    def __init__(self, app: ASGIApp, max_depth: int = MAX_JSON_DEPTH) -> None:
        self.app = app
        self.max_depth = max_depth

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _declares_json(scope):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if json_too_deep(body, self.max_depth):
            response = problem_response(
                400,
                f"body: the JSON nests deeper than {self.max_depth} levels",
                "json-too-deep",
            )
            await response(scope, receive, send)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)
