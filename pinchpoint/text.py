"""Text that came from a host, made safe to print, log and serialise.

Everything a host hands us — a host name in a manifest, a vendor string in sysfs, a file name in a
snapshot, a tool's output — is data, never terminal control. Two functions hold the whole policy:

- `printable(text)`: control characters (C0, DEL, C1, so every ESC sequence and BEL), bidi
  overrides and isolates, and lone surrogates are written as visible escapes (`\\x1b`,
  `\\u202e`), so a host name `evil\\x1b[2J` prints as exactly that. The terminal renderers, the log
  formatter and the report renderers use it.
- `host_text(raw)`: bytes from a host as text; bytes that are not UTF-8 become `\\xe9`-style
  escapes (kept, visible, and valid in JSON), the same decoding everywhere bytes become text.

This module imports nothing of ours: every layer may use it.
"""

from __future__ import annotations

import json
import logging
import re
from datetime import UTC, datetime
from typing import TextIO

# C0 controls but tab and newline (those two escaped unless `lines`), DEL and C1; the Unicode
# bidi controls that reorder what a terminal shows (LRM/RLM, ALM, embeddings and overrides,
# isolates); lone surrogates (what `surrogateescape` makes of bytes that are not UTF-8).
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_UNSAFE_OR_NEWLINE = re.compile(_UNSAFE.pattern[:-1] + "\t\n]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # a byte `surrogateescape` kept: show the byte
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, *, lines: bool = False) -> str:
    """`text` with every control character written as a visible escape (`\\x1b`, `\\u202e`).
    Newlines and tabs are escaped too (a host name cannot start a forged log line) unless
    `lines` (a whole page of text)."""
    pattern = _UNSAFE if lines else _UNSAFE_OR_NEWLINE
    return pattern.sub(_escape, text)


def json_safe(text: str) -> str:
    """`text` without lone surrogates (JSON and UTF-8 cannot carry them): each becomes the escape
    of the byte it stood for. Other characters are kept as they are."""
    return _SURROGATE.sub(_escape, text)


# What JSON may carry raw but a terminal would obey: DEL, C1 (0x9b is CSI), bidi controls.
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def json_printable(document: str) -> str:
    """A JSON document with the characters a terminal would obey written as `\\u009b`-style
    escapes (JSON already escapes C0): the same data, safe to print. Such characters only occur
    inside JSON strings, where the escape means the same character."""
    return _JSON_UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", document)


def host_text(raw: bytes) -> str:
    """Bytes from a host (a file, a tool's output, a file name) as text: UTF-8, with every byte
    that is not UTF-8 kept as a `\\xNN` escape."""
    return raw.decode("utf-8", errors="backslashreplace")


def host_name_text(name: str) -> str:
    """A name the OS handed over as `str` (`os.listdir`, `os.readlink`: bytes that are not
    UTF-8 arrive as lone surrogates) decoded as `host_text` decodes bytes."""
    if _SURROGATE.search(name) is None:
        return name
    return host_text(name.encode("utf-8", errors="surrogateescape"))


class PrintableFormatter(logging.Formatter):
    """A log formatter that escapes control characters in each message (newlines included: one
    record is one line) and in tracebacks (their newlines kept)."""

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 (logging's name)
        record.message = printable(record.message)
        return super().formatMessage(record)

    def formatException(self, ei: object) -> str:  # noqa: N802
        return printable(super().formatException(ei), lines=True)  # type: ignore[arg-type]

    def formatStack(self, stack_info: str) -> str:  # noqa: N802
        return printable(super().formatStack(stack_info), lines=True)


LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
LOG_FORMATS = ("text", "json")

# The web server's access log record: uvicorn logs (client, method, path, HTTP version, status).
_ACCESS_LOGGER = "uvicorn.access"
# Loggers whose INFO lines are routine: APScheduler's executor says "Running job" and "executed
# successfully" for every job it runs (the sampler runs every 10 s), two lines that drown the log;
# its scheduler says "Added job" for each job at start. Their warnings and errors stay as they are.
ROUTINE_LOGGERS = ("apscheduler.executors.default", "apscheduler.scheduler")


class JsonLinesFormatter(logging.Formatter):
    """One JSON object per record, per line (journald, Loki, jq): `time` (ISO 8601, UTC), `level`,
    `logger`, `message`, `exception` when there is one, and for an access-log record `client`,
    `method`, `path`, `status`. JSON escapes every control character, so host text stays data."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        args = record.args
        if record.name == _ACCESS_LOGGER and isinstance(args, tuple) and len(args) == 5:
            client, method, path, _version, status = args
            entry.update(client=client, method=method, path=path, status=status)
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, ensure_ascii=True, default=str)


class RoutineAsDebug(logging.Filter):
    """Logs a routine logger's INFO records at DEBUG: shown only when the level is debug."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno == logging.INFO:
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            return logging.getLogger().isEnabledFor(logging.DEBUG)
        return True


def configure_logging(level: str, stream: TextIO | None = None, log_format: str = "text") -> None:
    """The service's logs on stderr (or `stream`) through the root logger, which the web server's
    and the scheduler's loggers propagate to: one escaped line per record (`text`), or one JSON
    object per line (`json`); the scheduler's routine INFO lines at DEBUG."""
    if log_format not in LOG_FORMATS:
        raise ValueError(f"log format {log_format!r}: use one of {', '.join(LOG_FORMATS)}")
    logging.basicConfig(level=level.upper(), format=LOG_FORMAT, stream=stream)
    formatter = JsonLinesFormatter() if log_format == "json" else PrintableFormatter(LOG_FORMAT)
    for handler in logging.getLogger().handlers:
        handler.setFormatter(formatter)
    for name in ROUTINE_LOGGERS:
        routine = logging.getLogger(name)
        if not any(isinstance(f, RoutineAsDebug) for f in routine.filters):
            routine.addFilter(RoutineAsDebug())
