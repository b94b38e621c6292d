"""The inventory of one host: what was found, and what could not be read."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, Field

from pinchpoint.model.problems import CollectionProblem
from pinchpoint.model.sas import SasFabric

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
    format_version: int = INVENTORY_FORMAT_VERSION
    host: HostInfo
    sas: SasFabric = Field(default_factory=SasFabric)
    problems: list[CollectionProblem] = Field(default_factory=list)
