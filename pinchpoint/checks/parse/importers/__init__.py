"""Statistics files from other tools, parsed into one model (`ImportedStats`).

`parse_stats(text, kind, source_name)` reads the text of `zpool iostat -wvHp` / `-lvHp`,
`iostat -x` text or JSON, fio JSON and Windows PerfMon CSV. Without a kind it is guessed from
the content (`guess_kind`). Names stay as the tool printed them; matching them to the inventory
is done later (`pinchpoint.stats`). Reading a file from disk is
`pinchpoint.checks.collect.imports.import_stats`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pinchpoint.checks.parse.importers.ebpf_json import parse_ebpf_json
from pinchpoint.checks.parse.importers.fio_json import parse_fio_json
from pinchpoint.checks.parse.importers.iostat_json import parse_iostat_json
from pinchpoint.checks.parse.importers.iostat_text import parse_iostat_text
from pinchpoint.checks.parse.importers.perfmon_csv import is_perfmon, parse_perfmon_csv
from pinchpoint.checks.parse.importers.series import StatsImportError, decode_text, usable_text
from pinchpoint.checks.parse.importers.zpool_iostat import (
    HISTOGRAM_WIDTHS,
    LATENCY_WIDTHS,
    parse_zpool_histograms,
    parse_zpool_latency,
)
from pinchpoint.model.stats import ImportedStats, ImportKind

__all__ = ["StatsImportError", "decode_text", "guess_kind", "parse_stats"]

PARSERS: dict[ImportKind, Callable[[str, str], ImportedStats]] = {
    ImportKind.ZPOOL_IOSTAT_W: parse_zpool_histograms,
    ImportKind.ZPOOL_IOSTAT_L: parse_zpool_latency,
    ImportKind.IOSTAT_TEXT: parse_iostat_text,
    ImportKind.IOSTAT_JSON: parse_iostat_json,
    ImportKind.FIO_JSON: parse_fio_json,
    ImportKind.PERFMON_CSV: parse_perfmon_csv,
    ImportKind.EBPF: parse_ebpf_json,
}
_IOSTAT_HEADER = re.compile(r"^Device:?\s+\S+/s", re.MULTILINE)


def _tab_widths(text: str) -> set[int]:
    """How many tab-separated cells the first lines hold (zpool -H output is tab-separated)."""
    return {len(line.split("\t")) for line in text.splitlines()[:200] if "\t" in line}


def guess_kind(text: str) -> ImportKind | None:
    """The format of `text` from its content, or None when it looks like none of them."""
    head = text.lstrip("\ufeff \r\n")[:4096]
    if is_perfmon(head):
        return ImportKind.PERFMON_CSV
    if '"source": "ebpf"' in head or '"source":"ebpf"' in head:
        return ImportKind.EBPF
    if '"sysstat"' in head:
        return ImportKind.IOSTAT_JSON
    if '"fio version"' in head or '"jobs"' in head or '"client_stats"' in head:
        return ImportKind.FIO_JSON
    if _IOSTAT_HEADER.search(text[:65536]):
        return ImportKind.IOSTAT_TEXT
    widths = _tab_widths(text)
    if widths and widths <= {w + 1 for w in HISTOGRAM_WIDTHS}:
        return ImportKind.ZPOOL_IOSTAT_W
    if widths and widths <= set(LATENCY_WIDTHS):
        return ImportKind.ZPOOL_IOSTAT_L
    return None


def parse_stats(
    text: str, kind: ImportKind | None = None, source_name: str = "<text>"
) -> ImportedStats:
    """The statistics in `text` (a file's content, named `source_name` in messages), read as
    `kind` (guessed from the content when None).

    Raises `StatsImportError` with a one-line reason when nothing can be imported; lines that
    cannot be used are skipped and counted in the result instead.
    """
    text = usable_text(text, source_name)
    if kind is None:
        kind = guess_kind(text)
        if kind is None:
            known = ", ".join(k.value for k in ImportKind)
            raise StatsImportError(f"{source_name}: unknown format (give --kind, one of: {known})")
    return PARSERS[kind](text, source_name)
