"""Block device counters of `/proc/diskstats` (and `/sys/block/<dev>/stat`), parsed once.

A line is `major minor name` followed by 11, 15 or 17 counters since boot: 14 fields before
Linux 4.18, 18 with discards (4.18), 20 with flushes (5.5). Kernels before 2.6.25 printed
partitions with only 4 counters (7 fields): no times, so no iostat -x figures; such lines are
skipped with that reason. A line that does not read as numbers, a device named twice (the
first line is kept) and a counter beyond 64 bits (no kernel prints one) are skipped and
counted, and the rest of the file stands.

The one parser is `parse_diskstats_table`: the file into a compact raw `DiskstatsTable` (the
names, and one flat unsigned 64-bit array of `ROW` numbers per device: major, minor, then the 17
counters in the kernel's order, those a layout lacks as 0). The live sampler parses 2,000
devices every second with it and must stay cheap (bench/sampler_bench.py: about 10 µs a device,
no pydantic object per device), so a file whose every line has the same layout, all numbers but
the name, ASCII names and no device twice (every real kernel since 2.6.25) is parsed in bulk;
anything else line by line, with the rules above. A live reader reads the file again every
second: given the table of its read before (`previous`, parsed `framed`), a file whose lines
begin as they did (the same devices, in the same order) is read against it (`_reread`): only
the lines that changed are split, only the counter columns that changed in them are converted,
and the table is the one the whole parse gives (tests/checks/parse/test_diskstats_reread.py).
A line of a device left out (`leave_out`) is not read past its name by any of the three.
Where a caller wants models, they are derived from the table: `table_counters` (a
`DiskstatsCounters` per device), `table_sample` (a `DiskstatsSample`), `parse_diskstats` (text
to models).

Reading the file (a snapshot's samples, the live host) is `pinchpoint.checks.collect.diskstats`.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import lru_cache
from itertools import compress
from operator import itemgetter, ne
from typing import Any

from pinchpoint.model.problems import CollectionProblem, ProblemKind
from pinchpoint.model.stats import (
    DISKSTATS_COUNTER_FIELDS,
    DiskstatsCounters,
    DiskstatsSample,
    ParseSkips,
)

__all__ = [
    "COUNTERS",
    "DISKSTATS",
    "PART",
    "ROW",
    "DiskstatsParseError",
    "DiskstatsTable",
    "parse_block_stat",
    "parse_diskstats",
    "parse_diskstats_table",
    "table_counters",
    "table_sample",
]

DISKSTATS = "/proc/diskstats"
PART = "diskstats"  # the part named in the problems of this file
COUNTERS = 17  # counters of a 20-field line; 14- and 18-field lines lack the last 6 or 2
ROW = 2 + COUNTERS  # numbers kept per device: major, minor, the counters
LAYOUTS = (14, 18, 20)  # fields per line
_OLD_PARTITION_FIELDS = 7  # pre-2.6.25: "major minor name reads sectors writes sectors"
_LINE_BREAKS_OF_STR = (b"\r", b"\x0b", b"\x0c")  # str.splitlines breaks there, bytes.split not
_SEPARATOR = b";"


class DiskstatsParseError(ValueError):
    """A stat file does not read as the kernel writes it; the message says what was found."""


@dataclass(frozen=True, slots=True)
class LineFrame:
    """What the next read of the same file is parsed against (`parse_diskstats_table` with
    `previous`): every line's beginning (major, minor, name and the blank after it), the
    devices left out, the rows of the table's devices in the file, those lines as read and
    split, and their field count (one for all)."""

    prefixes: tuple[bytes, ...]
    leave_out: frozenset[str]
    kept: tuple[int, ...]
    lines: tuple[bytes, ...]
    words: list[bytes]  # those lines' words as `_line_words` splits them
    fields: int


@dataclass(frozen=True, slots=True)
class DiskstatsTable:
    """Every device's counters at one moment, kept raw: `numbers` holds `ROW` numbers per
    device in the order of `names` (major, minor, the 17 counters; absent ones 0), `layouts`
    each line's field count (14, 18 or 20), `index` a device's position. The clock is the
    monotonic one when read live, `/proc/uptime` (`uptime_s`) in a snapshot's series, where
    only the first sample carries a capture time (`taken_at`)."""

    monotonic_s: float | None
    taken_at: datetime | None
    names: list[str] = field(default_factory=list)
    numbers: array[int] = field(default_factory=lambda: array("Q"))
    layouts: bytes = b""
    index: dict[str, int] = field(default_factory=dict)
    skipped: ParseSkips = field(default_factory=ParseSkips)
    problems: list[CollectionProblem] = field(default_factory=list)
    uptime_s: float | None = None
    frame: LineFrame | None = field(default=None, compare=False, repr=False)

    def column(self, counter: int) -> array[int]:
        """One counter (0 = reads … 16 = flush_ms) of every device, in the order of `names`."""
        return self.numbers[2 + counter :: ROW]

    def counters(self, position: int) -> tuple[int, ...]:
        """The 17 counters of the device at `position`, in the kernel's order."""
        start = position * ROW + 2
        return tuple(self.numbers[start : start + COUNTERS])


