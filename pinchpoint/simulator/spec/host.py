"""The root of a host spec: `[host]` and every section of the file, with the lookups the
simulator uses; what the sections refer to is checked in references.py (docs/simulator.md)."""

from __future__ import annotations

from datetime import datetime
from typing import Self

from pydantic import Field, model_validator

from pinchpoint.simulator.spec.faults import (
    DegradedLinkSpec,
    FailingDiskSpec,
    LaneDownSpec,
    PhyErrorsSpec,
)
from pinchpoint.simulator.spec.references import check_references
from pinchpoint.simulator.spec.rest_of_host import (
    AhciSpec,
    BondSpec,
    DmSpec,
    FcDriverSpec,
    FcPortSpec,
    IscsiSessionSpec,
    MdSpec,
    MultipathSpec,
    NicSpec,
    NvmeSpec,
    NvmeTargetSpec,
    PartitionSpec,
    VirtioDiskSpec,
    ZfsSpec,
)
from pinchpoint.simulator.spec.sas import ChainSpec, EnclosureSpec, HbaSpec, SwitchSpec
from pinchpoint.simulator.spec.values import FIXED_CAPTURE_TIME, SpecModel
from pinchpoint.simulator.spec.workload import WorkloadSpec


class HostSection(SpecModel):
    """`[host]`: what the manifest says about the imagined host."""

    hostname: str = "simulated-storage-host"
    kernel: str = "6.1.0-28-amd64"
    captured_at: datetime = FIXED_CAPTURE_TIME
    first_scsi_host: int = Field(default=0, ge=0)


class HostSpec(SpecModel):
    """A whole imagined host: the root of a spec file."""

    host: HostSection = HostSection()
    hba: list[HbaSpec] = Field(default_factory=list)
    switch: list[SwitchSpec] = Field(default_factory=list)
    enclosure: list[EnclosureSpec] = Field(default_factory=list)
    chain: list[ChainSpec] = Field(default_factory=list)
    degraded_link: list[DegradedLinkSpec] = Field(default_factory=list)
    lane_down: list[LaneDownSpec] = Field(default_factory=list)
    phy_errors: list[PhyErrorsSpec] = Field(default_factory=list)
    failing_disk: list[FailingDiskSpec] = Field(default_factory=list)
    partition: list[PartitionSpec] = Field(default_factory=list)
    nic: list[NicSpec] = Field(default_factory=list)
    bond: list[BondSpec] = Field(default_factory=list)
    fc_port: list[FcPortSpec] = Field(default_factory=list)
    multipath: MultipathSpec = MultipathSpec()
    fc_driver: FcDriverSpec = FcDriverSpec()
    nvme: list[NvmeSpec] = Field(default_factory=list)
    zfs: ZfsSpec | None = None
    workload: WorkloadSpec | None = None
    ahci: list[AhciSpec] = Field(default_factory=list)
    virtio: list[VirtioDiskSpec] = Field(default_factory=list)
    nvme_target: list[NvmeTargetSpec] = Field(default_factory=list)
    iscsi_session: list[IscsiSessionSpec] = Field(default_factory=list)
    md: list[MdSpec] = Field(default_factory=list)
    dm: list[DmSpec] = Field(default_factory=list)

    def bond_members(self, bond: BondSpec) -> list[str]:
        """A bond's members: those it lists, then the NICs naming it, in spec order."""
        members = list(bond.members)
        for nic in self.nic:
            if nic.bond == bond.name and nic.name not in members:
                members.append(nic.name)
        return members

    def hba_named(self, name: str) -> HbaSpec:
        """The HBA of that name (names are checked to exist)."""
        return next(h for h in self.hba if h.name == name)

    def enclosure_named(self, name: str) -> EnclosureSpec:
        """The enclosure of that name."""
        return next(e for e in self.enclosure if e.name == name)

    @model_validator(mode="after")
    def _references(self) -> Self:
        """Every name a section uses refers to something the spec defines, cabled once."""
        check_references(self)
        return self
