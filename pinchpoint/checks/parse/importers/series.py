"""What every importer shares: the error it raises, decoding a file, numbers, entities by name.

An importer never fails on one bad line: it skips the line and counts it. It fails only when
nothing in the input can be used (empty, binary, another format), with `StatsImportError` and a
one-line message a user can act on.
"""

from __future__ import annotations

import math

from pinchpoint.model.stats import EntityStats, StatsEntityKind

__all__ = ["EntityTable", "StatsImportError", "decode_text", "number", "usable_text"]


class StatsImportError(ValueError):
    """The input cannot be imported at all; the message says why in one line."""


def decode_text(data: bytes, source_name: str) -> str:
    """Bytes of a statistics file as text: UTF-8 or UTF-16 (with its byte-order mark, as some
    PerfMon exports are), else Latin-1; binary data is refused."""
    if not data.strip():
        raise StatsImportError(f"{source_name} is empty")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace")
    if b"\x00" in data[:4096]:
        raise StatsImportError(f"{source_name} is binary data, not a text statistics file")
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def usable_text(text: str, source_name: str) -> str:
    """`text` without its byte-order mark; refused as `decode_text` refuses bytes: blank, or
    binary (NULs near the start)."""
    if not text or text.isspace():
        raise StatsImportError(f"{source_name} is empty")
    if "\x00" in text[:4096]:
        raise StatsImportError(f"{source_name} is binary data, not a text statistics file")
    return text.removeprefix("\ufeff")


def number(cell: str) -> float | None:
    """A cell as a finite number, or None: blank, `-`, text, NaN and infinities are not numbers.
    A decimal comma (`0,0123`, as a German or French Windows writes it) is understood."""
    text = cell.strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        if "," not in text or "." in text:
            return None
        try:
            value = float(text.replace(",", "."))
        except ValueError:
            return None
    return value if math.isfinite(value) else None


class EntityTable:
    """Entities in the order the tool first named them, found again by name."""

    def __init__(self) -> None:
        self._by_name: dict[str, EntityStats] = {}

    def get(self, name: str, kind: StatsEntityKind, parent: str | None = None) -> EntityStats:
        """The entity called `name`, created on first use."""
        entity = self._by_name.get(name)
        if entity is None:
            entity = EntityStats(name=name, kind=kind, parent=parent)
            self._by_name[name] = entity
        return entity

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def entities(self) -> list[EntityStats]:
        return list(self._by_name.values())