def parse_diskstats_table(
    data: bytes,
    monotonic_s: float | None,
    taken_at: datetime | None,
    path: str = DISKSTATS,
    leave_out: frozenset[str] = frozenset(),
    previous: DiskstatsTable | None = None,
    framed: bool = False,
) -> DiskstatsTable:
    """The table of one read of `path`, with the clock it was read at; lines that cannot be
    used are skipped and counted, with a problem saying so (an empty file is a problem too).
    Devices named in `leave_out` (the live sampler's partitions: their disk's line counts them)
    are not in the table, and their lines are not read past the name.

    `previous` is the table of the read before (a live reader's), parsed `framed`: when
    every line begins as it did then, only the lines of its devices that changed are read
    (`_reread`); the table is the one the whole parse gives. `framed` keeps the file's
    `LineFrame` in the table for the next read."""
    if previous is not None and previous.frame is not None:
        again = _reread(data, previous.frame, leave_out, previous.numbers)
        if again is not None:
            numbers, frame = again
            return DiskstatsTable(
                monotonic_s=monotonic_s,
                taken_at=taken_at,
                names=previous.names,
                numbers=numbers,
                layouts=previous.layouts,
                index=previous.index,
                frame=frame if framed else None,
            )
    problems: list[CollectionProblem] = []
    skips = ParseSkips()
    uniform = _uniform_table(data, leave_out) if data.strip() else None
    if uniform is not None:
        names, numbers, layouts = uniform
    else:
        text = data.decode("utf-8", errors="replace")
        names, numbers, layouts = _table_line_by_line(text, skips, leave_out)
    if not data.strip():
        problems.append(_garbled(path, "empty file: no block device counters"))
    elif skips.count:
        problems.append(_garbled(path, skips.summary() or ""))
    return DiskstatsTable(
        monotonic_s=monotonic_s,
        taken_at=taken_at,
        names=names,
        numbers=numbers,
        layouts=layouts,
        index=dict(zip(names, range(len(names)), strict=True)),
        skipped=skips,
        problems=problems,
        frame=_line_frame(data, leave_out, names, numbers, layouts) if framed else None,
    )


def _garbled(path: str, reason: str) -> CollectionProblem:
    return CollectionProblem(part=PART, subject=path, kind=ProblemKind.GARBLED, reason=reason)


def _uniform_table(
    data: bytes, leave_out: frozenset[str] = frozenset()
) -> tuple[list[str], array[int], bytes] | None:
    """Names, numbers and layouts of a file whose lines all have one layout and read cleanly
    (the lines of `leave_out` aside); None when any line does not (the caller then parses line
    by line)."""
    if not data.endswith(b"\n"):
        data += b"\n"
    lines = data.count(b"\n")
    if any(mark in data for mark in _LINE_BREAKS_OF_STR):
        return None
    # Each line break becomes a word of its own: every line has the same layout when these
    # words sit every (fields + 1) words and nowhere else (a number cannot be one, a name is
    # checked).
    words = data.replace(b"\n", b" ; ").split()
    fields = len(words) // lines - 1
    if (
        fields not in LAYOUTS
        or len(words) != (fields + 1) * lines
        or words[fields :: fields + 1].count(_SEPARATOR) != lines
    ):
        return None
    layout = _rows(b" ".join(words[2 :: fields + 1]), fields, leave_out)
    if layout is None:
        return None
    names, pick = layout
    if pick is None:  # every line kept: the names and separators taken out in place
        del words[fields :: fields + 1]
        del words[2::fields]
        numbers_read: list[bytes] | tuple[bytes, ...] = words
    else:
        numbers_read = pick(words)
    if numbers_read and not b"".join(numbers_read).isdigit():  # ASCII digits only, no sign
        return None
    try:
        numbers = array("Q", list(map(int, numbers_read)))
    except OverflowError:
        return None
    width = fields - 1  # numbers per line: major, minor and 11, 15 or 17 counters
    kept = len(names)
    if width != ROW:
        padded = array("Q", bytes(numbers.itemsize * ROW * kept))
        for position in range(width):
            padded[position::ROW] = numbers[position::width]
        numbers = padded
    return names, numbers, bytes([fields]) * kept


