"""`/metrics` served from memory: the exposition rendered once per change of what it shows (a
new view, a sampler tick, a sweep starting or ending, a counter moving) and kept in each format
asked for, plain and gzip-compressed. A render of the 1,920-path host costs ~30 ms quiet and
over 100 ms on a loaded machine, and the sampler's tick changes what it shows every second, so
a render never runs on a scrape's path once there is one to serve:

- the very first render is made by the first scrape (there is nothing else to answer with);
- after that, the first scrape to see a changed key starts one render in the background
  (single flight: never two at once) and every scrape, that one included, gets the previous
  render until the new one is swapped in whole, in every format and compression asked for so far.

So an answer is at most one render behind what changed: it is never older than the time since
the change before last plus one render (a fraction of a second at one tick a second), and a
render older than `MAX_AGE_S` is made anew in the background too. Values that move between
renders without a change of the key (how long the running sweep has run, mutes expiring) are
as of their render.
"""

from __future__ import annotations

import gzip
import logging
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4, choose_encoder

from pinchpoint.service.metrics import MetricsInput, accepts_text_format, metrics_exposition

log = logging.getLogger(__name__)

MAX_AGE_S = 10.0  # a render older than this is made anew (in the background) on the next scrape

Wanted = tuple[str, bool]  # a content type, and whether gzip-compressed


@dataclass
class _Rendered:
    """One render's input and its answers, by format and compression."""

    key: Hashable
    made_at: float
    data: MetricsInput
    answers: dict[Wanted, tuple[bytes, str]] = field(default_factory=dict)
    accepts: dict[str, str | None] = field(default_factory=dict)  # content type → an Accept


def _format(accept: str | None) -> str:
    """The content type `accept` gets (a few values, whatever the header: the cache of one
    render stays small)."""
    if accepts_text_format(accept):
        return CONTENT_TYPE_PLAIN_0_0_4
    return choose_encoder(accept or "")[1]


def _answer(rendered: _Rendered, wanted: Wanted, accept: str | None) -> tuple[bytes, str]:
    """The answer of `rendered` in `wanted`'s format and compression, made from its input when
    not made yet (and kept)."""
    found = rendered.answers.get(wanted)
    if found is not None:
        return found
    content_type, gzipped = wanted
    plain = rendered.answers.get((content_type, False))
    if plain is None:
        plain = rendered.answers[(content_type, False)] = metrics_exposition(rendered.data, accept)
        rendered.accepts[content_type] = accept
    if not gzipped:
        return plain
    body, content_type = plain
    found = rendered.answers[wanted] = (gzip.compress(body, compresslevel=6, mtime=0), content_type)
    return found


class MetricsCache:
    """The newest render of `/metrics`, made again off the scrapes' path when its key changes."""

    def __init__(self, max_age_s: float = MAX_AGE_S) -> None:
        self.max_age_s = max_age_s
        self.renders = 0  # expositions rendered, one per input and format (tests count them)
        self._lock = threading.Lock()  # held to read or swap `_rendered`, never for a render
        self._first = threading.Lock()  # held by the first render ever, which scrapes wait for
        self._rendered: _Rendered | None = None
        self._rendering: threading.Thread | None = None  # the render in the background, if any

    def answer(
        self,
        key: Hashable,
        data: Callable[[], MetricsInput],
        accept: str | None,
        gzipped: bool,
    ) -> tuple[bytes, str]:
        """The exposition for `accept` (gzip-compressed when `gzipped`) and its content type:
        the newest render, made anew in the background when `key` changed or it is too old."""
        wanted = (_format(accept), gzipped)
        first = self._first_render(key, data, accept, wanted) if self._rendered is None else None
        if first is not None:
            return first.answers[wanted]
        with self._lock:
            rendered = self._rendered
            assert rendered is not None  # made by the first scrape, only ever replaced
            stale = rendered.key != key or time.monotonic() - rendered.made_at > self.max_age_s
            if stale and self._rendering is None:
                self._rendering = threading.Thread(
                    target=self._render, args=(key, data), name="metrics-render", daemon=True
                )
                self._rendering.start()
            if (wanted[0], False) not in rendered.answers:  # a format not asked for before
                self.renders += 1
            return _answer(rendered, wanted, accept)  # made once, kept with its render

    def _first_render(
        self, key: Hashable, data: Callable[[], MetricsInput], accept: str | None, wanted: Wanted
    ) -> _Rendered | None:
        """The first render ever, in `wanted`'s format, made by the scrape that finds none (the
        others wait for it and get None: they take it from the cache)."""
        with self._first:
            if self._rendered is not None:
                return None
            rendered = _Rendered(key, time.monotonic(), data())
            _answer(rendered, wanted, accept)
            with self._lock:
                self.renders += 1
                self._rendered = rendered
            return rendered

    def _render(self, key: Hashable, data: Callable[[], MetricsInput]) -> None:
        """Render `data()` in every format and compression the previous render was asked for,
        then swap it in (the background thread's work)."""
        try:
            with self._lock:
                previous = self._rendered
                asked = list(previous.answers) if previous is not None else []
                accepts = dict(previous.accepts) if previous is not None else {}
            rendered = _Rendered(key, time.monotonic(), data())
            for wanted in asked:
                _answer(rendered, wanted, accepts.get(wanted[0]))
            with self._lock:
                self.renders += len(rendered.accepts)
                self._rendered = rendered
        except Exception:  # the previous render stays served; the next change tries again
            log.exception("/metrics: rendering the exposition failed")
        finally:
            with self._lock:
                self._rendering = None

    def settle(self, timeout_s: float | None = None) -> None:
        """Wait for the render in the background, if one runs (tests; shutdown)."""
        with self._lock:
            rendering = self._rendering
        if rendering is not None:
            rendering.join(timeout_s)
