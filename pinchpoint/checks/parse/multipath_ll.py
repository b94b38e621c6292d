"""The text of `multipath -ll` (and `multipath -v4 -ll`) → typed maps, path groups and paths.

Two layouts exist and both are read:

    modern (RHEL6 and later, multipath-tools 0.4.9+)
    mpathg (36f01faf000da360b0000033c528fea6d) dm-2 DELL,MD36xxi
    size=54T features='3 queue_if_no_path pg_init_retries 50' hwhandler='1 rdac' wp=rw
    |-+- policy='round-robin 0' prio=0 status=active
    | |- 12:0:0:1 sdc 8:32   active ready running
    | `- 17:0:0:1 sdv 65:80  active ready running
    `-+- policy='round-robin 0' prio=0 status=enabled
      `- 18:0:0:1 sdx 65:112 active ready running

    old (RHEL4/5, bracketed)
    L004 (360060160ade32800f2e3baf47665e211) dm-9 DGC,RAID 5
    [size=100G][features=1 queue_if_no_path][hwhandler=1 emc][rw]
    \\_ round-robin 0 [prio=1][active]
     \\_ 3:0:1:4 sdk  8:160  [active][ready]

A map named by its WWID prints no parentheses (`36001405b16… dm-5 LIO-ORG ,block0_sdb`).
`-v4` adds debug noise between and inside maps (`Oct 28 14:02:44 | *word = 0`, `sdz: size = …`,
`params = …`, the "paths list" table): every line that is neither a map header, its size line,
a path group nor a path is skipped.

Bad input:
* binary or text in which no map can be found: `MultipathParseError`;
* a map whose lines do not parse (a size line without `features`, a path line cut mid-way)
  is dropped with a warning naming it; the maps around it stand;
* output that ends early (last line without its newline, a header or path group with nothing
  after it) drops the map it ended in and sets `truncated`: a shortened map would report
  fewer paths than it has, which is worse than reporting none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pinchpoint.model.multipath import (
    MultipathMap,
    MultipathPath,
    MultipathPathGroup,
    multipath_map_id,
    multipath_path_id,
)

__all__ = ["MultipathListing", "MultipathParseError", "parse_multipath_ll", "parse_size_text"]

# -- lines of a map -------------------------------------------------------------------------

# `mpathg (36f01faf000da360b0000033c528fea6d) dm-2 DELL,MD36xxi`: alias (WWID) dm-N vendor,product
_HEADER_ALIAS = re.compile(
    r"^(?P<name>\S+)\s+\((?P<wwid>[^()]+)\)(?:\s+(?P<dm>dm-\d+))?(?:\s+(?P<vpr>.*?))?\s*$"
)
# `36001405b1629f80d52a4c898f8856e43 dm-5 LIO-ORG ,block0_sdb`: a map named by its WWID
# (which may hold spaces: `1IET     00080001 dm-0 IET,VIRTUAL-DISK`)
_HEADER_WWID = re.compile(r"^(?P<wwid>\S.*?)\s+(?P<dm>dm-\d+)(?:\s+(?P<vpr>.*?))?\s*$")
# `size=54T features='3 queue_if_no_path pg_init_retries 50' hwhandler='1 rdac' wp=rw`
_SIZE_MODERN = re.compile(r"^size=\S+")
# one `key=value` or `key='quoted value'` pair of the modern size line
_KEY_VALUE = re.compile(r"(\w+)=('[^']*'|\S+)")
# `[size=100G][features=1 queue_if_no_path][hwhandler=1 emc][rw]`
_SIZE_OLD = re.compile(r"^\[size=[^\]]*\]")
# one `[key=value]` or `[flag]` of the old size, group and path lines
_BRACKET = re.compile(r"\[([^\]]*)\]")
# `|-+- policy='round-robin 0' prio=0 status=active` or `` `-+- policy=… ``
_GROUP_MODERN = re.compile(r"^[|`]-\+-\s+(?P<rest>.*)$")
# `\_ round-robin 0 [prio=1][active]` (old; `[prio=…]` missing on the oldest versions)
_GROUP_OLD = re.compile(r"^\\_\s+(?P<policy>[^\[]+?)\s*(?P<flags>(?:\[[^\]]*\])+)\s*$")
# `| |- 12:0:0:1 sdc 8:32 active ready running`, `  `- 18:0:0:1 sdx 65:112 …`,
# ` \_ 3:0:1:4 sdk 8:160 [active][ready]`; `#:#:#:#` and `-` stand in for a device that is gone
_PATH = re.compile(
    r"^[\s|`]*(?:[|`]-|\\_)\s+(?P<hctl>\d+:\d+:\d+:\d+|#:#:#:#)\s+(?P<dev>\S+)\s+"
    r"(?P<devt>\d+:\d+|#:#)\s+(?P<states>.*?)\s*$"
)
# an H:C:T:L anywhere in a line: a path line, never a path group line
_HCTL_ANYWHERE = re.compile(r"\d+:\d+:\d+:\d+")
# any line drawn as part of the tree: a path group or path prefix (`|-`, `` `- ``, `\_`)
_TREE = re.compile(r"^[\s|`]*(?:[|`]-|\\_)")

# -- debug noise of `multipath -v4` ---------------------------------------------------------

_NOISE = (
    # `Oct 28 14:02:44 | *word = 0, len = 1`, `3789.033715 | sdb: alua not supported`
    re.compile(r"^(?:[A-Z][a-z]{2}\s+\d+\s+\d\d:\d\d:\d\d|\d+\.\d+)\s+\|"),
    # `*word = 1, len = 1`, `params = 1 queue_if_no_path …`, `status = 2 0 1 0 …`
    re.compile(r"^(?:\*word|params|status)\s+="),
    # `sdz: size = 293601280`, `sdu: getprio = …`, `sr0: blacklisted`, `dm-3: …`
    re.compile(r"^[a-z][a-z0-9!-]*:\s"),
    # `process 31154 forking to exec …`, `forked 31158`, `===== paths list =====`, `uuid hcil …`
    re.compile(r"^(?:process\s\d+|forked\s\d+|=====|uuid\s+hcil)"),
    # a row of the "paths list" table, its uuid column empty or filled:
    # `     5:0:1:7 sdaa 65:160 0   [undef][ready] DGC,RAID 5`
    re.compile(r"^\s*(?:\S+\s+)?\d+:\d+:\d+:\d+\s+\S+\s+\d+:\d+\s"),
)
# words of the SCSI device (online) state column, the last of a path line
_ONLINE_STATES = frozenset(
    {"running", "offline", "blocked", "transport-offline", "created", "quiesce", "cancel"}
    | {"deleted", "created-blocked", "undef", "unknown"}
)
_SIZE_UNITS = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40, "P": 1 << 50}
# `54T`, `2.0G`, `512M`: multipath prints binary units with at most one decimal
_SIZE_TEXT = re.compile(r"^(?P<number>\d+(?:\.\d+)?)(?P<unit>[KMGTP])$")


class MultipathParseError(ValueError):
    """The text is not `multipath -ll` output; the message says what was expected and found."""


@dataclass
class MultipathListing:
    """What one `multipath -ll` run showed."""

    maps: list[MultipathMap] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # maps dropped, each with why
    truncated: bool = False  # the output ended inside a map (that map is dropped)


def parse_size_text(text: str | None) -> int | None:
    """`54T` -> bytes (multipath rounds to one decimal, so this is approximate)."""
    match = _SIZE_TEXT.match(text or "")
    if match is None:
        return None
    return int(float(match.group("number")) * _SIZE_UNITS[match.group("unit")])


def _is_noise(line: str) -> bool:
    return any(pattern.match(line) for pattern in _NOISE)


def _vendor_product(vpr: str | None) -> tuple[str | None, str | None]:
    """`DELL,MD36xxi` -> ("DELL", "MD36xxi"); `##,##` or `uninitialized` -> (None, None)."""
    if not vpr or "," not in vpr:
        return None, None
    vendor, product = (part.strip() for part in vpr.split(",", 1))
    return (None if vendor in ("", "##") else vendor), (None if product in ("", "##") else product)


def _header(line: str) -> MultipathMap | None:
    """A map from its first line, or None when the line is not a map header."""
    match = _HEADER_ALIAS.match(line)
    if match is not None:
        wwid, name = match.group("wwid").strip(), match.group("name")
    else:
        match = _HEADER_WWID.match(line)
        if match is None:
            return None
        wwid = match.group("wwid").strip()
        name = wwid
    vendor, product = _vendor_product(match.group("vpr"))
    return MultipathMap(
        id=multipath_map_id(wwid),
        wwid=wwid,
        name=name,
        dm_device=match.group("dm"),
        vendor=vendor,
        product=product,
        from_multipath_ll=True,
    )


def _count_stripped(value: str | None) -> str | None:
    """`1 rdac` -> `rdac`; `0` (none) -> None: the leading number counts the words after it."""
    if value is None:
        return None
    words = value.split()
    if words and words[0].isdigit():
        words = words[1:]
    return " ".join(words) or None


def _apply_size_line(found: MultipathMap, line: str) -> str | None:
    """Fill size, features, handler and access from the second line; a problem, or None."""
    if _SIZE_MODERN.match(line):
        pairs = {k: v.strip("'") for k, v in _KEY_VALUE.findall(line)}
        if "features" not in pairs or "hwhandler" not in pairs:
            return f"expected `size=… features='…' hwhandler='…'`, found {line!r}"
        found.size_text, found.access = pairs.get("size"), pairs.get("wp")
    else:
        fields = _BRACKET.findall(line)
        pairs = dict(f.split("=", 1) for f in fields if "=" in f)
        if "features" not in pairs or "hwhandler" not in pairs:
            return f"expected `[size=…][features=…][hwhandler=…]`, found {line!r}"
        found.size_text = pairs.get("size")
        found.access = next((f for f in fields if f in ("rw", "ro")), None)
    found.features = pairs["features"].strip()
    found.hardware_handler = _count_stripped(pairs["hwhandler"])
    found.size_bytes = parse_size_text(found.size_text)
    return None


def _group(line: str, index: int) -> MultipathPathGroup | None:
    """A path group from its line, or None when the line is not one (a cut path line is not)."""
    if _HCTL_ANYWHERE.search(line):
        return None
    match = _GROUP_MODERN.match(line)
    if match is not None:
        pairs = {k: v.strip("'") for k, v in _KEY_VALUE.findall(match.group("rest"))}
        prio = pairs.get("prio")
        return MultipathPathGroup(
            index=index,
            policy=pairs.get("policy"),
            priority=int(prio) if prio and prio.lstrip("-").isdigit() else None,
            status=pairs.get("status"),
        )
    match = _GROUP_OLD.match(line)
    if match is None:
        return None
    flags = _BRACKET.findall(match.group("flags"))
    prio = next((f.split("=", 1)[1] for f in flags if f.startswith("prio=")), None)
    status = next((f for f in flags if "=" not in f), None)
    return MultipathPathGroup(
        index=index,
        policy=match.group("policy").strip(),
        priority=int(prio) if prio and prio.lstrip("-").isdigit() else None,
        status=status,
    )


def _path(line: str, map_id: str, group: int) -> MultipathPath | None:
    """A path from its line, or None when the line is not a complete path line."""
    match = _PATH.match(line)
    if match is None:
        return None
    states_text = match.group("states")
    states = _BRACKET.findall(states_text) if states_text.startswith("[") else states_text.split()
    if len(states) < 2:
        return None  # at least the dm and checker states: anything shorter was cut
    hctl = None if match.group("hctl").startswith("#") else match.group("hctl")
    device = None if match.group("dev") in ("-", "#") else match.group("dev")
    online_at = max((i for i, s in enumerate(states) if i >= 2 and s in _ONLINE_STATES), default=0)
    return MultipathPath(
        id=multipath_path_id(map_id, hctl, device),
        hctl=hctl,
        device=device,
        dev_t=None if match.group("devt").startswith("#") else match.group("devt"),
        dm_state=states[0],
        checker_state=" ".join(states[1:online_at] if online_at else states[1:]),
        online_state=states[online_at] if online_at else None,
        group_index=group,
        scsi_host=f"host{hctl.split(':', 1)[0]}" if hctl else None,
    )


class _Reader:
    """The parse state: the map being read, its group, and what was kept or dropped."""

    def __init__(self) -> None:
        self.listing = MultipathListing()
        self.current: MultipathMap | None = None
        self.group: MultipathPathGroup | None = None
        self.broken: str | None = None  # why the current map is dropped
        self.header: MultipathMap | None = None  # a header line whose size line has not come yet
        self.unknown: list[str] = []  # lines that are neither maps nor known noise
        self.last_kind = ""  # "header", "size", "group", "path", "broken": the last map line

    def close_map(self) -> None:
        if self.current is None:
            return
        if self.broken is None:
            self.listing.maps.append(self.current)
        else:
            self.listing.warnings.append(f"map {self.current.name}: {self.broken}; map left out")
        self.current, self.group, self.broken = None, None, None

    def other_line(self, line: str) -> None:
        """A map header, or a line nothing knows (kept to tell garbage from an empty listing)."""
        header = _header(line)
        if header is None:
            self.unknown.append(line)
            return
        self.header, self.last_kind = header, "header"

    def size_line(self, line: str) -> None:
        self.close_map()
        if self.header is None:
            name = self.unknown[-1][:60] if self.unknown else "?"
            self.current = MultipathMap(id="mpath:?", wwid="?", name=repr(name))
            self.broken = f"expected a map header `name (wwid) dm-N vendor,product` before {line!r}"
        else:
            self.current, self.header = self.header, None
            self.broken = _apply_size_line(self.current, line)
        self.last_kind = "size"

    def tree_line(self, line: str) -> None:
        if self.current is None:
            self.unknown.append(line)
            return
        group = self.group.index if self.group else 1
        found_path = _path(line, self.current.id, group)
        if found_path is not None:
            if self.group is None:  # the oldest versions print paths with no group line
                self.group = MultipathPathGroup(index=1)
                self.current.path_groups.append(self.group)
            self.group.paths.append(found_path)
            self.last_kind = "path"
            return
        found_group = _group(line.strip(), len(self.current.path_groups) + 1)
        if found_group is not None:
            self.current.path_groups.append(found_group)
            self.group, self.last_kind = found_group, "group"
            return
        self.broken = self.broken or f"unreadable path line {line.strip()!r}"
        self.last_kind = "broken"

    def finish(self, partial: str | None) -> MultipathListing:
        """Close the last map, dropping it when the output ended inside it."""
        inside = partial is not None and bool(
            _TREE.match(partial) or _SIZE_MODERN.match(partial) or _SIZE_OLD.match(partial)
        )
        if self.current is not None and (inside or self.last_kind in ("group", "broken")):
            self.broken = self.broken or "the output ended inside this map"
            self.listing.truncated = True
        self.close_map()
        if self.header is not None:
            self.listing.truncated = True
            self.listing.warnings.append(
                f"map {self.header.name}: the output ends after its header line; map left out"
            )
        elif partial is not None and not inside:
            self.listing.truncated = True
            self.listing.warnings.append(
                f"the output ends mid-line ({partial[:60]!r}): maps after it may be missing"
            )
        return self.listing


def parse_multipath_ll(text: str) -> MultipathListing:
    """Every map `multipath -ll` printed; empty text (no maps) is an empty listing."""
    if "\x00" in text:
        raise MultipathParseError("expected the text of `multipath -ll`, found binary data")
    lines = [line.rstrip("\r") for line in text.split("\n")]
    # multipath ends every line with a newline: a last line without one was cut mid-way
    partial = lines.pop() or None
    reader = _Reader()
    for line in lines:
        if not line.strip():
            continue
        if _SIZE_MODERN.match(line) or _SIZE_OLD.match(line):
            reader.size_line(line)
        elif _TREE.match(line):
            reader.tree_line(line)
        elif not _is_noise(line):
            reader.other_line(line.strip())
    listing = reader.finish(partial)
    if not listing.maps and not listing.warnings and reader.unknown:
        raise MultipathParseError(
            "expected maps (`name (wwid) dm-N vendor,product` then `size=…`), found no map in "
            f"{len(reader.unknown)} lines starting {reader.unknown[0][:60]!r}"
        )
    return listing
