"""Latency kept as a distribution: one mergeable log-linear histogram for every source.

Averages hide the 0.3% of I/Os that take half a second (field case 6), so pinchpoint keeps
latency as counts per bucket. The buckets are HDR-style log-linear: each power-of-two octave of
nanoseconds is cut into 8 equal sub-buckets, so a bucket is at most 12.5% wide relative to its
value — about 0.13 µs wide near 1 µs, 0.13 ms near 1 ms, 0.13 s near 1 s. Octaves start at
2^10 ns (1.024 µs) and end at 2^38 ns (275 s); one bucket holds everything faster and one
everything slower. The octaves line up with the power-of-two nanosecond buckets of
`zpool iostat -w`, so ZFS histograms convert without smearing across octaves.

Every histogram uses this one scheme, so merging (a JBOD from its disks, an hour from its
seconds) is adding counts bucket by bucket, and the result is exact.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from pydantic import BaseModel, Field, field_validator

SUB_BUCKET_BITS = 3
SUB_BUCKETS = 1 << SUB_BUCKET_BITS  # linear steps per octave
FIRST_OCTAVE = 10  # 2^10 ns = 1.024 µs: below it, one "faster than" bucket
LAST_OCTAVE = 37  # the last octave ends at 2^38 ns ≈ 275 s: above it, one "slower than" bucket
UNDERFLOW_BUCKET = 0
OVERFLOW_BUCKET = 1 + (LAST_OCTAVE - FIRST_OCTAVE + 1) * SUB_BUCKETS
BUCKET_COUNT = OVERFLOW_BUCKET + 1
LOWEST_NS = 1 << FIRST_OCTAVE
HIGHEST_NS = 1 << (LAST_OCTAVE + 1)
NS_PER_S = 1_000_000_000


def bucket_index(value_ns: int) -> int:
    """The bucket a latency of `value_ns` nanoseconds falls in."""
    if value_ns < LOWEST_NS:
        return UNDERFLOW_BUCKET
    octave = value_ns.bit_length() - 1
    if octave > LAST_OCTAVE:
        return OVERFLOW_BUCKET
    sub = (value_ns >> (octave - SUB_BUCKET_BITS)) & (SUB_BUCKETS - 1)
    return 1 + (octave - FIRST_OCTAVE) * SUB_BUCKETS + sub


def bucket_bounds_ns(index: int) -> tuple[int, int | None]:
    """[low, high) of a bucket in nanoseconds; the overflow bucket has no upper bound."""
    if index == UNDERFLOW_BUCKET:
        return 0, LOWEST_NS
    if index >= OVERFLOW_BUCKET:
        return HIGHEST_NS, None
    octave = FIRST_OCTAVE + (index - 1) // SUB_BUCKETS
    sub = (index - 1) % SUB_BUCKETS
    width = 1 << (octave - SUB_BUCKET_BITS)
    low = (1 << octave) + sub * width
    return low, low + width


def range_midpoint_ns(low_ns: int, high_ns: int) -> int:
    """Where I/Os known only to lie in [low_ns, high_ns) are placed: the range's geometric
    midpoint (a bucket of another tool's histogram, e.g. `zpool iostat -w`)."""
    low = max(1, low_ns)
    high = max(low + 1, high_ns)
    return round(math.sqrt(low * high))


def seconds_to_ns(value_s: float) -> int:
    """Seconds to whole nanoseconds; negative and NaN latencies are clamped to zero, absurdly
    long ones (a garbled counter, infinity) to the start of the open-ended slowest bucket."""
    if not value_s > 0:
        return 0
    value_ns = value_s * NS_PER_S
    if value_ns >= HIGHEST_NS:
        return HIGHEST_NS
    return round(value_ns)


def _checked_counts(counts: Mapping[int, int]) -> dict[int, int]:
    """Stored or received histograms must use this scheme's buckets: an index outside it or a
    negative count is refused, empty buckets are dropped."""
    for index, count in counts.items():
        if not 0 <= index < BUCKET_COUNT:
            raise ValueError(f"bucket {index} is outside 0–{BUCKET_COUNT - 1}")
        if count < 0:
            raise ValueError(f"bucket {index} has a negative count ({count})")
    return {index: count for index, count in counts.items() if count}


class HistogramBucket(BaseModel):
    """One bucket as a heat map or a table shows it, in seconds."""

    low_s: float
    high_s: float | None  # None: the open-ended slowest bucket
    count: int


class LatencyHistogram(BaseModel):
    """Counts of I/Os per latency bucket, with the exact count, sum, minimum and maximum.

    `counts` is sparse (bucket index → count, only non-zero buckets), so an idle disk's
    histogram costs a few bytes in a report and in the store.
    """

    counts: dict[int, int] = Field(default_factory=dict)
    count: int = 0
    sum_ns: int = 0  # exact when recorded from values; bucket midpoints when converted
    min_ns: int | None = None
    max_ns: int | None = None

    @field_validator("counts")
    @classmethod
    def _valid_counts(cls, counts: dict[int, int]) -> dict[int, int]:
        return _checked_counts(counts)

    @classmethod
    def from_counts(
        cls, counts: Mapping[int, int], sum_ns: int, min_ns: int | None, max_ns: int | None
    ) -> LatencyHistogram:
        """A histogram from bucket counts already summed elsewhere (an importer, a merge):
        checked once and built once, far cheaper than recording them one by one. `count` is
        the sum of `counts`; a ValueError for a bucket outside the scheme or a negative count."""
        checked = _checked_counts(counts)
        # What `model_construct` makes, without its walk over the fields and their defaults
        # (every field is given here): a 1,920-path host's zpool histograms are 16,000 of
        # these, and `model_construct` was a third of their parsing.
        built = cls.__new__(cls)
        _set = object.__setattr__
        _set(
            built,
            "__dict__",
            {
                "counts": checked,
                "count": sum(checked.values()),
                "sum_ns": sum_ns,
                "min_ns": min_ns,
                "max_ns": max_ns,
            },
        )
        _set(built, "__pydantic_fields_set__", set(_FIELDS))
        _set(built, "__pydantic_extra__", None)
        _set(built, "__pydantic_private__", None)
        return built

    # -- building --------------------------------------------------------------------------

    def record_ns(self, value_ns: int, count: int = 1) -> None:
        """Add `count` I/Os that each took `value_ns` nanoseconds."""
        if count <= 0:
            return
        value_ns = max(0, int(value_ns))
        index = bucket_index(value_ns)
        self.counts[index] = self.counts.get(index, 0) + count
        self.count += count
        self.sum_ns += value_ns * count
        self.min_ns = value_ns if self.min_ns is None else min(self.min_ns, value_ns)
        self.max_ns = value_ns if self.max_ns is None else max(self.max_ns, value_ns)

    def record_seconds(self, value_s: float, count: int = 1) -> None:
        """Add `count` I/Os that each took `value_s` seconds."""
        self.record_ns(seconds_to_ns(value_s), count)

    def record_range_ns(self, low_ns: int, high_ns: int, count: int) -> None:
        """Add `count` I/Os known only to lie in [low_ns, high_ns), e.g. a bucket of another
        tool's histogram: they are placed at the range's geometric midpoint."""
        if count <= 0:
            return
        self.record_ns(range_midpoint_ns(low_ns, high_ns), count)

    def merge_from(self, other: LatencyHistogram) -> None:
        """Add every I/O of `other` to this histogram (in place)."""
        if other.count == 0:
            return
        counts = self.counts
        for index, count in other.counts.items():
            counts[index] = counts.get(index, 0) + count
        self.count += other.count
        self.sum_ns += other.sum_ns
        if other.min_ns is not None:
            self.min_ns = other.min_ns if self.min_ns is None else min(self.min_ns, other.min_ns)
        if other.max_ns is not None:
            self.max_ns = other.max_ns if self.max_ns is None else max(self.max_ns, other.max_ns)

    # -- reading ---------------------------------------------------------------------------

    @property
    def empty(self) -> bool:
        return self.count == 0

    def mean_s(self) -> float | None:
        """Mean latency in seconds; None for a histogram with no samples."""
        return None if self.count == 0 else self.sum_ns / self.count / NS_PER_S

    def max_s(self) -> float | None:
        return None if self.max_ns is None else self.max_ns / NS_PER_S

    def min_s(self) -> float | None:
        return None if self.min_ns is None else self.min_ns / NS_PER_S

    def percentile_s(self, percent: float) -> float | None:
        """The latency below which `percent`% of I/Os fall, interpolated linearly inside its
        bucket and kept within the recorded minimum and maximum; None with no samples."""
        if self.count == 0:
            return None
        percent = min(100.0, max(0.0, percent))
        rank = percent / 100.0 * self.count
        seen = 0
        for index in sorted(self.counts):
            count = self.counts[index]
            if seen + count >= rank and count > 0:
                low, high = bucket_bounds_ns(index)
                if self.min_ns is not None:
                    low = max(low, self.min_ns)
                high_ns = high if high is not None else self.max_ns
                if self.max_ns is not None:
                    high_ns = self.max_ns if high_ns is None else min(high_ns, self.max_ns)
                high_ns = low if high_ns is None else max(high_ns, low)
                fraction = (rank - seen) / count
                return (low + fraction * (high_ns - low)) / NS_PER_S
            seen += count
        return self.max_s()

    def share_above(self, threshold_s: float) -> float | None:
        """The fraction of I/Os slower than `threshold_s` (0.0–1.0), interpolated inside the
        bucket that holds the threshold; None with no samples."""
        if self.count == 0:
            return None
        threshold = seconds_to_ns(threshold_s)
        slower = 0.0
        for index, count in self.counts.items():
            low, high = bucket_bounds_ns(index)
            if low >= threshold:
                slower += count
            elif high is not None and high > threshold:
                slower += count * (high - threshold) / (high - low)
            elif high is None:
                slower += count
        return min(1.0, slower / self.count)

    def count_above(self, threshold_s: float) -> float:
        """The number of I/Os slower than `threshold_s` (interpolated, so possibly fractional)."""
        share = self.share_above(threshold_s)
        return 0.0 if share is None else share * self.count

    def buckets(self) -> list[HistogramBucket]:
        """The non-empty buckets from fastest to slowest, in seconds."""
        rows = []
        for index in sorted(self.counts):
            low, high = bucket_bounds_ns(index)
            rows.append(
                HistogramBucket(
                    low_s=low / NS_PER_S,
                    high_s=None if high is None else high / NS_PER_S,
                    count=self.counts[index],
                )
            )
        return rows


_FIELDS = ("counts", "count", "sum_ns", "min_ns", "max_ns")  # every field: tests/model


def merged(histograms: Iterable[LatencyHistogram]) -> LatencyHistogram:
    """One histogram holding every I/O of `histograms` (a JBOD from its disks, an hour from
    its minutes).

    Sums into plain locals and builds the model once at the end: setting a pydantic model's
    fields per input costs more than adding its few dozen bucket counts. Bucket indices are
    valid by construction (`_valid_counts`), so they index a list directly."""
    totals = [0] * BUCKET_COUNT  # a list indexes faster than a dict grows
    count = 0
    sum_ns = 0
    lows: list[int] = []
    highs: list[int] = []
    for histogram in histograms:
        if histogram.count == 0:
            continue
        for index, n in histogram.counts.items():
            totals[index] += n
        count += histogram.count
        sum_ns += histogram.sum_ns
        if histogram.min_ns is not None:
            lows.append(histogram.min_ns)
        if histogram.max_ns is not None:
            highs.append(histogram.max_ns)
    return LatencyHistogram.model_construct(
        counts={index: n for index, n in enumerate(totals) if n},
        count=count,
        sum_ns=sum_ns,
        min_ns=min(lows, default=None),
        max_ns=max(highs, default=None),
    )
