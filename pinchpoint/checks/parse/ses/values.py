"""Field names and values of `sg_ses` lines: keys, `name: value` fields, numbers, 64-bit ids,
and the two ways an element's values fail (garbled, incomplete).

The same few dozen names and values come back on every element of a page, so the conversions
are cached.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = [
    "GarbledError",
    "IncompleteError",
    "field_key",
    "hex_id_value",
    "line_fields",
    "number_value",
]


class GarbledError(ValueError):
    """A value that must be a number or an address is not: its element is dropped."""


class IncompleteError(ValueError):
    """An element lacks lines it must have: the text probably ended inside it."""


@lru_cache(maxsize=1024)  # a page repeats the same few dozen names on every element
def field_key(name: str) -> str:
    """A field name as compared: lowercase, single spaces."""
    return " ".join(name.lower().split())


# Splits "a: 1, b: 2" before each ", name:" (a name starts with a letter and holds letters,
# digits, spaces, '_', '-', '/', parentheses). A value holding ", " and no colon stays whole.
_FIELD_BREAK = re.compile(r",\s+(?=[A-Za-z][\w ()/-]*:)")


def line_fields(text: str) -> dict[str, str]:
    """The `name: value` fields of a line ("number of phys: 1, not all phys: 0" -> two)."""
    if "," not in text:  # most lines hold one field: no need to split them
        name, colon, value = text.partition(":")
        return {field_key(name): value.strip()} if colon else {}
    fields: dict[str, str] = {}
    for part in _FIELD_BREAK.split(text):
        name, colon, value = part.partition(":")
        if colon:
            fields.setdefault(field_key(name), value.strip())
    return fields


_NUMBER = re.compile(r"0x[0-9a-f]+|[0-9]+", re.IGNORECASE | re.ASCII)  # decimal or 0x-hex
_HEX = re.compile(r"(?:0x)?(?P<digits>[0-9a-f]{1,16})", re.IGNORECASE | re.ASCII)  # 64-bit hex


@lru_cache(maxsize=1024)  # the same values come back on every element ("0", "0x1", slot numbers)
def number_value(value: str, what: str) -> int:
    """The integer a field starts with ("0 [primary]" -> 0, "0x14" -> 20); garbled if none."""
    words = value.split(None, 1)
    word = words[0] if words else ""
    try:
        if word.isdigit() and word.isascii():  # plain decimal, the usual case: no regex needed
            return int(word)
        if _NUMBER.fullmatch(word):
            return int(word, 16) if word.lower().startswith("0x") else int(word)
    except ValueError:  # more digits than Python converts
        pass
    raise GarbledError(f"{what} {value!r} is not a number")


@lru_cache(maxsize=1024)  # every slot repeats the addresses of the expanders it is wired to
def hex_id_value(value: str, what: str) -> str:
    """A SAS address or logical identifier as `0x` + 16 hex digits; zero as "0x0"."""
    words = value.split(None, 1)
    match = _HEX.fullmatch(words[0]) if words else None
    if match is None:
        raise GarbledError(f"{what} {value!r} is not a 64-bit hex number")
    number = int(match["digits"], 16)
    return "0x0" if number == 0 else f"0x{number:016x}"
