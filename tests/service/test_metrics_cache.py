"""`/metrics` off the scrapes' path (issue 17): the first render is made by the first scrape,
later ones in the background, one at a time, while scrapes get the previous render."""

from __future__ import annotations

import gzip
import threading

from pinchpoint.service.metrics import MetricsInput, SweepCounters, metrics_exposition
from pinchpoint.service.metrics_cache import MetricsCache

OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8"


def _input(sweeps: int) -> MetricsInput:
    return MetricsInput(host="store-01", sweeps=SweepCounters(sweeps=sweeps))


class _Gated:
    """`data` for the cache whose calls wait until let through, counting them."""

    def __init__(self, sweeps: int) -> None:
        self.sweeps = sweeps
        self.calls = 0
        self.started = threading.Event()
        self.go = threading.Event()

    def __call__(self) -> MetricsInput:
        self.calls += 1
        self.started.set()
        assert self.go.wait(10), "the test never let the render through"
        return _input(self.sweeps)


def test_first_render_is_made_by_the_first_scrape() -> None:
    cache = MetricsCache()
    body, content_type = cache.answer("a", lambda: _input(1), None, False)
    assert (body, content_type) == metrics_exposition(_input(1))
    assert b"pinchpoint_sweeps_total 1.0" in body
    assert cache.renders == 1


def test_a_change_is_rendered_once_in_the_background_while_scrapes_get_the_previous() -> None:
    cache = MetricsCache()
    before = cache.answer("a", lambda: _input(1), None, False)[0]
    cache.answer("a", lambda: _input(1), None, True)  # gzip asked for: rendered again too
    gated = _Gated(2)
    during = [cache.answer("b", gated, None, False)[0]]
    assert gated.started.wait(10)
    during += [cache.answer("b", gated, None, False)[0] for _ in range(5)]
    during.append(gzip.decompress(cache.answer("b", gated, None, True)[0]))
    assert during == [before] * 7  # nobody waited for the render, nobody started another
    assert gated.calls == 1
    gated.go.set()
    cache.settle(10)
    after = cache.answer("b", gated, None, False)[0]
    assert after == metrics_exposition(_input(2))[0]
    assert gzip.decompress(cache.answer("b", gated, None, True)[0]) == after  # made with it
    assert gated.calls == 1
    assert cache.renders == 2


def test_a_render_too_old_is_made_again() -> None:
    cache = MetricsCache(max_age_s=-1)  # every render is already too old
    cache.answer("a", lambda: _input(1), None, False)
    assert cache.answer("a", lambda: _input(2), None, False)[0] == metrics_exposition(_input(1))[0]
    cache.settle(10)
    assert cache.answer("a", lambda: _input(3), None, False)[0] == metrics_exposition(_input(2))[0]


def test_a_failed_render_keeps_the_previous_and_the_next_change_tries_again() -> None:
    cache = MetricsCache()
    first = cache.answer("a", lambda: _input(1), None, False)[0]

    def broken() -> MetricsInput:
        raise RuntimeError("the store went away")

    assert cache.answer("b", broken, None, False)[0] == first
    cache.settle(10)
    assert cache.answer("c", lambda: _input(3), None, False)[0] == first
    cache.settle(10)
    assert cache.answer("c", lambda: _input(3), None, False)[0] == metrics_exposition(_input(3))[0]


def test_each_format_from_the_same_render() -> None:
    cache = MetricsCache()
    plain = cache.answer("a", lambda: _input(1), None, False)
    opened = cache.answer("a", lambda: _input(2), OPENMETRICS, False)
    assert plain == metrics_exposition(_input(1))
    assert opened == metrics_exposition(_input(1), OPENMETRICS)  # the render's input, not newer
    assert cache.renders == 2
