"""/proc/uptime: seconds since boot, or None for anything else."""

from __future__ import annotations

from pinchpoint.checks.parse.uptime import parse_uptime


def test_uptime() -> None:
    assert parse_uptime("31.17 58.02\n") == 31.17
    assert parse_uptime("12345") == 12345.0
    for bad in ("", "   \n", "up 3 days", "-1.00 2.00", "nan 1", "inf 1"):
        assert parse_uptime(bad) is None
