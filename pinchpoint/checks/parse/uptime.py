"""`/proc/uptime`: seconds since boot, the clock a snapshot's samples are timed with."""

from __future__ import annotations

import math

__all__ = ["UPTIME", "parse_uptime"]

UPTIME = "/proc/uptime"


def parse_uptime(text: str) -> float | None:
    """Seconds since boot, the first number of `/proc/uptime`; None when it is not one."""
    words = text.split()
    if not words:
        return None
    try:
        value = float(words[0])
    except ValueError:
        return None
    if not math.isfinite(value) or value < 0:
        return None
    return value
