"""`/metrics` served from memory: the exposition rendered once per change of what it shows (a
new view, a sampler tick, a sweep starting or ending, a counter moving) and kept in each format
asked for, plain and gzip-compressed. A render of the 1,920-path host costs ~30 ms and 600 kB;
a scrape answered from memory costs neither.

Values that move between renders without a change of the key (how long the running sweep has
run, mutes expiring) are as of the render, which is never older than `MAX_AGE_S`.
"""

from __future__ import annotations

import gzip
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4, choose_encoder

from pinchpoint.service.metrics import MetricsInput, accepts_text_format, metrics_exposition

MAX_AGE_S = 10.0  # a render older than this is made anew on the next scrape


@dataclass
class _Rendered:
    """One render's answers, by format and compression."""

    key: Hashable
    made_at: float
    answers: dict[tuple[str, bool], tuple[bytes, str]] = field(default_factory=dict)


def _format(accept: str | None) -> str:
    """The content type `accept` gets (a few values, whatever the header: the cache of one
    render stays small)."""
    if accepts_text_format(accept):
        return CONTENT_TYPE_PLAIN_0_0_4
    return choose_encoder(accept or "")[1]


class MetricsCache:
    """The newest render of `/metrics`; one scrape renders while the others wait for it."""

    def __init__(self, max_age_s: float = MAX_AGE_S) -> None:
        self.max_age_s = max_age_s
        self.renders = 0  # expositions rendered (tests count them)
        self._lock = threading.Lock()
        self._rendered: _Rendered | None = None

    def answer(
        self,
        key: Hashable,
        data: Callable[[], MetricsInput],
        accept: str | None,
        gzipped: bool,
    ) -> tuple[bytes, str]:
        """The exposition for `accept` (gzip-compressed when `gzipped`) and its content type,
        rendered from `data()` only when `key` changed or the last render is too old."""
        wanted = (_format(accept), gzipped)
        with self._lock:  # a render is ~30 ms: scrapes arriving meanwhile wait for it
            now = time.monotonic()
            rendered = self._rendered
            if rendered is None or rendered.key != key or now - rendered.made_at > self.max_age_s:
                rendered = self._rendered = _Rendered(key, now)
            found = rendered.answers.get(wanted)
            if found is None:
                plain = rendered.answers.get((wanted[0], False))
                if plain is None:
                    plain = rendered.answers[(wanted[0], False)] = metrics_exposition(
                        data(), accept
                    )
                    self.renders += 1
                found = plain
                if gzipped:
                    body, content_type = plain
                    found = rendered.answers[wanted] = (
                        gzip.compress(body, compresslevel=6, mtime=0),
                        content_type,
                    )
            return found
