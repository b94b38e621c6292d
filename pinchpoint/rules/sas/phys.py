"""Every phy of the SAS fabric with the name findings give it."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.findings import EntityRef
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.sas import Phy
from pinchpoint.naming import expander_phy_ref, hba_phy_ref


def phys_with_refs(inventory: Inventory) -> Iterator[tuple[Phy, EntityRef]]:
    """Every phy of the fabric (HBA ports, idle HBA phys, expanders) with its entity ref."""
    for hba in inventory.sas.hbas:
        for port in hba.ports:
            for phy in port.phys:
                yield phy, hba_phy_ref(hba, phy)
        for phy in hba.idle_phys:
            yield phy, hba_phy_ref(hba, phy)
    for expander in inventory.sas.expanders:
        for phy in expander.phys:
            yield phy, expander_phy_ref(expander, phy, inventory)
