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
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from pydantic import TypeAdapter, ValidationError

from pinchpoint.model.inventory import HostInfo, Inventory

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
    """One part of an inventory as JSON, with its digest (the JSON None: an agent sent the
    digest only, of a part the store holds)."""

    name: str
    json: bytes | None
    digest: str


@dataclass(frozen=True)
class SplitInventory:
    """An inventory as stored: its parts, and the digest of the whole (without the host)."""

    format_version: int
    parts: tuple[InventoryPart, ...]
    digest: str


@dataclass(frozen=True)
class PushedInventory:
    """An inventory as an agent pushed it: its host block (validated) and each part as the JSON
    it sent, or as a digest only (a part the store holds). A part's JSON is checked against the
    model only when the store does not hold its digest: a held part was checked when stored."""

    format_version: int
    host: HostInfo
    parts: tuple[InventoryPart, ...]

    def split(self) -> SplitInventory:
        """The inventory as the store keeps it."""
        return SplitInventory(
            format_version=self.format_version,
            parts=self.parts,
            digest=inventory_digest(self.format_version, {p.name: p.digest for p in self.parts}),
        )


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
    return SplitInventory(
        format_version=inventory.format_version,
        parts=tuple(parts),
        digest=inventory_digest(inventory.format_version, {p.name: p.digest for p in parts}),
    )


def inventory_digest(format_version: int, digests: Mapping[str, str]) -> str:
    """The digest of a whole inventory (without its host block): of its parts' digests."""
    listing = f"format_version={format_version}\n" + "".join(
        f"{name}={digests[name]}\n" for name in sorted(digests)
    )
    return digest(listing.encode())


@cache
def default_part(name: str) -> bytes:
    """The JSON of part `name` when an inventory leaves it out (the model's default)."""
    field = Inventory.model_fields[name]
    return _adapter(name).dump_json(field.get_default(call_default_factory=True))


class PartError(ValueError):
    """A pushed inventory part the model refuses; the message names the fields."""


def validated_part(name: str, raw: bytes) -> Any:
    """`raw` as part `name` of an inventory, made a model (`PartError` when the model refuses
    it): a pushed part is checked once per content, before it is stored, so that it can be read
    back."""
    try:
        return _adapter(name).validate_json(raw)
    except ValidationError as err:
        wrong = [
            f"inventory.{'.'.join(str(p) for p in (name, *e['loc']))}: {e['msg']}"
            for e in err.errors(include_url=False)
        ]
        more = f" (and {len(wrong) - 3} more)" if len(wrong) > 3 else ""
        raise PartError("; ".join(wrong[:3]) + more) from None


def join_inventory(format_version: int, host_json: str, parts: dict[str, bytes]) -> Inventory:
    """The inventory from its stored parts (JSON) and the host block kept with its report; a
    part this version does not know is ignored, one it misses takes the model's default."""
    known = [name for name in part_names() if name in parts]
    pieces = [f'"format_version":{int(format_version)}'.encode(), b'"host":' + host_json.encode()]
    pieces.extend(b'"' + name.encode() + b'":' + parts[name] for name in known)
    return Inventory.model_validate_json(b"{" + b",".join(pieces) + b"}")
