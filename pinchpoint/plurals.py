"""Counted words: `1 HBA port`, `2 HBA ports`, `1 enclosure`, never `enclosure(s)`.

This module imports nothing of ours: every layer may use it.
"""

from __future__ import annotations

# Words whose plural is not the word and an `s` (the last word of a phrase is what changes).
_IRREGULAR = {
    "bus": "buses",
    "chassis": "chassis",
    "child": "children",
    "entry": "entries",
    "index": "indexes",
    "match": "matches",
    "process": "processes",
    "property": "properties",
    "series": "series",
    "switch": "switches",
    "was": "were",
    "is": "are",
    "has": "have",
}


def plural_word(word: str) -> str:
    """`word` for more than one: `port` → `ports`, `entry` → `entries`, `HBA port` → `HBA
    ports`; an abbreviation in capitals takes a plain `s` (`HBA` → `HBAs`, `LUN` → `LUNs`)."""
    head, _, last = word.rpartition(" ")
    prefix = f"{head} " if head else ""
    if last in _IRREGULAR:
        return prefix + _IRREGULAR[last]
    if last.isupper():
        return f"{prefix}{last}s"
    if last.endswith(("s", "x", "sh", "ch")):
        return f"{prefix}{last}es"
    if last.endswith("y") and len(last) > 1 and last[-2] not in "aeiou":
        return f"{prefix}{last[:-1]}ies"
    return f"{prefix}{last}s"


def plural(count: int | float, word: str, many: str | None = None) -> str:
    """`count` and `word` in agreement: `1 HBA port`, `2 HBA ports`, `0 disks`, `1,024 paths`;
    `many` gives a plural the rule does not know."""
    one = count == 1
    shown = f"{count:,}" if isinstance(count, int) else f"{count:,g}"
    return f"{shown} {word if one else (many or plural_word(word))}"


def agree(count: int | float, one: str, many: str) -> str:
    """The word (a verb, most often) that agrees with `count`: `agree(1, "holds", "hold")`."""
    return one if count == 1 else many


# Units that read the same for one and for many (symbols, not words).
_SYMBOLS = frozenset({"s", "ms", "µs", "us", "ns", "%", "IOPS", "rpm", "h", "min"})


def unit_for(count: float | None, unit: str) -> str:
    """A counted unit in agreement with its figure: `1 HBA port` (unit `HBA ports`), `1 I/O`,
    `1 enclosure per chain`; symbols (`ms`, `%`, `MB/s`, `GT/s`) are left as they are."""
    if count != 1 or unit in _SYMBOLS or unit.endswith("/s"):
        return unit
    words = unit.split(" ")
    for index, word in enumerate(words):
        if len(word) > 2 and word.endswith("s") and not word.endswith("ss"):
            words[index] = word[:-3] + "y" if word.endswith("ies") else word[:-1]
            return " ".join(words)
    return unit