@lru_cache(maxsize=8)
def _rows(
    joined: bytes, fields: int, leave_out: frozenset[str]
) -> tuple[list[str], itemgetter[Any] | None] | None:
    """The names of a bulk file's lines (`joined` by spaces) that are kept, and what picks
    their numbers out of its words (None: every line is kept); None when the names do not
    read cleanly. Worked out once per list of names: a live host's stays the same from one
    read to the next."""
    if _SEPARATOR in joined.split(b" "):
        return None
    if not (joined.isascii() and joined.decode().isprintable()):
        return None
    names = joined.decode().split(" ")
    if len(set(names)) != len(names):  # a device twice: the first line is kept, and said
        return None
    kept = [row for row, name in enumerate(names) if name not in leave_out]
    if len(kept) == len(names):
        return names, None
    if not kept:
        return [], itemgetter(slice(0, 0))  # no line kept: no number read
    stride = fields + 1
    columns = [0, 1, *range(3, fields)]  # major, minor, the counters: not the name, not ";"
    at = [row * stride + column for row in kept for column in columns]
    return [names[row] for row in kept], itemgetter(*at)  # a line holds 13 numbers or more


# -- a live reader's next read: the same lines as before -----------------------------------------

# Where the line-by-line parse (`str.splitlines`, `str.split`) breaks a line or a word and
# `bytes.split` does not, and the mark `_kept_numbers` puts between lines: a file holding any
# is parsed whole.
_NOT_IN_FRAMED = (*_LINE_BREAKS_OF_STR, b"\x1c", b"\x1d", b"\x1e", b"\x1f", _SEPARATOR)


def _plain(data: bytes) -> bool:
    """Whether `data` can be read line by line by splitting at `\\n` alone, as both parses
    read it, and holds no `;` (the bulk parse's line mark)."""
    return data.isascii() and not any(mark in data for mark in _NOT_IN_FRAMED)


def _line_words(lines: Sequence[bytes], fields: int) -> list[bytes] | None:
    """The words of `lines`, each line's `fields` words followed by a `;`; None unless every
    line has `fields` words. `lines` come from a `_plain` file: the only `;` words are the marks
    put between them here, so a line of another length moves one out of its place."""
    if not lines:
        return []
    stride = fields + 1
    words = (b" ; ".join(lines) + b" ;").split()
    if len(words) != stride * len(lines) or words[fields::stride].count(_SEPARATOR) != len(lines):
        return None
    return words


