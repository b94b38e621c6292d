"""The snapshot manifest: a contract shared with other tools that build snapshots by hand."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from pinchpoint.text import json_safe

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

    @model_validator(mode="before")
    @classmethod
    def _text_json_can_carry(cls, data: Any) -> Any:
        """A manifest is read with `json.loads`, which lets `"\\udce9"` through as a lone
        surrogate that no report could serialise: such characters become `\\xe9` escapes."""
        return _json_safe(data)


def _json_safe(value: Any) -> Any:
    if isinstance(value, str):
        return json_safe(value)
    if isinstance(value, dict):
        return {_json_safe(key): _json_safe(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_safe(item) for item in value]
    return value
