"""One convention for units in every view: SI rates, IEC capacities, latency by magnitude, and
counted words that agree with their count."""

from __future__ import annotations

import pytest

from pinchpoint.plurals import plural, plural_word
from pinchpoint.units import (
    capacity_text,
    gbps_text,
    latency_ms_text,
    latency_text,
    latency_us_text,
    link_speed_text,
    mb_s_text,
    rate_text,
    significant,
)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "0"),
        (0.03126, "0.0313"),
        (1.25, "1.25"),
        (2.5, "2.5"),
        (12.44, "12.4"),
        (931.4, "931"),
        (1250.0, "1,250"),
        (3.0, "3"),
    ],
)
def test_three_significant_digits(value: float, text: str) -> None:
    assert significant(value) == text


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0.00000125, "1.25 µs"),
        (0.000850, "850 µs"),
        (0.0009996, "1 ms"),  # rounds to 1,000 µs: said in the next unit
        (0.0124, "12.4 ms"),
        (0.22, "220 ms"),
        (1.25, "1.25 s"),
        (None, "—"),
    ],
)
def test_latency_in_the_unit_its_magnitude_calls_for(seconds: float | None, text: str) -> None:
    assert latency_text(seconds) == text


def test_latency_from_milliseconds_and_microseconds_says_the_same() -> None:
    assert latency_ms_text(12.4) == latency_us_text(12_400) == latency_text(0.0124) == "12.4 ms"


@pytest.mark.parametrize(
    ("bytes_per_s", "text"),
    [(512, "512 B/s"), (12_345_678, "12.3 MB/s"), (1_100_000_000, "1.1 GB/s"), (999_999, "1 MB/s")],
)
def test_rates_are_si(bytes_per_s: float, text: str) -> None:
    assert rate_text(bytes_per_s) == text


def test_a_rate_in_mb_s_is_si_too() -> None:
    assert mb_s_text(125.0) == "125 MB/s" and mb_s_text(None) == "—"


@pytest.mark.parametrize(
    ("size", "text"),
    [
        (512, "512 B"),
        (1_000_204_886_016, "932 GiB"),
        (8_001_563_222_016, "7.28 TiB"),
        (4096, "4 KiB"),
        (0, "—"),
        (None, "—"),
    ],
)
def test_capacities_are_iec(size: int | None, text: str) -> None:
    assert capacity_text(size) == text


@pytest.mark.parametrize(
    ("mbps", "text"), [(100, "100 Mb/s"), (1000, "1 Gb/s"), (25_000, "25 Gb/s"), (None, "—")]
)
def test_link_speeds_are_bits_si(mbps: int | None, text: str) -> None:
    assert link_speed_text(mbps) == text


def test_sas_and_fc_rates_in_gbps() -> None:
    assert gbps_text(12.0) == "12 Gb/s" and gbps_text(6) == "6 Gb/s"


@pytest.mark.parametrize(
    ("count", "word", "text"),
    [
        (1, "HBA port", "1 HBA port"),
        (2, "HBA port", "2 HBA ports"),
        (0, "enclosure", "0 enclosures"),
        (1, "enclosure", "1 enclosure"),
        (3, "HBA", "3 HBAs"),
        (2, "entry", "2 entries"),
        (2, "bus", "2 buses"),
        (1024, "path", "1,024 paths"),
        (2, "key", "2 keys"),
    ],
)
def test_counted_words_agree(count: int, word: str, text: str) -> None:
    assert plural(count, word) == text


def test_an_irregular_plural_may_be_given() -> None:
    assert plural(2, "chassis") == "2 chassis"
    assert plural(2, "datum", "data") == "2 data"
    assert plural_word("LUN") == "LUNs"
