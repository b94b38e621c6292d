"""The inventory of one host: what was found, and what could not be read."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, Field

from pinchpoint.model.block import BlockInventory
from pinchpoint.model.fc import FcInventory
from pinchpoint.model.health import DiskHealthInventory
from pinchpoint.model.iscsi import IscsiInventory
from pinchpoint.model.multipath import MultipathInventory
from pinchpoint.model.network import Network
from pinchpoint.model.nvme import NvmeInventory
from pinchpoint.model.pcie import PcieInventory
from pinchpoint.model.problems import CollectionProblem
from pinchpoint.model.sas import SasFabric
from pinchpoint.model.zfs import ZfsInventory

INVENTORY_FORMAT_VERSION = 1


class SourceKind(StrEnum):
    LIVE = "live"  # read from this host now
    SNAPSHOT = "snapshot"  # read from a captured snapshot
    DEMO = "demo"  # the bundled simulated host


class HostInfo(BaseModel):
    hostname: str | None = None
    kernel: str | None = None
    captured_at: datetime | None = None
    source: SourceKind
    source_location: str | None = None  # snapshot path, or "/" when live
    tools: dict[str, str] = Field(default_factory=dict)


class Inventory(BaseModel):
    """Every part of the I/O path; a part that could not be read is empty and says why in
    `problems`."""

    format_version: int = INVENTORY_FORMAT_VERSION
    host: HostInfo
    sas: SasFabric = Field(default_factory=SasFabric)
    network: Network = Field(default_factory=Network)
    fc: FcInventory = Field(default_factory=FcInventory)
    multipath: MultipathInventory = Field(default_factory=MultipathInventory)
    pcie: PcieInventory = Field(default_factory=PcieInventory)
    block: BlockInventory = Field(default_factory=BlockInventory)
    health: DiskHealthInventory = Field(default_factory=DiskHealthInventory)
    zfs: ZfsInventory = Field(default_factory=ZfsInventory)
    nvme: NvmeInventory = Field(default_factory=NvmeInventory)
    iscsi: IscsiInventory = Field(default_factory=IscsiInventory)
    problems: list[CollectionProblem] = Field(default_factory=list)
