"""Parser for what `zpool status -P` prints, into `pinchpoint.model.zfs` pools and vdev trees.

A pure function of text, no I/O. Accepted shapes: OpenZFS on Linux and FreeBSD, and the older
ZFS on Linux / illumos / macOS wording, with or without `-P` (without it leaves are short names
such as `sdb` and get no device path); tabs or spaces for indentation (the config tree is
indented two columns per level below the pool's own line).

    pool: tank
   state: DEGRADED
    scan: resilver in progress since …            (continuation lines are joined)
  config:
          NAME                STATE     READ WRITE CKSUM
          tank                DEGRADED     0     0     0
            raidz2-0          DEGRADED     0     0     0
              /dev/sdb1       ONLINE       0     0     0
              123456789…      UNAVAIL      0     0     0  was /dev/sdc1
          logs
            mirror-1          ONLINE       0     0     0
          spares
            /dev/sdk1         AVAIL
  errors: No known data errors

What happens with bad input:

* empty text, or `no pools available`: no pools;
* text with no `pool:` line (binary, another command's output) or whose pools all end before
  their `errors:` line: `ZpoolStatusParseError`, one line saying what was expected and found;
* a pool cut short (the text ends, or the next pool starts, before its `errors:` line): the
  pool is left out, `truncated=True` and a warning names it; complete pools stand. A last
  line without its newline was cut mid-line and is ignored (unless it is the `errors:` line);
* a config line that does not parse is dropped with a warning; the rest of the tree stands.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pinchpoint.model.zfs import Pool, Vdev, VdevKind, VdevRole, ZpoolStatus, pool_id

__all__ = ["ZpoolStatusParseError", "count_value", "parse_zpool_status", "vdev_kind"]

MAX_WARNINGS = 50  # garbage inside a config must not produce a warning per line forever
MAX_LINE = 1000  # a vdev line is a path and five columns; longer lines are not zpool's
TAB = 8

# "  pool: tank" — a pool's first line; the name is everything after "pool: ".
_POOL = re.compile(r"^ {0,4}pool: (?P<name>\S.*?)\s*$")
# " state: ONLINE", "status: One or more …", "  scan: scrub repaired …", "errors: No known …",
# "config:" — a header field at the left margin (at most 4 spaces in).
_FIELD = re.compile(
    r"^ {0,4}(?P<key>state|status|action|see|scan|scrub|remove|checkpoint|expand|config|errors"
    r"|dedup|comment|id): ?(?P<value>.*?)\s*$"
)
# "\tNAME   STATE   READ WRITE CKSUM" — the column header of the config tree.
_CONFIG_HEADER = re.compile(r"^\s+NAME\s+STATE\s+READ\s+WRITE\s+CKSUM\b")
# A count column: "0", "12", "1.20K" (zfs_nicenum, powers of 1024).
_COUNT = r"\d+(?:\.\d+)?[KMGTPE]?"
# A config row: "    /dev/sdb1   ONLINE   0   0   0  (resilvering)"; a spare: "  /dev/sdk1  AVAIL";
# a section header: "  logs" (name only).
_ROW = re.compile(
    rf"^(?P<indent> *)(?P<name>\S+)"
    rf"(?: +(?P<state>[A-Z][A-Z_]+)"
    rf"(?: +(?P<read>{_COUNT}) +(?P<write>{_COUNT}) +(?P<cksum>{_COUNT}))?"
    rf"(?: +(?P<note>\S.*?))?)?\s*$"
)
# "mirror-0", "raidz2-1", "raidz-0" (raidz1 in old releases), "draid2:4d:12c:1s-0",
# "replacing-2", "spare-3", "indirect-1": interior vdev names end in their index.
_INTERIOR = re.compile(r"^(mirror|raidz[123]?|draid\d?(?::[^-\s]*)?|replacing|spare|indirect)-\d+$")
# "was /dev/sdc1" in the note of a device that could not be found (printed by GUID).
_WAS = re.compile(r"\bwas (/\S+)")
# "3 data errors, use '-v' for a list" — the count in the errors line.
_DATA_ERRORS = re.compile(r"^(\d+) data errors?\b")

_SECTIONS = {
    "logs": VdevRole.LOG,
    "cache": VdevRole.CACHE,
    "spares": VdevRole.SPARE,
    "special": VdevRole.SPECIAL,
    "dedup": VdevRole.DEDUP,
}
_SECTION_NAMES = {role: name for name, role in _SECTIONS.items()}
_CONTINUED = frozenset({"status", "action", "scan", "scrub", "remove", "checkpoint", "expand"})
_SCALE = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40, "P": 1 << 50, "E": 1 << 60}


class ZpoolStatusParseError(ValueError):
    """The text is not `zpool status` output, or holds no complete pool; the message says so."""

    def __init__(self, problem: str) -> None:
        super().__init__(f"zpool status -P output: {problem}")
        self.problem = problem


def count_value(text: str) -> int:
    """`0` -> 0; `1.20K` -> 1229 (zpool abbreviates counts in powers of 1024)."""
    unit = text[-1] if text[-1] in _SCALE else ""
    number = text[: len(text) - len(unit)]
    return round(float(number) * _SCALE[unit])


def vdev_kind(name: str, leaf: bool) -> VdevKind:
    """The kind of vdev a printed name is: `raidz2-1` -> RAIDZ2, `/dev/sdb1` -> DISK."""
    match = _INTERIOR.match(name)
    if match:
        prefix = match.group(1)
        if prefix.startswith("draid"):
            return VdevKind.DRAID
        return VdevKind.RAIDZ1 if prefix == "raidz" else VdevKind(prefix)
    if leaf and name.startswith("/") and not name.startswith("/dev/"):
        return VdevKind.FILE
    return VdevKind.DISK


@dataclass
class _Row:
    """One parsed config line before the tree is built."""

    depth: int
    name: str
    state: str | None
    counts: tuple[int, int, int] | None
    note: str | None
    children: list[_Row] = field(default_factory=list)


@dataclass
class _PoolDraft:
    """A pool while its lines are read; `complete` once its `errors:` line is seen."""

    name: str
    fields: dict[str, str] = field(default_factory=dict)
    root: _Row | None = None
    sections: list[tuple[VdevRole, _Row]] = field(default_factory=list)
    complete: bool = False
    in_config: bool = False
    root_indent: int | None = None
    role: VdevRole = VdevRole.DATA
    stack: list[_Row] = field(default_factory=list)  # the open row at each depth
    last_field: str | None = None


class _Parser:
    def __init__(self) -> None:
        self.pools: list[Pool] = []
        self.warnings: list[str] = []
        self.truncated = False
        self.draft: _PoolDraft | None = None
        self.started = 0  # pools whose `pool:` line was seen

    def warn(self, message: str) -> None:
        if len(self.warnings) < MAX_WARNINGS:
            self.warnings.append(message)

    # -- lines ---------------------------------------------------------------------------

    def line(self, number: int, raw: str) -> None:
        text = raw.expandtabs(TAB).rstrip()
        if not text.strip():
            return
        pool = _POOL.match(text)
        if pool:
            self.finish(ended_by=f"the next pool ('{pool.group('name')}') began")
            self.draft = _PoolDraft(name=pool.group("name"))
            self.started += 1
            return
        draft = self.draft
        if draft is None:
            if text.strip() != "no pools available":
                raise ZpoolStatusParseError(
                    f"expected '  pool: NAME' to begin, found {_shown(text)} on line {number}"
                )
            return
        if draft.complete:
            return  # the error file list of -v, dedup statistics: not kept
        found = _FIELD.match(text)
        if found and not (draft.in_config and text.startswith(" ")):
            self.field(draft, found.group("key"), found.group("value"))
            return
        if draft.in_config:
            self.config_line(draft, number, text)
        elif draft.last_field in _CONTINUED and text.startswith(" " * TAB):
            key = draft.last_field
            draft.fields[key] = f"{draft.fields[key]} {text.strip()}".strip()
        else:
            self.warn(f"line {number} of pool '{draft.name}' not understood: {_shown(text)}")

    def field(self, draft: _PoolDraft, key: str, value: str) -> None:
        draft.last_field = key
        if key == "config":
            draft.in_config = not value  # "config: The configuration cannot be determined."
            draft.complete = bool(value)
            if value:
                draft.fields["errors"] = value
            return
        if key == "errors":
            draft.in_config = False
            draft.complete = True
        draft.fields[key] = value

    def config_line(self, draft: _PoolDraft, number: int, text: str) -> None:
        if _CONFIG_HEADER.match(text):
            return
        row = _ROW.match(text) if len(text) <= MAX_LINE else None
        if row is None:
            self.warn(f"config line {number} of pool '{draft.name}' not understood: {_shown(text)}")
            return
        indent = len(row.group("indent"))
        if draft.root_indent is None:
            draft.root_indent = indent
        offset = indent - draft.root_indent
        if offset < 0 or offset % 2:
            self.warn(f"config line {number} of pool '{draft.name}' is out of line: {_shown(text)}")
            return
        depth = offset // 2
        name, state = row.group("name"), row.group("state")
        if depth == 0:
            if state is None and name in _SECTIONS:
                draft.role = _SECTIONS[name]
            elif name == draft.name and draft.root is None:
                draft.root = self.row(row, 0)
            else:
                self.warn(f"config line {number} of pool '{draft.name}': unexpected {name!r}")
            draft.stack = []
            return
        if len(draft.stack) < depth - 1 or (depth > 1 and not draft.stack):
            self.warn(f"config line {number} of pool '{draft.name}' has no parent: {_shown(text)}")
            return
        node = self.row(row, depth)
        del draft.stack[depth - 1 :]
        if depth == 1:
            draft.sections.append((draft.role, node))
        else:
            draft.stack[depth - 2].children.append(node)
        draft.stack.append(node)

    @staticmethod
    def row(match: re.Match[str], depth: int) -> _Row:
        counts = None
        if match.group("read") is not None:
            counts = (
                count_value(match.group("read")),
                count_value(match.group("write")),
                count_value(match.group("cksum")),
            )
        return _Row(depth, match.group("name"), match.group("state"), counts, match.group("note"))

    # -- pools ---------------------------------------------------------------------------

    def finish(self, ended_by: str) -> None:
        """Close the pool being read: keep it if complete, else leave it out and say so."""
        draft, self.draft = self.draft, None
        if draft is None:
            return
        if not draft.complete:
            self.truncated = True
            self.warn(f"pool '{draft.name}' left out: {ended_by} before its 'errors:' line")
            return
        self.pools.append(_pool(draft))


def _pool(draft: _PoolDraft) -> Pool:
    fields = draft.fields
    errors = fields.get("errors")
    data_errors = None
    if errors is not None:
        counted = _DATA_ERRORS.match(errors)
        data_errors = int(counted.group(1)) if counted else 0 if "No known" in errors else None
    made = Pool(
        id=pool_id(draft.name),
        name=draft.name,
        state=fields.get("state"),
        status=fields.get("status"),
        action=fields.get("action"),
        scan=fields.get("scan"),
        errors=errors,
        data_errors=data_errors,
    )
    if draft.root is not None and draft.root.counts is not None:
        made.read_errors, made.write_errors, made.checksum_errors = draft.root.counts
    for role, row in draft.sections:
        section = "" if role is VdevRole.DATA else f"/{_SECTION_NAMES[role]}"
        made.vdevs.append(_vdev(row, role, f"{made.id}{section}"))
    return made


def _vdev(row: _Row, role: VdevRole, parent_id: str) -> Vdev:
    leaf = not row.children
    vdev = Vdev(
        id=f"{parent_id}/{row.name.lstrip('/')}",  # a leaf path joins without a doubled slash
        name=row.name,
        kind=vdev_kind(row.name, leaf),
        role=role,
        state=row.state,
        note=row.note,
    )
    if row.counts is not None:
        vdev.read_errors, vdev.write_errors, vdev.checksum_errors = row.counts
    if leaf and vdev.kind in (VdevKind.DISK, VdevKind.FILE):
        was = _WAS.search(row.note or "")
        vdev.device_path = row.name if row.name.startswith("/") else was.group(1) if was else None
    vdev.children = [_vdev(child, role, vdev.id) for child in row.children]
    return vdev


def _shown(text: str) -> str:
    """A line as quoted in a message: stripped and cut to 80 characters."""
    stripped = text.strip()
    return repr(stripped if len(stripped) <= 80 else stripped[:77] + "...")


def parse_zpool_status(text: str) -> ZpoolStatus:
    """The pools of `zpool status [-P]` output; see the module docstring for bad input."""
    if "\x00" in text:
        raise ZpoolStatusParseError("binary data where text was expected")
    lines = text.split("\n")
    last = lines.pop()  # "" when the text ends with a newline, else a line cut short
    parser = _Parser()
    for number, line in enumerate(lines, start=1):
        parser.line(number, line)
    if last.strip():
        if _FIELD.match(last.expandtabs(TAB)) and last.lstrip().startswith("errors:"):
            parser.line(len(lines) + 1, last)
        else:
            parser.warn(f"last line ignored (cut short, no newline): {_shown(last)}")
    parser.finish(ended_by="the text ended")
    if parser.started and not parser.pools:
        raise ZpoolStatusParseError(
            "no pool is complete: " + "; ".join(w for w in parser.warnings if "left out" in w)
        )
    return ZpoolStatus(pools=parser.pools, truncated=parser.truncated, warnings=parser.warnings)
