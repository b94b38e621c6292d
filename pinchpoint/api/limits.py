"""A ceiling on request bodies, enforced before a route reads them: by `Content-Length` when
the client sends it, and by counting while the body streams in when it does not."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pinchpoint.api.problems import BodyTooLargeError, problem_response


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
