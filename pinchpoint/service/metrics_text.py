"""The per-disk `/metrics` families written straight as text format 0.0.4 lines: what
`generate_latest` writes for the same families, byte for byte, without a sample object and a
label escaping per disk (the disk work counters and `pinchpoint_disk_info` are 8,640 of the
9,372 lines of a 960-disk host, most of a render). Each disk's label text is made once per disk
(it changes only with the inventory). `text_of` joins them with the families prometheus_client
writes itself, in order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from operator import attrgetter
from typing import cast

from prometheus_client.core import Metric
from prometheus_client.exposition import generate_latest
from prometheus_client.utils import floatToGoString

from pinchpoint.stats.disk_work import DiskWork

_go_float = cast(Callable[[float], str], floatToGoString)  # how the text format writes a value


class InfoText:
    """An info family (`<name>_info`, one series per disk) as text lines, as `generate_latest`
    writes an `InfoMetricFamily` of the same rows."""

    def __init__(self, name: str, help_text: str, rows: list[tuple[str, dict[str, str]]]) -> None:
        self.name = name
        self.help_text = help_text
        self.rows = rows

    def text(self) -> str:
        name = f"{self.name}_info"
        return "".join(
            [
                f"# HELP {name} {_help(self.help_text)}\n# TYPE {name} gauge\n",
                *[
                    _info_line(name, tuple(sorted({"disk": disk_id, **labels}.items())))
                    for disk_id, labels in self.rows
                ],
            ]
        )


class WorkText:
    """One disk work counter family (`<name>_total`, one series per disk) as text lines, as
    `generate_latest` writes a `CounterMetricFamily` of the same values."""

    def __init__(self, name: str, help_text: str, work: Sequence[DiskWork], field: str) -> None:
        self.name = name
        self.help_text = help_text
        self.work = work
        self.field = field

    def text(self) -> str:
        name = f"{self.name}_total"
        get = attrgetter(self.field)
        return "".join(
            [
                f"# HELP {name} {_help(self.help_text)}\n# TYPE {name} counter\n",
                *[f"{name}{_disk_label(w.disk)} {_go_float(get(w))}\n" for w in self.work],
            ]
        )


def text_of(families: Iterable[Metric | InfoText | WorkText]) -> bytes:
    """The exposition of `families` in order: runs of ordinary families through
    `generate_latest`, the direct ones as their own text."""
    parts: list[bytes] = []
    run: list[Metric] = []
    for family in families:
        if isinstance(family, WorkText | InfoText):
            if run:
                parts.append(generate_latest(_Run(run)))
                run = []
            parts.append(family.text().encode())
        else:
            run.append(family)
    if run:
        parts.append(generate_latest(_Run(run)))
    return b"".join(parts)


class _Run:
    """Families in a row, as `generate_latest` collects them."""

    def __init__(self, families: list[Metric]) -> None:
        self.families = families

    def collect(self) -> list[Metric]:
        return self.families


@lru_cache(maxsize=16384)
def _info_line(name: str, labels: tuple[tuple[str, str], ...]) -> str:
    """One info line of labels sorted by name, as the text format writes it."""
    joined = ",".join(f'{key}="{_label_value(value)}"' for key, value in labels)
    return f"{name}{{{joined}}} 1.0\n"


@lru_cache(maxsize=16384)
def _disk_label(disk: str) -> str:
    """`{disk="…"}` with the value escaped as the text format escapes it."""
    return f'{{disk="{_label_value(disk)}"}}'


def _help(text: str) -> str:
    """A help text escaped as the text format escapes it."""
    return text.replace("\\", r"\\").replace("\n", r"\n")


def _label_value(value: str) -> str:
    """A label value escaped as the text format escapes it."""
    return value.replace("\\", r"\\").replace("\n", r"\n").replace('"', r"\"")
