"""Parser for `/proc/net/bonding/NAME`: the bond's mode and settings, and each member's link.

Pure function of text, no I/O. The file is what the kernel's `bond_procfs.c` prints:

    Ethernet Channel Bonding Driver: v3.7.1 (April 27, 2011)     (newer kernels: the release)

    Bonding Mode: IEEE 802.3ad Dynamic link aggregation
    Transmit Hash Policy: layer2 (0)
    MII Status: up
    …
    802.3ad info
    LACP rate: slow
    Active Aggregator Info:
    <tab>Aggregator ID: 1            (indented: the active aggregator)
    …
    Slave Interface: enp0s9          (one block per member)
    MII Status: up
    Speed: 1000 Mbps                 ("Unknown" when the member has no link)
    …
    details partner lacp pdu:        (802.3ad, as root: indented LACP details)
        oper key: 1

Keys are compared case-insensitively. Text without a "Bonding Mode:" line raises
`BondingParseError`; a value that does not parse leaves that fact None and adds a warning.
"""

from __future__ import annotations

import re

from pinchpoint.model.network import Bond, BondMember, BondMode, Duplex, bond_id

__all__ = ["BONDING_MODES", "BondingParseError", "parse_bonding"]

MAX_WARNINGS = 20

# The kernel's mode descriptions (bond_mode_name) and sysfs's short names.
BONDING_MODES = {
    "load balancing (round-robin)": BondMode.BALANCE_RR,
    "fault-tolerance (active-backup)": BondMode.ACTIVE_BACKUP,
    "load balancing (xor)": BondMode.BALANCE_XOR,
    "fault-tolerance (broadcast)": BondMode.BROADCAST,
    "ieee 802.3ad dynamic link aggregation": BondMode.LACP,
    "transmit load balancing": BondMode.BALANCE_TLB,
    "adaptive load balancing": BondMode.BALANCE_ALB,
}

# "Bonding Mode: …", "\tAggregator ID: 1", "    oper key: 1", "Primary Slave: None"
_KEY_VALUE = re.compile(r"^(\s*)([A-Za-z0-9][A-Za-z0-9 ()/._+-]*?)\s*:\s*(.*)$")
# "Speed: 1000 Mbps"
_MBPS = re.compile(r"^(\d+)\s*Mbps$")
# "(fail_over_mac active)" after the mode, "(primary_reselect always)" after the primary.
_TRAILING_NOTE = re.compile(r"\s*\((fail_over_mac|primary_reselect)[^)]*\)\s*$")


class BondingParseError(ValueError):
    """The text is not a /proc/net/bonding file; the message says what was found."""

    def __init__(self, name: str, problem: str) -> None:
        super().__init__(f"/proc/net/bonding/{name}: {problem}")
        self.name = name
        self.problem = problem


class _Parse:
    """State while reading one file: the section we are in and the member being read."""

    def __init__(self, name: str) -> None:
        self.bond = Bond(id=bond_id(name), name=name)
        self.member: BondMember | None = None
        self.section = "bond"  # bond | aggregator | member | actor | partner
        self.saw_mode = False

    def warn(self, key: str, value: str) -> None:
        if len(self.bond.warnings) < MAX_WARNINGS:
            self.bond.warnings.append(f"{key}: {value!r} not understood")

    def integer(self, key: str, value: str) -> int | None:
        if value.upper() == "N/A":
            return None
        try:
            return int(value)
        except ValueError:
            self.warn(key, value)
            return None

    def speed(self, value: str) -> int | None:
        match = _MBPS.match(value)
        if match:
            return int(match.group(1))
        if value.lower() != "unknown":
            self.warn("speed", value)
        return None

    def duplex(self, value: str) -> Duplex | None:
        word = value.lower()
        if word in ("full", "half"):
            return Duplex(word)
        if word != "unknown":
            self.warn("duplex", value)
        return None


def _mac(value: str) -> str | None:
    return value.strip().lower() or None


def _none_word(value: str) -> str | None:
    """ "None" (the kernel's word for no primary / no active member) -> None."""
    text = _TRAILING_NOTE.sub("", value).strip()
    return None if not text or text == "None" else text


