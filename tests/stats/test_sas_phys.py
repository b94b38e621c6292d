"""`phy_downgrade`: a phy below what both its ends support, judged once for the rule
`sas.link.downgraded` and the terminal's inventory view."""

from __future__ import annotations

import pytest

from pinchpoint.model.sas import Phy
from pinchpoint.stats.sas_phys import Downgrade, phy_downgrade


def phy(negotiated: float | None, **rates: float | None) -> Phy:
    return Phy(
        id="phy:1",
        name="phy-1:0",
        phy_identifier=0,
        sas_address="0x1",
        negotiated_gbps=negotiated,
        **rates,
    )


def test_a_lane_below_both_ends_is_a_downgrade() -> None:
    slow = phy_downgrade(phy(6.0, maximum_hw_gbps=12.0, far_end_max_gbps=12.0))
    assert slow == Downgrade(negotiated_gbps=6.0, own_max_gbps=12.0, far_end_max_gbps=12.0)
    assert slow is not None and slow.both_gbps == 12.0


def test_a_12g_phy_on_a_6g_far_end_runs_as_designed() -> None:
    assert phy_downgrade(phy(6.0, maximum_hw_gbps=12.0, far_end_max_gbps=6.0)) is None


@pytest.mark.parametrize(
    "unknown",
    [
        {"maximum_hw_gbps": 12.0},  # the far end's maximum unknown
        {"far_end_max_gbps": 12.0},  # this end's maximum unknown
    ],
)
def test_nothing_is_concluded_from_an_unknown_maximum(unknown: dict[str, float]) -> None:
    assert phy_downgrade(phy(6.0, **unknown)) is None


def test_a_phy_without_link_is_not_a_downgrade() -> None:
    assert phy_downgrade(phy(None, maximum_hw_gbps=12.0, far_end_max_gbps=12.0)) is None


def test_the_programmed_maximum_stands_in_for_the_silicon_s() -> None:
    slow = phy_downgrade(phy(3.0, maximum_gbps=6.0, far_end_max_gbps=12.0))
    assert slow is not None and (slow.own_max_gbps, slow.both_gbps) == (6.0, 6.0)
