"""The snapshot manifest: a contract shared with other tools that build snapshots by hand."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

SNAPSHOT_FORMAT = "pinchpoint-snapshot"
SNAPSHOT_VERSION = 1


class Manifest(BaseModel):
    """`manifest.json` at the root of a snapshot; every key but format and version is optional."""

    model_config = ConfigDict(extra="allow")

    format: Literal["pinchpoint-snapshot"] = "pinchpoint-snapshot"
    version: int = SNAPSHOT_VERSION
    hostname: str | None = None
    captured_at: datetime | None = None
    kernel: str | None = None
    tools: dict[str, str] = Field(default_factory=dict)
    simulated: bool | None = None  # written by `pinchpoint simulate`
