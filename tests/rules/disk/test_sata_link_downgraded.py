"""`disk.sata_link.downgraded` on real smartctl outputs of SATA links at 3 of 6 Gb/s."""

from __future__ import annotations

import pytest

from tests.rules.disk.conftest import (
    LINK_3_OF_6,
    LINK_AND_REALLOC,
    health,
    run,
)


@pytest.mark.parametrize("name", [LINK_3_OF_6, LINK_AND_REALLOC])
def test_a_sata_link_at_3_of_6_gbps_is_downgraded(name: str) -> None:
    findings, _ = run([health(name)])
    link = [f for f in findings if f.rule == "disk.sata_link.downgraded"]
    assert len(link) == 1
    facts = {f.name: f.value for f in link[0].evidence[0].facts}
    assert facts == {"link speed": 3.0, "drive's maximum": 6.0}
    assert "the host end's maximum is not known" in link[0].evidence[0].summary
