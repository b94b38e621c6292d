"""Network interface counters of `/proc/net/dev`, parsed.

The kernel's table (net/core/net-procfs.c): two header lines, then per interface
`name: ` and 16 counters — receive bytes, packets, errs, drop, fifo, frame, compressed,
multicast; transmit bytes, packets, errs, drop, fifo, colls, carrier, compressed. Names are
right-aligned in six columns, so a long name touches its colon (`vethf345468:     648`) and
kernels of the 2.4 era let the first number touch it too (`eth0:1234`). A line that does not
read as 16 whole numbers is skipped and counted, and the rest of the file stands.

Reading the file (a snapshot's samples, the live host) is `pinchpoint.checks.collect.netdev`.
"""

from __future__ import annotations

from pinchpoint.model.stats import NetDevCounters, ParseSkips

__all__ = ["COUNTERS", "NET_DEV", "parse_net_dev"]

NET_DEV = "/proc/net/dev"

# Counter names in the kernel's column order, after the interface name.
COUNTERS = (
    "rx_bytes",
    "rx_packets",
    "rx_errs",
    "rx_drop",
    "rx_fifo",
    "rx_frame",
    "rx_compressed",
    "rx_multicast",
    "tx_bytes",
    "tx_packets",
    "tx_errs",
    "tx_drop",
    "tx_fifo",
    "tx_colls",
    "tx_carrier",
    "tx_compressed",
)


def _is_header(line: str) -> bool:
    """The two title lines: `Inter-|   Receive …` and ` face |bytes    packets …`."""
    return "|" in line and ":" not in line


def parse_net_dev(text: str) -> tuple[list[NetDevCounters], ParseSkips]:
    """Every usable interface line of `/proc/net/dev`; the others counted with the first example.

    An interface named twice keeps its first line (a garbled file, or two files concatenated).
    """
    interfaces: list[NetDevCounters] = []
    skips = ParseSkips()
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or _is_header(line):
            continue
        name, colon, rest = line.partition(":")
        name = name.strip()
        if not colon or not name:
            skips.add(number, line, "expected `name: counters`")
            continue
        if not name.isprintable() or " " in name:
            skips.add(number, line, "interface name holds spaces or unprintable characters")
            continue
        numbers = rest.split()
        if len(numbers) != len(COUNTERS):
            skips.add(number, line, f"expected {len(COUNTERS)} counters, found {len(numbers)}")
            continue
        if not all(n.isascii() and n.isdigit() for n in numbers):
            skips.add(number, line, "a counter is not a non-negative whole number")
            continue
        if name in seen:
            skips.add(number, line, f"interface {name} listed twice; the first line is kept")
            continue
        seen.add(name)
        values = dict(zip(COUNTERS, map(int, numbers), strict=True))
        interfaces.append(NetDevCounters(interface=name, **values))
    return interfaces, skips
