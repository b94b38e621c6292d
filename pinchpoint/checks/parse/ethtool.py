"""Parsers for what `ethtool IF` and `ethtool -i IF` print, into `pinchpoint.model.network`.

Pure functions of text, no I/O. Accepted shapes:

* the settings report of ethtool 4.x to 6.x, from the ioctl path (older versions) and the
  netlink path (5.6 and later): `Settings for IF:` then indented `Key: value` lines, link
  mode lists wrapped over several lines, "Not reported" for an empty list;
* lines ethtool prints about what it could not read — at the start of a line, before or
  among the settings ("Cannot get wake-on-lan settings: Operation not permitted",
  "netlink error: Operation not permitted"): kept as `messages`, never fatal;
* `# ethtool eth0` comment lines that hand-made captures carry: skipped;
* `ethtool -S IF`: `NIC statistics:` then one indented `name: count` line per counter the
  driver keeps (names are the driver's own: `rx_crc_errors`, `port.rx_dropped`,
  `rx_queue_0_packets`); an excerpt without the header line is read too.

`ethtool --json IF` is not used: ethtool 6.1 (Debian 12) rejects `--json` for the settings
query ("bad command line argument(s)"), so the text is what every supported host prints.

Bad input: empty text, text without a `Settings for IF:` line (or `-i` text without a
`driver:` line), or output for another interface raise `EthtoolParseError` with one line
saying what was expected and what was found. A known key whose value does not parse
("Speed: fast") leaves that fact None and adds a warning; unknown keys (newer ethtool
versions add some) are ignored.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pinchpoint.model.network import DriverInfo, Duplex, EthtoolSettings, EthtoolStatistics

__all__ = [
    "EthtoolNoDataError",
    "EthtoolParseError",
    "parse_ethtool_driver",
    "parse_ethtool_settings",
    "parse_ethtool_statistics",
]

MAX_WARNINGS = 20  # garbage after a valid header must not produce a warning per line forever

# "Settings for eth0:" — the first line of the report.
_HEADER = re.compile(r"^\s*Settings for (\S+):\s*$")
# "\tSpeed: 1000Mb/s", "    Supported link modes:   10baseT/Half", "\tAdvertised FEC modes:"
_KEY_VALUE = re.compile(r"^\s*([A-Za-z][A-Za-z0-9 ()/._-]*?)\s*:(?:\s+(.*))?$")
# "Speed: 1000Mb/s" (also "25000Mb/s"); "Unknown!" does not match.
_SPEED = re.compile(r"^(\d+)\s*Mb/s$")
# A line ethtool prints about a failure: "Cannot get …", "netlink error: …", "No data available".
_FAILURE = re.compile(r"^(Cannot |netlink error|No data available)")

NOT_REPORTED = "Not reported"

# "NIC statistics:" — the first line of `ethtool -S`.
_STATISTICS_HEADER = re.compile(r"^\s*NIC statistics:\s*$")
# "     rx_crc_errors: 230412", "     port.rx_dropped: 12028", "     duplicate metric: 1":
# indented, as ethtool prints every counter (an unindented line is something else)
_COUNTER = re.compile(r"^\s+(\S[^:]*?)\s*:\s*(\S.*?)\s*$")
# The characters drivers use in counter names (`rx_queue_0_packets`, `port.rx_dropped`,
# `tx-0.packets`, `rx_pri[3]`, `duplicate metric`); a name with others (control characters,
# escape sequences) is hostile or garbled and is left out.
_COUNTER_NAME = re.compile(r"^[A-Za-z0-9_.\-\[\]()/# ]+$")
# What `ethtool -S` prints for an interface whose driver keeps no statistics (lo, bonds).
_NO_STATISTICS = re.compile(r"^no stats available", re.IGNORECASE)


class EthtoolParseError(ValueError):
    """The text is not the ethtool report asked for; the message says what was found."""

    def __init__(self, what: str, problem: str) -> None:
        super().__init__(f"{what} output: {problem}")
        self.what = what
        self.problem = problem


class EthtoolNoDataError(EthtoolParseError):
    """ethtool printed only its own failure ("No data available"): nothing to parse.

    A capture keeps what a failing tool printed, so a snapshot can hold this where the live
    run saw a non-zero exit; the collector treats both alike.
    """


def _refuse(what: str, expected: str, text: str) -> EthtoolParseError:
    """The error for text that is not the report: ethtool's own failure, or something else."""
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    if _FAILURE.match(first):
        return EthtoolNoDataError(what, f"{what} printed only its failure: {first[:80]}")
    return EthtoolParseError(what, f"expected {expected}, found {_first_words(text)}")


