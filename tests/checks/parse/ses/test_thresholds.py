"""The threshold in page (`sg_ses --page=th`) of the real Areca 8028 capture, decoded by the real
`sg_ses`, and the ways it can be damaged."""

from __future__ import annotations

import pytest
from ses_capture import live, needs_sg_ses, stored

from pinchpoint.checks.parse.ses import SesParseError, parse_thresholds


@pytest.mark.parametrize("decoded", [pytest.param("live", marks=needs_sg_ses), "stored"])
def test_the_areca_sensors_limits(decoded: str) -> None:
    page = parse_thresholds(live("th") if decoded == "live" else stored("th"))
    assert not page.truncated and page.warnings == []
    assert not page.invalid_operation
    individual = [
        (t.element_type, t.element_number) for t in page.thresholds if t.element_number is not None
    ]
    assert individual == [
        ("Temperature sensor", 0),
        ("Temperature sensor", 1),
        ("Voltage sensor", 0),
        ("Voltage sensor", 1),
    ]
    chip = page.threshold(4, 1)
    assert chip is not None and chip.unit == "C"
    assert (chip.high_critical, chip.high_warning, chip.low_warning, chip.low_critical) == (
        95,
        90,
        5,
        0,
    )
    enclosure = page.threshold(4, 0)
    assert enclosure is not None and (enclosure.high_critical, enclosure.high_warning) == (79, 60)
    volts = page.threshold(5, 0)
    assert volts is not None and volts.unit == "% above/below nominal"
    assert (volts.high_critical, volts.low_critical) == (65.0, 54.5)


def test_reserved_limits_are_none() -> None:
    overall = parse_thresholds(stored("th")).thresholds[0]
    assert overall.element_number is None
    assert overall.high_critical is None and overall.low_critical is None


def test_sg_ses_own_warning_line_before_the_page_is_not_taken_for_an_inquiry() -> None:
    text = stored("th")
    assert text.startswith("    <<<thresh: response too short>>>")
    assert parse_thresholds(text).inquiry is None


def test_a_garbled_limit_drops_that_element_only() -> None:
    text = stored("th").replace(
        "high critical=95, high warning=90", "high critical=9x, high warning=90"
    )
    page = parse_thresholds(text)
    assert page.threshold(4, 1) is None and page.threshold(4, 0) is not None
    assert any("high critical '9x' is not a number" in w for w in page.warnings)
    assert not page.truncated


def test_cut_inside_an_element_drops_it_and_says_truncated() -> None:
    text = stored("th")
    cut = text[: text.index("low warning=52.5")]
    page = parse_thresholds(cut)
    assert page.truncated
    assert page.threshold(5, 1) is None and page.threshold(5, 0) is not None


def test_no_invop_line_is_a_parse_error() -> None:
    text = stored("th").replace("  INVOP=0\n", "")
    with pytest.raises(SesParseError, match=r"^sg_ses th output: no 'INVOP=…' line"):
        parse_thresholds(text)


def test_the_wrong_page_is_named() -> None:
    with pytest.raises(SesParseError, match="got the 'es' page"):
        parse_thresholds(stored("es"))
