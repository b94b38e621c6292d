"""Is a SAS phy running below its capability? Judged once, here, for the rule
`sas.link.downgraded` and for the inventory drawn on a terminal.

A phy runs below its capability when it negotiated less than both its own maximum and its far
end's maximum allow. A rate below its own maximum alone is no fault: a 12 Gbit/s HBA phy on a
6 Gbit/s expander runs at 6 by design. Where the far end's maximum is unknown nothing is
concluded."""

from __future__ import annotations

from dataclasses import dataclass

from pinchpoint.model.sas import Phy


@dataclass(frozen=True)
class Downgrade:
    """A phy's negotiated rate against what it and its far end can do, in Gbit/s."""

    negotiated_gbps: float
    own_max_gbps: float  # the silicon's maximum, else the programmed one
    far_end_max_gbps: float

    @property
    def both_gbps(self) -> float:
        """The fastest both ends can do: what the lane should run at."""
        return min(self.own_max_gbps, self.far_end_max_gbps)


def phy_downgrade(phy: Phy) -> Downgrade | None:
    """How far `phy` runs below what both its ends support; None when it does not, or when
    its rate, its own maximum or its far end's maximum is unknown."""
    own = phy.maximum_hw_gbps or phy.maximum_gbps
    negotiated, far_end = phy.negotiated_gbps, phy.far_end_max_gbps
    if negotiated is None or own is None or far_end is None:
        return None
    if negotiated >= min(own, far_end):
        return None
    return Downgrade(negotiated, own, far_end)