def _kept_numbers(words: list[bytes], fields: int) -> array[int] | None:
    """The `ROW` numbers of each line of `words` (`_line_words`: major, minor, the counters;
    those of a shorter layout 0), when they are numbers as `_uniform_table` reads them."""
    numbers_read = words[:]
    del numbers_read[fields :: fields + 1]
    del numbers_read[2::fields]  # the names
    if numbers_read and not b"".join(numbers_read).isdigit():
        return None
    try:
        numbers = array("Q", list(map(int, numbers_read)))
    except OverflowError:
        return None
    width = fields - 1
    if width != ROW:
        padded = array("Q", bytes(numbers.itemsize * ROW * (len(words) // (fields + 1))))
        for position in range(width):
            padded[position::ROW] = numbers[position::width]
        numbers = padded
    return numbers


def _changed_numbers(
    words: list[bytes], before: list[bytes], rows: array[int], fields: int
) -> bool:
    """`rows` (the `ROW` numbers of lines whose words were `before`, which read cleanly) made
    those of the same devices' lines split into `words` now, in place; False when one does not
    read cleanly. Only a counter that changed in some line is read: a column of counters as
    it was (a counter no device uses, a busy disk's discards) is a comparison of words."""
    stride = fields + 1
    for position in range(3, fields):  # the counters: major, minor and name begin the line
        column = words[position::stride]
        if column == before[position::stride]:
            continue
        if not b"".join(column).isdigit():
            return False
        try:
            rows[position - 1 :: ROW] = array("Q", list(map(int, column)))
        except OverflowError:
            return False
    return True


def _line_frame(
    data: bytes,
    leave_out: frozenset[str],
    names: list[str],
    numbers: array[int],
    layouts: bytes,
) -> LineFrame | None:
    """The frame of a file just parsed into `names`, `numbers` and `layouts`; None when its
    next read could not be parsed against it: it is not `_plain`, a line has no counter after
    its name, its devices do not share one layout, or their lines are not all read (skipped)
    or not read as `_kept_numbers` reads them."""
    if len(set(layouts)) > 1 or not _plain(data):
        return None
    lines = data.split(b"\n")
    if lines.pop():  # no line break at the end
        return None
    prefixes = []
    kept = []
    found = []
    for row, line in enumerate(lines):
        begun = line.split(None, 3)  # major, minor, name, the rest
        if len(begun) < 4:
            return None
        prefixes.append(line[: len(line) - len(begun[3])])
        name = begun[2].decode()
        if name not in leave_out:
            kept.append(row)
            found.append(name)
    if found != names:
        return None
    kept_lines = tuple(lines[row] for row in kept)
    fields = layouts[0] if layouts else LAYOUTS[-1]
    words = _line_words(kept_lines, fields)
    if words is None or _kept_numbers(words, fields) != numbers:
        return None
    return LineFrame(tuple(prefixes), leave_out, tuple(kept), kept_lines, words, fields)


def _reread(
    data: bytes, frame: LineFrame, leave_out: frozenset[str], numbers: array[int]
) -> tuple[array[int], LineFrame] | None:
    """The numbers of a file whose lines begin as `frame`'s did (the same devices in the same
    order, the same left out), and its frame; None when they do not, or a changed line does
    not read cleanly (the whole parse then says what). A device's line that did not change
    keeps its `numbers`: an idle disk costs a comparison of bytes."""
    if frame.leave_out is not leave_out and frame.leave_out != leave_out:
        return None
    if not _plain(data):
        return None
    lines = data.split(b"\n")
    if lines.pop() or len(lines) != len(frame.prefixes):
        return None
    if not all(map(bytes.startswith, lines, frame.prefixes)):
        return None
    kept = tuple(lines[row] for row in frame.kept)
    changed = list(compress(range(len(kept)), map(ne, kept, frame.lines)))
    if not changed:
        return numbers[:], replace(frame, lines=kept)
    fields = frame.fields
    stride = fields + 1
    found = numbers[:]
    if len(changed) == len(kept):
        every = _line_words(kept, fields)
        if every is None or not _changed_numbers(every, frame.words, found, fields):
            return None
        return found, replace(frame, lines=kept, words=every)
    # some lines changed: their rows and words taken out, read, and put back
    rows = array("Q")
    before: list[bytes] = []
    for at in changed:
        rows.extend(numbers[at * ROW : (at + 1) * ROW])
        before.extend(frame.words[at * stride : (at + 1) * stride])
    now = _line_words([kept[at] for at in changed], fields)
    if now is None or not _changed_numbers(now, before, rows, fields):
        return None
    words = frame.words[:]
    for row, at in enumerate(changed):
        found[at * ROW : (at + 1) * ROW] = rows[row * ROW : (row + 1) * ROW]
        words[at * stride : (at + 1) * stride] = now[row * stride : (row + 1) * stride]
    return found, replace(frame, lines=kept, words=words)


def _is_count(text: str) -> bool:
    """A non-negative decimal integer as the kernel prints it (no sign, no `_`, ASCII only)."""
    return text.isascii() and text.isdigit()


def _table_line_by_line(
    text: str, skips: ParseSkips, leave_out: frozenset[str] = frozenset()
) -> tuple[list[str], array[int], bytes]:
    """Names, numbers and layouts of every usable line; the others counted in `skips`. A
    line of a device in `leave_out` is passed over, whatever follows its name."""
    names: list[str] = []
    numbers = array("Q")
    layouts = bytearray()
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        count = len(fields)
        if count == 0 or (count >= 3 and fields[2] in leave_out):
            continue
        if count not in LAYOUTS:
            if count < LAYOUTS[0]:
                if count == _OLD_PARTITION_FIELDS:
                    reason = "partition line of a kernel before 2.6.25 (4 counters, no times)"
                else:
                    reason = f"expected 14, 18 or 20 fields, found {count}"
                skips.add(number, line, reason)
                continue
            # Between the layouts (17 fields, as some older kernels write for some devices) or
            # beyond them: read as sysstat reads it — the largest layout the line fills, the
            # rest ignored (its sscanf takes 20 fields and judges by how many it got).
            count = max(layout for layout in LAYOUTS if layout <= count)
            fields = fields[:count]
        major, minor, name = fields[0], fields[1], fields[2]
        counters = fields[3:]
        if not _is_count(major + minor + "".join(counters)):
            skips.add(number, line, "a counter is not a non-negative whole number")
            continue
        if not name.isprintable():
            skips.add(number, line, "device name holds unprintable characters")
            continue
        if name in seen:
            skips.add(number, line, f"device {name} listed twice; the first line is kept")
            continue
        seen.add(name)
        try:
            numbers.extend([int(major), int(minor), *map(int, counters)])
        except OverflowError:
            del numbers[len(names) * ROW :]
            skips.add(number, line, "a counter is beyond 64 bits")
            continue
        numbers.extend(bytes(ROW - count + 1))  # the counters this layout lacks, as 0
        names.append(name)
        layouts.append(count)
    return names, numbers, bytes(layouts)


# -- models, where a caller wants them ----------------------------------------------------------

# Per layout (number of counters): the field names of a line, and the fields it lacks.
_COUNTER_LAYOUTS = tuple(n - 3 for n in LAYOUTS)
_KEYS = {
    n: ("major", "minor", "device", *DISKSTATS_COUNTER_FIELDS[:n], "field_count")
    for n in _COUNTER_LAYOUTS
}
_ABSENT = {n: dict.fromkeys(DISKSTATS_COUNTER_FIELDS[n:]) for n in _COUNTER_LAYOUTS}
_FIELD_NAMES = frozenset(DiskstatsCounters.model_fields)


def _counters(major: int, minor: int, device: str, numbers: list[int]) -> DiskstatsCounters:
    """A `DiskstatsCounters` from known-good non-negative ints, without per-field validation.

    This is `model_construct` done directly: 2,000 devices per second made validation (and
    even `model_construct`'s field loop) the largest cost of a sample of models.
    """
    layout = len(numbers)
    line = (major, minor, device, *numbers, layout + 3)
    values: dict[str, Any] = dict(zip(_KEYS[layout], line, strict=True))
    if layout != _COUNTER_LAYOUTS[-1]:
        values.update(_ABSENT[layout])
    counters = object.__new__(DiskstatsCounters)
    object.__setattr__(counters, "__dict__", values)
    object.__setattr__(counters, "__pydantic_fields_set__", _FIELD_NAMES)
    object.__setattr__(counters, "__pydantic_extra__", None)
    object.__setattr__(counters, "__pydantic_private__", None)
    return counters


def table_counters(table: DiskstatsTable) -> list[DiskstatsCounters]:
    """Every device of the table as a `DiskstatsCounters`, the counters its line lacked None."""
    devices = []
    numbers = table.numbers
    for position, (name, layout) in enumerate(zip(table.names, table.layouts, strict=True)):
        start = position * ROW
        row = numbers[start : start + layout - 1].tolist()
        devices.append(_counters(row[0], row[1], name, row[2:]))
    return devices


def table_sample(table: DiskstatsTable) -> DiskstatsSample:
    """The table as a `DiskstatsSample` (every device a `DiskstatsCounters`), for a caller
    that wants to store or compare whole samples; costs what the table saves, so only on demand."""
    return DiskstatsSample.model_construct(
        uptime_s=table.uptime_s,
        monotonic_s=table.monotonic_s,
        taken_at=table.taken_at,
        devices=table_counters(table),
        skipped=table.skipped.model_copy(),
        problems=list(table.problems),
    )


def parse_diskstats(text: str) -> tuple[list[DiskstatsCounters], ParseSkips]:
    """Every usable line of `/proc/diskstats` as a model; the others counted with the first
    example (the rules of `parse_diskstats_table`, which this is derived from)."""
    table = parse_diskstats_table(text.encode("utf-8", errors="surrogatepass"), None, None)
    return table_counters(table), table.skipped


def parse_block_stat(device: str, text: str, major: int = 0, minor: int = 0) -> DiskstatsCounters:
    """The counters of `/sys/block/<device>/stat`: the same 11, 15 or 17 numbers as a
    /proc/diskstats line without its major, minor and name (which the caller may pass)."""
    numbers = text.split()
    if len(numbers) not in _COUNTER_LAYOUTS:
        raise DiskstatsParseError(
            f"{device}: expected 11, 15 or 17 counters in its stat file, found {len(numbers)}"
        )
    if not _is_count("".join(numbers)):
        raise DiskstatsParseError(
            f"{device}: a counter is not a non-negative whole number: {text.strip()[:80]!r}"
        )
    return _counters(major, minor, device, list(map(int, numbers)))
