"""How bodies are kept: JSON compressed with zlib, and an inventory cut into its parts.

A 1,920-path host's inventory is 7 MB of JSON (340 kB compressed), and a sweep every 5 minutes
stores one with every report. Most sweeps find the host unchanged, and when something changes
it is mostly one part (a disk's SMART figures, not the SAS fabric), so each part is stored once
per content, keyed by its SHA-256, and an inventory is the list of its parts. The host block
(whose `captured_at` changes every sweep) is kept with the report instead.
"""

from __future__ import annotations

import hashlib
import zlib
from dataclasses import dataclass
from functools import cache
from typing import Any

from pydantic import TypeAdapter

from pinchpoint.model.inventory import Inventory

COMPRESSION_LEVEL = 6
# Inventory fields kept outside the parts: the host with the report, the version on the row.
NOT_PARTS = frozenset({"format_version", "host"})


def pack(text: str | bytes) -> bytes:
    """JSON to what a body column holds."""
    raw = text.encode() if isinstance(text, str) else text
    return zlib.compress(raw, COMPRESSION_LEVEL)


def unpack(body: bytes) -> bytes:
    """A body column back to its JSON."""
    return zlib.decompress(body)


def digest(raw: bytes) -> str:
    """The key a body is stored under: SHA-256, hex."""
    return hashlib.sha256(raw).hexdigest()


@dataclass(frozen=True)
class InventoryPart:
    """One part of an inventory as JSON, with its digest."""

    name: str
    json: bytes
    digest: str


@dataclass(frozen=True)
class SplitInventory:
    """An inventory as stored: its parts, and the digest of the whole (without the host)."""

    format_version: int
    parts: tuple[InventoryPart, ...]
    digest: str

    @property
    def raw_size(self) -> int:
        return sum(len(part.json) for part in self.parts)


def part_names() -> tuple[str, ...]:
    """The inventory's parts, in the model's order."""
    return tuple(name for name in Inventory.model_fields if name not in NOT_PARTS)


@cache
def _adapter(name: str) -> TypeAdapter[Any]:
    annotation = Inventory.model_fields[name].annotation
    assert annotation is not None, name
    return TypeAdapter(annotation)


def split_inventory(inventory: Inventory) -> SplitInventory:
    """`inventory` cut into its parts, each as JSON with its digest."""
    parts = []
    for name in part_names():
        raw = _adapter(name).dump_json(getattr(inventory, name))
        parts.append(InventoryPart(name=name, json=raw, digest=digest(raw)))
    listing = f"format_version={inventory.format_version}\n" + "".join(
        f"{part.name}={part.digest}\n" for part in sorted(parts, key=lambda p: p.name)
    )
    return SplitInventory(
        format_version=inventory.format_version,
        parts=tuple(parts),
        digest=digest(listing.encode()),
    )


def join_inventory(format_version: int, host_json: str, parts: dict[str, bytes]) -> Inventory:
    """The inventory from its stored parts (JSON) and the host block kept with its report; a
    part this version does not know is ignored, one it misses takes the model's default."""
    known = [name for name in part_names() if name in parts]
    pieces = [f'"format_version":{int(format_version)}'.encode(), b'"host":' + host_json.encode()]
    pieces.extend(b'"' + name.encode() + b'":' + parts[name] for name in known)
    return Inventory.model_validate_json(b"{" + b",".join(pieces) + b"}")
