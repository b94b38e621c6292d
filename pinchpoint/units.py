"""Rates, capacities, latencies and link speeds in words: the one convention of every view.

- Rates in SI: `kB/s`, `MB/s`, `GB/s` (10³ steps), as `iostat --si` and fio's "MB/s" print.
- Capacities in IEC: `KiB`, `MiB`, `GiB`, `TiB`, `PiB` (2¹⁰ steps), as `lsblk` and ZFS print.
- Latencies in the unit their magnitude calls for: `850 µs`, `12.4 ms`, `1.25 s`.
- Link speeds in bits, SI: `100 Mb/s`, `25 Gb/s` (what ethtool, SAS and FC negotiate).

Every number shows three significant digits (no fewer than its integer part), with `,`
between thousands: `12.4 ms`, `931 GiB`, `1,250 MB/s`. The web view's `static/js/units.js`
follows the same rules; the API carries base units with the unit in the field name (`_bytes`,
`_us`, `_ms`, `_mbps`, `mb_s`), and these functions say them in words. Each takes `None` for
a figure not known and says `—`.

This module imports nothing of ours: every layer may use it.
"""

from __future__ import annotations

import math

UNKNOWN = "—"

RATE_STEPS = ("B/s", "kB/s", "MB/s", "GB/s", "TB/s")
CAPACITY_STEPS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")
LINK_STEPS = ("Mb/s", "Gb/s", "Tb/s")

BYTES_PER_MB = 1_000_000
BYTES_PER_KIB = 1024
# The kernel's and iostat's "kB" are KiB: 976.5625 of them make one MB (SI), exactly in binary.
KIB_PER_MB = BYTES_PER_MB / BYTES_PER_KIB


def significant(value: float) -> str:
    """`value` with three significant digits, none dropped from its integer part: `0.0312`,
    `1.25`, `12.4`, `931`, `1,250`."""
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else str(value)
    magnitude = math.floor(math.log10(abs(value)))
    decimals = max(0, 2 - magnitude)
    text = f"{value:,.{decimals}f}"
    if decimals and "." in text:  # 2.50 → 2.5, 3.00 → 3: trailing zeros say nothing
        text = text.rstrip("0").rstrip(".")
    return text


def _stepped(value: float, steps: tuple[str, ...], base: float) -> str:
    """`value` (in the first step's unit) in the largest step that keeps it at least 1, rounded
    to three significant digits (a rounding that reaches `base` moves on a step)."""
    index = 0
    while index < len(steps) - 1 and abs(value) >= base:
        value /= base
        index += 1
    shown = significant(value)
    if index < len(steps) - 1 and abs(float(shown.replace(",", ""))) >= base:
        value /= base
        index += 1
        shown = significant(value)
    return f"{shown} {steps[index]}"


def rate_text(bytes_per_s: float | None) -> str:
    """A transfer rate in SI steps: `512 B/s`, `12.3 MB/s`, `1.1 GB/s`."""
    if bytes_per_s is None or not math.isfinite(bytes_per_s):
        return UNKNOWN
    return _stepped(bytes_per_s, RATE_STEPS, 1000.0)


def mb_s_text(mb_per_s: float | None) -> str:
    """A rate given in MB/s (SI), in words as `rate_text` says it."""
    return UNKNOWN if mb_per_s is None else rate_text(mb_per_s * BYTES_PER_MB)


def capacity_text(size_bytes: float | None) -> str:
    """A capacity in IEC steps: `512 B`, `931 GiB`, `7.28 TiB`; unknown (None or 0) is `—`."""
    if not size_bytes or not math.isfinite(size_bytes):
        return UNKNOWN
    return _stepped(size_bytes, CAPACITY_STEPS, float(BYTES_PER_KIB))


def latency_text(seconds: float | None) -> str:
    """A latency in the unit its magnitude calls for: `850 µs`, `12.4 ms`, `1.25 s`."""
    if seconds is None or not math.isfinite(seconds):
        return UNKNOWN
    microseconds = seconds * 1e6
    if abs(microseconds) < 999.5:  # what rounds to 1,000 µs is 1 ms
        return f"{significant(microseconds)} µs"
    milliseconds = seconds * 1e3
    if abs(milliseconds) < 999.5:
        return f"{significant(milliseconds)} ms"
    return f"{significant(seconds)} s"


def latency_ms_text(milliseconds: float | None) -> str:
    """A latency given in milliseconds, in words as `latency_text` says it."""
    return UNKNOWN if milliseconds is None else latency_text(milliseconds / 1e3)


def latency_us_text(microseconds: float | None) -> str:
    """A latency given in microseconds, in words as `latency_text` says it."""
    return UNKNOWN if microseconds is None else latency_text(microseconds / 1e6)


_LATENCY_UNITS = {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "us": 1e-6, "ns": 1e-9}


def quantity_text(value: float | None, unit: str | None, *, latency: bool = True) -> str:
    """A figure with its unit, as every view says it: a latency (`ms`, `µs`) by its magnitude
    (`6.05 s`, not `6,049.2 ms`), a rate in `MB/s` SI-stepped, anything else as
    `12.3 I/Os`; `latency=False` keeps seconds as they are (an interval, not a latency)."""
    if value is None or not math.isfinite(value):
        return UNKNOWN
    if unit in _LATENCY_UNITS and (latency or unit != "s"):
        return latency_text(value * _LATENCY_UNITS[unit])
    if unit == "MB/s":
        return mb_s_text(value)
    if unit in ("Mb/s", "Gb/s"):
        return link_speed_text(value * (1000 if unit == "Gb/s" else 1))
    shown = f"{value:,.0f}" if float(value).is_integer() else significant(value)
    return f"{shown} {unit}" if unit else shown


def link_speed_text(mbps: float | None) -> str:
    """A negotiated link speed in bits per second, SI: `100 Mb/s`, `10 Gb/s`, `12 Gb/s`."""
    if mbps is None or not math.isfinite(mbps) or mbps <= 0:
        return UNKNOWN
    return _stepped(mbps, LINK_STEPS, 1000.0)


def gbps_text(gbps: float | None) -> str:
    """A link speed given in Gb/s (SAS, FC), in words as `link_speed_text` says it."""
    return UNKNOWN if gbps is None else link_speed_text(gbps * 1000)
