"""Fleet facts of one host (`model/fleet.py`): its physical NICs by model with their link, and
its devices by full model identity with their firmware, taken from its inventory once (when the
report is pushed) so that the fleet rules compare hosts without their inventories."""

from __future__ import annotations

from collections.abc import Mapping

from pinchpoint.model.fleet import FleetFacts, FleetModel, FleetNic, FleetUnit, HostFleetFacts
from pinchpoint.model.inventory import Inventory
from pinchpoint.naming import host_ref, nic_ref
from pinchpoint.rules.derived.firmware import firmware_units
from pinchpoint.rules.derived.nics import nic_model_key


def host_fleet_facts(host: str, inventory: Inventory) -> HostFleetFacts:
    """The facts the fleet rules need of `host`, from its newest inventory."""
    nics = []
    for position, nic in enumerate(inventory.network.nics):
        key = nic_model_key(nic, inventory)
        if key is None:
            continue
        nics.append(
            FleetNic(
                host=host,
                position=position,
                id=nic.id,
                driver=key[0],
                model=key[1],
                speed_mbps=nic.speed_mbps,
                operstate=nic.operstate,
                carrier=nic.carrier,
                ref=nic_ref(nic, inventory),
            )
        )
    models: dict[tuple[str, tuple[str, ...]], FleetModel] = {}
    whole = host_ref(inventory)
    for unit in firmware_units(inventory):
        group = models.get((unit.kind, unit.identity))
        if group is None:
            group = models[(unit.kind, unit.identity)] = FleetModel(
                host=host, host_ref=whole, kind=unit.kind, identity=unit.identity, units=[]
            )
        group.units.append(
            FleetUnit(
                kind=unit.kind,
                model=unit.model,
                firmware=unit.firmware,
                ref=unit.ref,
                name=unit.name,
            )
        )
    return HostFleetFacts(host=host, nics=nics, models=list(models.values()))


def fleet_facts(hosts: Mapping[str, Inventory]) -> FleetFacts:
    """The fleet facts of every host in `hosts` (by host name), as the fleet rules take them."""
    return FleetFacts.joined([host_fleet_facts(name, inv) for name, inv in hosts.items()])