def _bond_key(p: _Parse, key: str, value: str) -> None:
    b = p.bond
    match key:
        case "bonding mode":
            p.saw_mode = True
            b.mode_text = _TRAILING_NOTE.sub("", value).strip()
            b.mode = BONDING_MODES.get(b.mode_text.lower())
            if b.mode is None:
                p.warn("bonding mode", value)
        case "transmit hash policy":
            b.transmit_hash_policy = value or None
        case "primary slave":
            b.primary_member = _none_word(value)
        case "currently active slave":
            b.active_member = _none_word(value)
        case "mii status":
            b.mii_status = value or None
        case "mii polling interval (ms)":
            b.miimon_ms = p.integer(key, value)
        case "up delay (ms)":
            b.updelay_ms = p.integer(key, value)
        case "down delay (ms)":
            b.downdelay_ms = p.integer(key, value)
        case "arp polling interval (ms)":
            b.arp_interval_ms = p.integer(key, value)
        case "lacp rate":
            b.lacp_rate = value or None
        case "min links":
            b.min_links = p.integer(key, value)


def _aggregator_key(p: _Parse, key: str, value: str) -> None:
    b = p.bond
    match key:
        case "aggregator id":
            b.active_aggregator_id = p.integer(key, value)
        case "number of ports":
            b.active_aggregator_ports = p.integer(key, value)
        case "partner key":
            b.partner_key = p.integer(key, value)
        case "partner mac address":
            b.partner_mac = _mac(value)


def _member_key(p: _Parse, m: BondMember, key: str, value: str) -> None:
    match key:
        case "mii status":
            m.mii_status = value or None
        case "speed":
            m.speed_mbps = p.speed(value)
        case "duplex":
            m.duplex = p.duplex(value)
        case "link failure count":
            m.link_failure_count = p.integer(key, value)
        case "permanent hw addr":
            m.permanent_mac_address = _mac(value)
        case "aggregator id":
            m.aggregator_id = p.integer(key, value)
        case "actor churn state":
            m.actor_churn_state = value or None
        case "partner churn state":
            m.partner_churn_state = value or None


def _pdu_key(p: _Parse, m: BondMember, key: str, value: str) -> None:
    if p.section == "actor" and key == "port key":
        m.actor_port_key = p.integer(key, value)
    elif p.section == "partner" and key == "system mac address":
        m.partner_system_mac = _mac(value)
    elif p.section == "partner" and key == "oper key":
        m.partner_oper_key = p.integer(key, value)


def _line(p: _Parse, line: str) -> None:
    stripped = line.strip()
    lowered = stripped.lower()
    if lowered.startswith("slave interface:"):
        p.member = BondMember(name=stripped.split(":", 1)[1].strip())
        p.bond.members.append(p.member)
        p.section = "member"
        return
    if lowered == "active aggregator info:":
        p.section = "aggregator"
        return
    if lowered in ("details actor lacp pdu:", "details partner lacp pdu:"):
        p.section = "actor" if "actor" in lowered else "partner"
        return
    match = _KEY_VALUE.match(line)
    if match is None:
        return  # "802.3ad info", "bond bond0 has no active aggregator"
    indented = bool(match.group(1))
    key = " ".join(match.group(2).lower().split())
    value = match.group(3).strip()
    if not indented and p.section in ("actor", "partner"):
        p.section = "member"  # the LACP details ended
    if not indented and p.section == "aggregator":
        p.section = "bond"
    if p.section == "aggregator":
        _aggregator_key(p, key, value)
    elif p.section in ("actor", "partner") and p.member is not None:
        _pdu_key(p, p.member, key, value)
    elif p.section == "member" and p.member is not None:
        _member_key(p, p.member, key, value)
    elif p.section == "bond" and not key.startswith("ethernet channel bonding driver"):
        _bond_key(p, key, value)


def parse_bonding(name: str, text: str) -> Bond:
    """`/proc/net/bonding/<name>` text -> the bond with its members (no sysfs facts yet)."""
    p = _Parse(name)
    for line in text.splitlines():
        if line.strip():
            _line(p, line)
    if not p.saw_mode:
        shown = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
        found = repr(shown[:60]) if shown else "nothing"
        raise BondingParseError(name, f"expected a 'Bonding Mode:' line, found {found}")
    return p.bond
