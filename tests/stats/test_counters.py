"""Error counters between two sweeps: a rise is counted, a fall is a reset, an unknown is left
out (`stats.counters.counter_changes`, shared by the SAS phy, FC port and NIC rules)."""

from __future__ import annotations

from pinchpoint.stats.counters import CounterRise, counter_changes, error_count_rise


def test_a_rise_is_counted_and_a_fall_is_a_reset_not_a_wrap() -> None:
    assert error_count_rise(3, 10) == 7
    assert error_count_rise(10, 10) == 0
    assert error_count_rise(2**32 - 1, 0) is None  # a reset, where count_delta sees a wrap


def test_counter_changes_keep_the_order_asked_and_leave_unknowns_out() -> None:
    before = {"rx_crc_errors": 0, "rx_errors": 5, "carrier_changes": 4, "tx_errors": None}
    after = {"rx_crc_errors": 57, "rx_errors": 2, "carrier_changes": 7, "tx_errors": 9}
    changes = counter_changes(
        before, after, ["carrier_changes", "rx_crc_errors", "rx_errors", "tx_errors", "absent"]
    )
    assert changes.rises == (
        CounterRise(name="carrier_changes", before=4, after=7),
        CounterRise(name="rx_crc_errors", before=0, after=57),
    )
    assert changes.resets == ("rx_errors",)
    assert changes.total == 60
    flat = counter_changes(after, after, list(after))
    assert flat.rises == () and flat.resets == () and flat.total == 0
