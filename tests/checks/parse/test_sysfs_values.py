"""Link rates as the SAS and FC transport classes write them."""

from __future__ import annotations

import pytest

from pinchpoint.checks.parse.sysfs_values import parse_linkrate


@pytest.mark.parametrize(
    ("text", "gbps"),
    [
        ("12.0 Gbit", 12.0),
        ("6.0 Gbit\n", 6.0),
        ("1.5 Gbit", 1.5),
        ("22.5 gbit", 22.5),
        ("Unknown", None),
        ("Phy disabled", None),
        ("", None),
        (None, None),
        ("\x00\xff", None),
    ],
)
def test_a_rate_is_read_or_none(text: str | None, gbps: float | None) -> None:
    assert parse_linkrate(text) == gbps
