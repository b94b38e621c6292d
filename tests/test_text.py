"""`pinchpoint.text`: text from hosts made safe to print, log and serialise."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Callable, Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pinchpoint.text import (
    JsonLinesFormatter,
    PrintableFormatter,
    configure_logging,
    host_name_text,
    host_text,
    json_printable,
    json_safe,
    printable,
)

EVIL_HOST = "evil\x1b[2J\x1b]0;pwn\x07"


def test_escape_sequences_become_visible_text() -> None:
    assert printable(EVIL_HOST) == "evil\\x1b[2J\\x1b]0;pwn\\x07"


def test_c1_del_bidi_and_newlines_are_escaped() -> None:
    assert printable("a\x9bb\x7fc\u202ed\u2066e") == "a\\x9bb\\x7fc\\u202ed\\u2066e"
    assert printable("one\ntwo\tthree") == "one\\x0atwo\\x09three"
    assert printable("one\ntwo\tthree", lines=True) == "one\ntwo\tthree"


def test_ordinary_text_is_kept() -> None:
    text = "HGST H4060-J — 4×12G µs ≥ 500 ms [bold]"
    assert printable(text) == text


@given(st.text())
def test_no_control_character_survives(text: str) -> None:
    shown = printable(text)
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in shown)
    assert printable(shown) == shown  # escaping twice changes nothing
    shown.encode("utf-8")  # no lone surrogate either


def test_bytes_that_are_not_utf8_are_kept_as_escapes() -> None:
    assert host_text(b"S\xe9agate\xff") == "S\\xe9agate\\xff"
    assert host_text("Sé".encode()) == "Sé"


@given(st.binary())
def test_any_bytes_decode_to_text_json_can_carry(raw: bytes) -> None:
    text = host_text(raw)
    assert json.loads(json.dumps(text, ensure_ascii=False)) == text
    text.encode("utf-8")


def test_os_names_with_undecodable_bytes_decode_like_bytes() -> None:
    name = b"eth\xe9\xff".decode("utf-8", errors="surrogateescape")  # as os.listdir gives it
    assert host_name_text(name) == "eth\\xe9\\xff"
    assert json_safe(name) == "eth\\xe9\\xff"
    assert host_name_text("eno1") == "eno1"


def test_log_records_are_one_escaped_line() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(PrintableFormatter("%(levelname)s %(message)s"))
    log = logging.getLogger("pinchpoint.test_text")
    log.addHandler(handler)
    log.propagate = False
    try:
        log.warning("daily report of %s written", EVIL_HOST + "\nFAKE forged line")
        try:
            raise ValueError(EVIL_HOST)
        except ValueError:
            log.exception("sweep failed")
    finally:
        log.removeHandler(handler)
    out = stream.getvalue()
    assert "\x1b" not in out and "\x07" not in out
    assert "\nFAKE" not in out
    assert "WARNING daily report of evil\\x1b[2J" in out
    assert "ValueError: evil\\x1b[2J" in out


def test_the_service_logging_escapes_every_record() -> None:
    root = logging.getLogger()
    before = list(root.handlers)
    for handler in before:
        root.removeHandler(handler)
    try:
        configure_logging("info")
        assert root.handlers
        assert all(isinstance(h.formatter, PrintableFormatter) for h in root.handlers)
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in before:
            root.addHandler(handler)


def test_json_printable_escapes_what_a_terminal_obeys_and_keeps_the_data() -> None:
    document = json.dumps({"vendor": "HGST\x9b2J\u202eevil\x7f"}, ensure_ascii=False)
    shown = json_printable(document)
    assert not any(c in shown for c in "\x9b\u202e\x7f")
    assert json.loads(shown) == json.loads(document)


@pytest.fixture
def root_logging() -> Iterator[Callable[[str], io.StringIO]]:
    """Configures the root logger afresh (pytest's own capture handlers taken off) into a buffer
    in the given format; restored afterwards."""
    root = logging.getLogger()
    before, level = list(root.handlers), root.level

    def configure(log_format: str) -> io.StringIO:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        stream = io.StringIO()
        configure_logging("info", stream, log_format=log_format)
        return stream

    try:
        yield configure
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in before:
            root.addHandler(handler)
        root.setLevel(level)


def test_json_logs_are_one_object_per_line_with_host_text_escaped(
    root_logging: Callable[[str], io.StringIO],
) -> None:
    stream = root_logging("json")
    log = logging.getLogger("pinchpoint.test")
    log.warning("daily report of %s", "evil\x1b[2J\u202e")
    try:
        raise ValueError("evil\x07")
    except ValueError:
        log.exception("sweep failed")
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2
    first, second = (json.loads(line) for line in lines)
    assert first["level"] == "WARNING" and first["logger"] == "pinchpoint.test"
    assert first["message"] == "daily report of evil\x1b[2J\u202e"  # the data, kept
    assert "\x1b" not in lines[0] and "\u202e" not in lines[0]  # but never raw on the stream
    assert first["time"].endswith("+00:00")
    assert "ValueError: evil\x07" in second["exception"] and "\x07" not in lines[1]


def test_an_access_log_record_carries_its_fields_in_json() -> None:
    """uvicorn's access record (client, method, path, HTTP version, status) as JSON fields. The
    record is made here, not sent through the `uvicorn.access` logger, whose propagation an
    earlier in-process server may have turned off; tests/api/test_serve_command.py sends real
    requests through a real `serve --log-format json --access-log`."""
    record = logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        __file__,
        1,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", "GET", "/v1/findings?x=\x1b", "1.1", 200),
        None,
    )
    line = JsonLinesFormatter().format(record)
    entry = json.loads(line)
    assert (entry["method"], entry["path"], entry["status"]) == ("GET", "/v1/findings?x=\x1b", 200)
    assert entry["client"] == "127.0.0.1:5000" and "\x1b" not in line


def test_the_schedulers_routine_lines_are_debug(
    root_logging: Callable[[str], io.StringIO],
) -> None:
    stream = root_logging("text")
    executor = logging.getLogger("apscheduler.executors.default")
    executor.info('Running job "sample_stats"')
    executor.warning("Run time of job was missed")
    shown = stream.getvalue()
    assert "Running job" not in shown and "WARNING" in shown and "missed" in shown
    logging.getLogger().setLevel(logging.DEBUG)
    executor.info('Job "sample_stats" executed successfully')
    assert "DEBUG apscheduler.executors.default: Job" in stream.getvalue()


def test_an_unknown_log_format_is_refused() -> None:
    with pytest.raises(ValueError, match="text, json"):
        configure_logging("info", io.StringIO(), log_format="xml")
