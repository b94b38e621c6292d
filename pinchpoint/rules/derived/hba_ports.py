"""The HBA-port index: every HBA port of the fabric by id, with its HBA, and the names of the
routes (ports, or targets where a driver shows no ports) enclosures and disks are reached by."""

from __future__ import annotations

from dataclasses import dataclass

from pinchpoint.model.sas import Hba, HbaPort
from pinchpoint.naming import hba_port_ref, sas_route_name
from pinchpoint.rules.base import RuleContext


@dataclass(frozen=True)
class HbaPorts:
    """Every HBA port by id, with its HBA."""

    by_id: dict[str, tuple[Hba, HbaPort]]

    def name(self, route_id: str) -> str:
        """What a technician calls the HBA port a route goes through: board and connector;
        the target, or the raw id, when it is no port of the inventory."""
        if route_id in self.by_id:
            hba, port = self.by_id[route_id]
            return hba_port_ref(hba, port).name
        return sas_route_name(route_id)

    def hba_id(self, route_id: str) -> str:
        """The HBA a route goes through (`hba:…/target:…` routes, where the driver shows no
        ports, carry it before the slash)."""
        if route_id in self.by_id:
            return self.by_id[route_id][0].id
        return route_id.split("/", 1)[0]


def hba_ports(context: RuleContext) -> HbaPorts:
    """The host's HBA ports, indexed."""
    hbas = context.inventory.sas.hbas
    return HbaPorts({port.id: (hba, port) for hba in hbas for port in hba.ports})
