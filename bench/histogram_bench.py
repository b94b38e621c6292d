"""Benchmark: merging 10,000 latency histograms into one (a JBOD's year, a fleet's hour).

Builds N histograms (default 10,000) of two realistic kinds, then measures merging them all
with `pinchpoint.model.histogram.merged`:

* log-normal: each histogram records ~1,000 latencies drawn from a log-normal around 8 ms
  (σ 0.9: a disk with a tail into hundreds of ms);
* zpool-like: each histogram is converted from a `zpool iostat -w` style spread (counts in
  power-of-two nanosecond buckets from 4 µs to 2 s) with `record_range_ns`.

Reports wall time (best and median of several runs), the 99th percentile of the merged result
and the time to compute it, the JSON size of one histogram, and the process's peak RSS.
Prints a Markdown block for docs/benchmarks.md. Never run by the tests.

    python bench/histogram_bench.py [--count 10000] [--runs 7]
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import time
from collections import Counter
from collections.abc import Callable

from machine import machine_line

from pinchpoint.model.histogram import LatencyHistogram, bucket_index, merged


def lognormal_histograms(
    count: int, per_histogram: int, rng: random.Random
) -> list[LatencyHistogram]:
    """`count` histograms of about `per_histogram` log-normal latencies each (median 8 ms).

    The values are bucketed with the histogram's own `bucket_index` and the model is built from
    its fields at once: recording ten million values one call at a time would take minutes."""
    found = []
    for _ in range(count):
        values = [
            round(rng.lognormvariate(-4.83, 0.9) * 1e9)  # e^-4.83 s ≈ 8 ms
            for _ in range(rng.randint(per_histogram // 2, per_histogram * 3 // 2))
        ]
        found.append(
            LatencyHistogram(
                counts=Counter(bucket_index(v) for v in values),
                count=len(values),
                sum_ns=sum(values),
                min_ns=min(values),
                max_ns=max(values),
            )
        )
    return found


def zpool_like_histograms(count: int, rng: random.Random) -> list[LatencyHistogram]:
    """`count` histograms converted from power-of-two buckets, as `zpool iostat -w` prints."""
    found = []
    for _ in range(count):
        histogram = LatencyHistogram()
        peak = rng.randint(20, 24)  # 1–16 ms
        for octave in range(12, 31):  # 4 µs … 2 s
            weight = int(1000 * 2.0 ** (-abs(octave - peak) * 1.3))
            if weight > 0:
                histogram.record_range_ns(1 << octave, 1 << (octave + 1), weight)
        found.append(histogram)
    return found


def timed(step: Callable[[], object], runs: int) -> tuple[float, float, object]:
    """Best and median wall time of `runs` calls, and the last result."""
    times = []
    result: object = None
    for _ in range(runs):
        start = time.perf_counter()
        result = step()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times), result


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--per-histogram", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(4)
    rss_start = peak_rss_mib()
    start = time.perf_counter()
    lognormal = lognormal_histograms(args.count, args.per_histogram, rng)
    built_s = time.perf_counter() - start
    zpool_like = zpool_like_histograms(args.count, rng)
    rss_built = peak_rss_mib()
    rows = []
    for label, histograms in (("log-normal", lognormal), ("zpool-like", zpool_like)):
        buckets = statistics.mean(len(h.counts) for h in histograms)
        best, median, result = timed(lambda hs=histograms: merged(hs), args.runs)  # type: ignore[misc]
        assert isinstance(result, LatencyHistogram)
        assert result.count == sum(h.count for h in histograms)
        p_best, _, p99 = timed(lambda r=result: r.percentile_s(99.0), args.runs)  # type: ignore[misc]
        assert isinstance(p99, float)
        size = statistics.mean(len(h.model_dump_json()) for h in histograms[:200])
        rows.append(
            f"| {label} | {args.count:,} | {buckets:.0f} | {result.count:,} | "
            f"**{best * 1000:.1f} ms** | {median * 1000:.1f} ms | {p99 * 1000:.2f} ms | "
            f"{p_best * 1e6:.0f} µs | {size:.0f} B |"
        )
    print(f"Machine: {machine_line()}.")
    print(
        f"Built {args.count:,} log-normal histograms ({args.per_histogram:,} ± 50% latencies "
        f"each) in {built_s:.1f} s; peak RSS {rss_start:.0f} MiB at start, {rss_built:.0f} MiB "
        f"with all {2 * args.count:,} histograms built, {peak_rss_mib():.0f} MiB at the end."
    )
    print()
    print(
        "| histograms | count | buckets each (mean) | I/Os merged | merge best | merge median "
        "| p99 of the result | p99 time | JSON each |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        print(row)


if __name__ == "__main__":
    main()