def _first_words(text: str) -> str:
    """The first non-blank line, shortened, for an error message."""
    for line in text.splitlines():
        if line.strip():
            shown = line.strip()
            return repr(shown[:60] + ("…" if len(shown) > 60 else ""))
    return "nothing"


def _yes_no(value: str) -> bool | None:
    return {"yes": True, "no": False, "on": True, "off": False}.get(value.strip().lower())


def _tokens(value: str) -> list[str]:
    """A list of names: brackets dropped, "Not reported" is empty."""
    text = value.replace("[", " ").replace("]", " ").strip()
    if not text or text == NOT_REPORTED:
        return []
    return text.split()


def _speed(value: str) -> int | None:
    match = _SPEED.match(value.strip())
    return int(match.group(1)) if match else None


def _duplex(value: str) -> Duplex | None:
    word = value.strip().lower()
    return Duplex(word) if word in ("full", "half") else None


def _collect_entries(lines: list[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """Key/value pairs after the header (continuation lines joined) and ethtool's messages."""
    entries: list[tuple[str, str]] = []
    messages: list[str] = []
    for line in lines:
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if _FAILURE.match(stripped):
            messages.append(stripped)
            continue
        match = _KEY_VALUE.match(line)
        if match:
            entries.append((" ".join(match.group(1).lower().split()), match.group(2) or ""))
        elif not line[0].isspace():  # not indented and not a key: something ethtool said
            messages.append(stripped)
        elif entries:  # a wrapped link mode list or message level names
            key, value = entries[-1]
            entries[-1] = (key, f"{value} {stripped}")
    return entries, messages


def parse_ethtool_settings(text: str, interface: str | None = None) -> EthtoolSettings:
    """`ethtool IF` text -> settings; `interface`, when given, must match the header."""
    lines = text.splitlines()
    header_at = next((i for i, line in enumerate(lines) if _HEADER.match(line)), None)
    if header_at is None:
        raise _refuse("ethtool", "a 'Settings for IF:' line", text)
    header = _HEADER.match(lines[header_at])
    assert header is not None
    name = header.group(1)
    if interface is not None and name != interface:
        raise EthtoolParseError("ethtool", f"expected settings for {interface}, found {name}")
    before = [ln.strip() for ln in lines[:header_at] if ln.strip() and not ln.startswith("#")]
    entries, messages = _collect_entries(lines[header_at + 1 :])
    settings = EthtoolSettings(interface=name, messages=before + messages)
    for key, value in entries:
        _apply(settings, key, value.strip())
    return settings


def _warn(settings: EthtoolSettings, key: str, value: str) -> None:
    if len(settings.warnings) < MAX_WARNINGS:
        settings.warnings.append(f"{key}: {value!r} not understood")


def _set_speed(s: EthtoolSettings, v: str) -> None:
    s.speed_mbps = _speed(v)
    if s.speed_mbps is None and not v.startswith("Unknown"):
        _warn(s, "speed", v)


def _set_int(field: str) -> Callable[[EthtoolSettings, str], None]:
    def setter(s: EthtoolSettings, v: str) -> None:
        try:
            setattr(s, field, int(v))
        except ValueError:
            _warn(s, field, v)

    return setter


def _set_flag(field: str) -> Callable[[EthtoolSettings, str], None]:
    def setter(s: EthtoolSettings, v: str) -> None:
        flag = _yes_no(v)
        if flag is None:
            _warn(s, field, v)
        setattr(s, field, flag)

    return setter


def _set_text(field: str) -> Callable[[EthtoolSettings, str], None]:
    def setter(s: EthtoolSettings, v: str) -> None:
        setattr(s, field, v or None)

    return setter


def _set_list(field: str) -> Callable[[EthtoolSettings, str], None]:
    def setter(s: EthtoolSettings, v: str) -> None:
        setattr(s, field, _tokens(v))

    return setter


def _set_partner_modes(s: EthtoolSettings, v: str) -> None:
    s.partner_link_modes = _tokens(v) or None  # "Not reported": unknown, not "none"


def _set_autoneg(s: EthtoolSettings, v: str) -> None:
    s.autoneg = _yes_no(v)


def _set_duplex(s: EthtoolSettings, v: str) -> None:
    s.duplex = _duplex(v)


# Settings keys (lower case, single spaces) and what each sets.
_SETTERS: dict[str, Callable[[EthtoolSettings, str], None]] = {
    "supported ports": _set_list("supported_ports"),
    "supported link modes": _set_list("supported_link_modes"),
    "supported pause frame use": _set_text("supported_pause"),
    "supports auto-negotiation": _set_flag("supports_autoneg"),
    "supported fec modes": _set_list("supported_fec_modes"),
    "advertised link modes": _set_list("advertised_link_modes"),
    "advertised pause frame use": _set_text("advertised_pause"),
    "advertised auto-negotiation": _set_flag("advertised_autoneg"),
    "advertised fec modes": _set_list("advertised_fec_modes"),
    "link partner advertised link modes": _set_partner_modes,
    "link partner advertised pause frame use": _set_text("partner_pause"),
    "link partner advertised auto-negotiation": _set_flag("partner_autoneg"),
    "speed": _set_speed,
    "duplex": _set_duplex,
    "auto-negotiation": _set_autoneg,
    "port": _set_text("port"),
    "phyad": _set_int("phy_address"),
    "transceiver": _set_text("transceiver"),
    "mdi-x": _set_text("mdix"),
    "lanes": _set_int("lanes"),
    "link detected": _set_flag("link_detected"),
    "link down events": _set_int("link_down_events"),
}


def _apply(settings: EthtoolSettings, key: str, value: str) -> None:
    setter = _SETTERS.get(key)
    if setter is not None:
        setter(settings, value)


# `ethtool -i` keys (as printed) and the DriverInfo field each sets.
_DRIVER_FIELDS = {
    "driver": "driver",
    "version": "version",
    "firmware-version": "firmware_version",
    "expansion-rom-version": "expansion_rom_version",
    "bus-info": "bus_info",
}


def parse_ethtool_driver(text: str) -> DriverInfo:
    """`ethtool -i IF` text -> driver, versions and bus address (empty values -> None)."""
    found: dict[str, str | None] = {}
    for line in text.splitlines():
        if line.startswith("#") or ":" not in line:
            continue
        key, _, value = line.partition(":")  # "bus-info: 0000:00:1f.6" splits at the first
        field = _DRIVER_FIELDS.get(key.strip())
        if field is not None:
            found[field] = value.strip() or None
    driver = found.pop("driver", None)
    if not driver:
        raise _refuse("ethtool -i", "a 'driver:' line", text)
    return DriverInfo(driver=driver, **found)


def parse_ethtool_statistics(text: str) -> EthtoolStatistics:
    """`ethtool -S IF` text -> the driver's counters by name, as printed.

    A value that is not a count, or a name printed twice (some drivers do), is a warning and
    the first value stays; an unindented line that is not the header is a warning too. Text
    with no counter line at all is refused: ethtool's own failure
    ("no stats available") as `EthtoolNoDataError`, anything else as `EthtoolParseError`.
    """
    found = EthtoolStatistics()
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    first = lines[0].strip() if lines else ""
    if _NO_STATISTICS.match(first) or _FAILURE.match(first):
        raise EthtoolNoDataError("ethtool -S", f"ethtool -S printed only its failure: {first[:80]}")
    for line in lines:
        if _STATISTICS_HEADER.match(line):
            continue
        match = _COUNTER.match(line)
        if match is None:
            _warn_statistics(found, f"line {line.strip()[:60]!r} not understood")
            continue
        name, value = match.group(1), match.group(2)
        if not _COUNTER_NAME.match(name):
            _warn_statistics(found, f"counter name {name[:40]!r} is not a driver's: left out")
        elif not value.isdigit():
            _warn_statistics(found, f"{name}: {value[:40]!r} is not a count")
        elif name in found.counters:
            _warn_statistics(found, f"{name} printed twice: the first value is kept")
        else:
            found.counters[name] = int(value)
    if not found.counters:
        raise _refuse("ethtool -S", "'NIC statistics:' and 'name: count' lines", text)
    return found


def _warn_statistics(found: EthtoolStatistics, warning: str) -> None:
    if len(found.warnings) < MAX_WARNINGS:
        found.warnings.append(warning)
