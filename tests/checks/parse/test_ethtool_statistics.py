"""`ethtool -S IF` parsed from real captured output (tests/fixtures/network/ethtool-S), and the
bad inputs a capture can hold."""

from __future__ import annotations

import pytest
from fixture_paths import FIXTURES

from pinchpoint.checks.parse.ethtool import (
    EthtoolNoDataError,
    EthtoolParseError,
    parse_ethtool_statistics,
)

STATISTICS = FIXTURES / "network" / "ethtool-S"


def text(name: str) -> str:
    return (STATISTICS / name).read_text()


def test_e1000e_statistics_every_counter_by_its_driver_name() -> None:
    found = parse_ethtool_statistics(text("insights-core__ethtool_-S_e1000e_style.txt"))
    assert found.warnings == []
    assert len(found.counters) == 82  # every line but the header
    assert found.counters["rx_packets"] == 912398
    assert found.counters["rx_crc_errors"] == 0
    assert found.counters["tx_carrier_errors"] == 0
    assert found.counters["rx_queue_3_alloc_failed"] == 0


def test_an_excerpt_without_the_header_is_read() -> None:
    """Three lines of a robot's EtherCAT NIC pasted into an issue: rx_errors is the sum of the
    CRC and frame errors."""
    name = (
        "jsk_robot_issue1671__ethtool_-S_ecat0_rx_errors_rx_crc_errors_rx_frame_errors_excerpt.txt"
    )
    found = parse_ethtool_statistics(text(name))
    assert found.counters == {
        "rx_errors": 460752,
        "rx_crc_errors": 230412,
        "rx_frame_errors": 230340,
    }


def test_dotted_and_spaced_names_are_kept_as_printed() -> None:
    """node_exporter's fixture: `port.rx_dropped`, and `duplicate metric` beside
    `duplicate_metric` (two names, not one printed twice); its comment line is skipped."""
    found = parse_ethtool_statistics(text("node_exporter__ethtool_eth0_statistics.txt"))
    assert found.counters["port.rx_dropped"] == 12028
    assert found.counters["rx_missed"] == 401
    assert found.counters["duplicate metric"] == 1
    assert found.counters["duplicate_metric"] == 2
    assert found.warnings == []


def test_a_name_printed_twice_and_a_value_that_is_no_count_are_warnings() -> None:
    found = parse_ethtool_statistics(
        "NIC statistics:\n     rx_errors: 3\n     rx_errors: 5\n     tx_errors: n/a\n"
    )
    assert found.counters == {"rx_errors": 3}
    assert found.warnings == [
        "rx_errors printed twice: the first value is kept",
        "tx_errors: 'n/a' is not a count",
    ]


def test_a_counter_name_with_control_characters_is_left_out() -> None:
    """Names reach terminals and reports: an escape sequence in one is hostile, not a name."""
    found = parse_ethtool_statistics(
        "NIC statistics:\n     rx_crc_errors\x1b[2J: 7\n     rx_pri[3]_packets: 2\n"
    )
    assert found.counters == {"rx_pri[3]_packets": 2}
    assert found.warnings == ["counter name 'rx_crc_errors\\x1b[2J' is not a driver's: left out"]


def test_no_stats_available_is_ethtools_own_failure() -> None:
    """What ethtool 6.1 prints (exit status 94) for `lo` and for bonds."""
    with pytest.raises(EthtoolNoDataError) as caught:
        parse_ethtool_statistics("no stats available\n")
    assert caught.value.problem == "ethtool -S printed only its failure: no stats available"


@pytest.mark.parametrize(
    ("bad", "found"),
    [
        ("", "found nothing"),
        ("NIC statistics:\n", "found 'NIC statistics:'"),
        ("\x00\x01\x02garbage\n", "found '\\x00\\x01\\x02garbage'"),
        (text("node_exporter__ethtool_bond0_statistics.txt"), "found 'ERROR: 1'"),
        ("Settings for eth0:\n", "found 'Settings for eth0:'"),
    ],
)  # fmt: skip
def test_text_with_no_counter_is_refused_saying_what_was_found(bad: str, found: str) -> None:
    with pytest.raises(EthtoolParseError) as caught:
        parse_ethtool_statistics(bad)
    assert "expected 'NIC statistics:' and 'name: count' lines" in str(caught.value)
    assert found in str(caught.value)


def test_a_truncated_capture_keeps_the_counters_read() -> None:
    whole = text("insights-core__ethtool_-S_e1000e_style.txt")
    cut = whole[: whole.index("rx_crc_errors") + 9]  # "rx_crc_er" with no value
    found = parse_ethtool_statistics(cut)
    assert found.counters["collisions"] == 0 and "rx_crc_errors" not in found.counters
    assert found.warnings == ["line 'rx_crc_er' not understood"]
