"""Fleet facts: the few facts of each host that the fleet rules compare across hosts (a NIC's
model and speed, the firmware of each device model), small enough to be kept as rows when a
report is pushed, so that a central service never reads whole inventories to compare hosts.

`pinchpoint/rules/derived/fleet_facts.py` takes them from an inventory; the store keeps them
per host and per group (`docs/store.md`, table `fleet_facts`)."""

from __future__ import annotations

from pydantic import BaseModel

from pinchpoint.model.findings import EntityRef


class FleetNic(BaseModel):
    """One physical NIC of a host as the fleet compares it: its model, its link, its name."""

    host: str  # the host name the store keeps it under
    position: int  # its place among the host's NICs (peers are named in the hosts' order)
    id: str  # the NIC's id on its host (its permanent MAC)
    driver: str
    model: str  # the PCI model (vendor:device), else the fastest speed it supports
    speed_mbps: int | None = None
    operstate: str | None = None
    carrier: bool | None = None
    ref: EntityRef  # `eno1 on store01`


class FleetUnit(BaseModel):
    """One device with a known model and firmware level (`rules/derived/firmware.Unit`)."""

    kind: str  # "disk", "HBA", "expander", "I/O module"
    model: str  # the identity in words
    firmware: str
    ref: EntityRef | None = None
    name: str


class FleetModel(BaseModel):
    """The devices of one model (kind and full identity) on one host."""

    host: str
    host_ref: EntityRef  # the host as a finding's entity
    kind: str
    identity: tuple[str, ...]
    units: list[FleetUnit]


class HostFleetFacts(BaseModel):
    """What the fleet rules need of one host's newest inventory."""

    host: str
    nics: list[FleetNic] = []
    models: list[FleetModel] = []


class PeerNic(BaseModel):
    """One of the first running NICs at one speed in the fleet, in host order (a finding names
    the first few as the peers)."""

    host: str
    position: int
    ref: EntityRef


class SpeedPeers(BaseModel):
    """The running NICs of one model at one speed across the fleet."""

    nics: int  # how many
    hosts: int  # on how many hosts
    first: list[PeerNic]  # the first few in (host, position) order


class NicBaseline(BaseModel):
    """What `fleet.nic.peer_outlier` judges each NIC of one model (driver and PCI model)
    against: the model's running NICs across the fleet, by speed."""

    running: int = 0
    speeds: dict[int, SpeedPeers] = {}


class LevelHosts(BaseModel):
    """The hosts running one model at one firmware level."""

    hosts: int  # how many
    first: list[str]  # the first few by name


class ModelBaseline(BaseModel):
    """What `fleet.firmware.mismatch` judges each host's devices of one model against: the
    hosts holding the model, by firmware level."""

    holders: int = 0
    levels: dict[str, LevelHosts] = {}


class FleetFacts(BaseModel):
    """What the fleet rules judge: the facts of some hosts (every host, or every host holding
    the NIC models and device models a push changed), and for a group whose members are not all
    given, the baseline of all of them (`rules/derived/fleet_baselines.py`): the rules then
    judge the members given against it."""

    hosts: list[str] = []
    nics: list[FleetNic] = []
    models: list[FleetModel] = []
    nic_baselines: dict[tuple[str, str], NicBaseline] = {}  # by (driver, model)
    model_baselines: dict[tuple[str, tuple[str, ...]], ModelBaseline] = {}  # by (kind, identity)

    @classmethod
    def joined(cls, facts: list[HostFleetFacts]) -> FleetFacts:
        """The facts of several hosts as one input, in host name order."""
        ordered = sorted(facts, key=lambda f: f.host)
        return cls(
            hosts=[f.host for f in ordered],
            nics=[nic for f in ordered for nic in f.nics],
            models=[model for f in ordered for model in f.models],
        )
