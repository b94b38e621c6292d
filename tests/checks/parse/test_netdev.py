"""`/proc/net/dev`: the kernel's table of interface counters parsed from a real capture and
from every kind of bad input."""

from __future__ import annotations

from fixture_paths import FIXTURES as ALL_FIXTURES

from pinchpoint.checks.parse.netdev import parse_net_dev

FIXTURES = ALL_FIXTURES / "netdev"
PROCFS = (FIXTURES / "procfs__proc_net_dev.txt").read_text()
HEADER = "\n".join(PROCFS.splitlines()[:2]) + "\n"


def test_real_capture_of_a_docker_host() -> None:
    interfaces, skipped = parse_net_dev(PROCFS)
    assert skipped.count == 0
    assert [i.interface for i in interfaces] == ["vethf345468", "lo", "docker0", "eth0"]
    eth0 = interfaces[3]
    assert (eth0.rx_bytes, eth0.rx_packets, eth0.tx_bytes, eth0.tx_packets) == (
        874354587,
        1036395,
        563352563,
        732147,
    )
    assert eth0.rx_errs == eth0.rx_drop == eth0.tx_colls == eth0.tx_carrier == 0
    veth = interfaces[0]  # a long name touches its colon
    assert (veth.rx_bytes, veth.rx_packets, veth.tx_bytes, veth.tx_packets) == (648, 8, 438, 5)


def test_every_counter_lands_in_its_column() -> None:
    line = "  eth1: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"
    (found,), skipped = parse_net_dev(HEADER + line)
    assert skipped.count == 0
    assert found.model_dump() == {
        "interface": "eth1",
        "rx_bytes": 1,
        "rx_packets": 2,
        "rx_errs": 3,
        "rx_drop": 4,
        "rx_fifo": 5,
        "rx_frame": 6,
        "rx_compressed": 7,
        "rx_multicast": 8,
        "tx_bytes": 9,
        "tx_packets": 10,
        "tx_errs": 11,
        "tx_drop": 12,
        "tx_fifo": 13,
        "tx_colls": 14,
        "tx_carrier": 15,
        "tx_compressed": 16,
    }


def test_a_number_touching_the_colon_as_kernels_2_4_printed_it() -> None:
    (found,), skipped = parse_net_dev("eth0:1234 10 0 0 0 0 0 0 5678 20 0 0 0 0 0 0\n")
    assert skipped.count == 0 and (found.rx_bytes, found.tx_bytes) == (1234, 5678)


def test_truncated_file_keeps_the_complete_lines() -> None:
    cut = PROCFS[: PROCFS.rindex("eth0") + 30]  # the last line ends mid-counters
    interfaces, skipped = parse_net_dev(cut)
    assert [i.interface for i in interfaces] == ["vethf345468", "lo", "docker0"]
    assert skipped.count == 1 and skipped.first_line_number == 6
    assert "expected 16 counters" in (skipped.summary() or "")


def test_garbled_lines_are_counted_with_the_first_example() -> None:
    text = (
        HEADER
        + "  eth0: 12 x 0 0 0 0 0 0 9 1 0 0 0 0 0 0\n"
        + "  eth1: -5 1 0 0 0 0 0 0 9 1 0 0 0 0 0 0\n"
        + "no colon here at all\n"
        + "  eth2: 1 2 0 0 0 0 0 0 3 4 0 0 0 0 0 0\n"
        + "  eth2: 9 9 0 0 0 0 0 0 9 9 0 0 0 0 0 0\n"
    )
    interfaces, skipped = parse_net_dev(text)
    assert [(i.interface, i.rx_bytes) for i in interfaces] == [("eth2", 1)]
    assert skipped.count == 4
    assert skipped.first_line_number == 3
    assert skipped.first_reason == "a counter is not a non-negative whole number"
