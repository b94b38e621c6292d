"""`sg_ses` parsers on every kind of bad input: a clear one-line `SesParseError`, or a partial
result that says so (`truncated`, warnings); no input raises anything else."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ses_capture import (
    ARECA_LOGICAL_ID,
    PAGES,
    stored,
)

from pinchpoint.checks.parse.ses import (
    PAGE_PARSERS,
    SesParseError,
    parse_additional_status,
    parse_configuration,
    parse_element_descriptors,
    parse_enclosure_status,
    parse_nicknames,
)
from pinchpoint.model.ses import SesPage

# --- bad input: a clear one-line error, or a partial result that says so --------------------------

PARSERS = [pytest.param(PAGE_PARSERS[page], id=page) for page in PAGES]


@pytest.mark.parametrize("parse", PARSERS)
def test_empty_text_is_a_parse_error(parse: Callable[[str], SesPage]) -> None:
    with pytest.raises(
        SesParseError, match=r"^sg_ses \w+ output: empty \(expected a '.+' header\)$"
    ):
        parse("")
    with pytest.raises(SesParseError, match="empty"):
        parse("  \n\n")


@pytest.mark.parametrize("parse", PARSERS)
def test_binary_garbage_is_a_parse_error(parse: Callable[[str], SesPage]) -> None:
    garbage = (bytes(range(256)) * 8).decode("utf-8", errors="replace")
    with pytest.raises(SesParseError, match="got binary data") as raised:
        parse(garbage)
    assert "\n" not in str(raised.value)


@pytest.mark.parametrize(("page", "other"), [(p, PAGES[(i + 1) % 5]) for i, p in enumerate(PAGES)])
def test_the_wrong_page_is_named_in_the_error(page: str, other: str) -> None:
    with pytest.raises(SesParseError) as raised:
        PAGE_PARSERS[page](stored(other))
    message = str(raised.value)
    assert message.startswith(f"sg_ses {page} output: no '")
    assert f"got the '{other}' page" in message
    assert "\n" not in message


def test_text_that_is_not_sg_ses_output_is_quoted_in_the_error() -> None:
    with pytest.raises(SesParseError) as raised:
        parse_additional_status("foo bar\nbaz\n")
    assert str(raised.value) == (
        "sg_ses aes output: no 'Additional element status diagnostic page' header (got: 'foo bar')"
    )


@pytest.mark.parametrize("parse", PARSERS)
def test_a_header_with_nothing_after_it_is_a_parse_error(parse: Callable[[str], SesPage]) -> None:
    page = next(p for p in PAGES if PAGE_PARSERS[p] is parse)
    header = stored(page).split("\n")[0] + "\n"
    with pytest.raises(SesParseError):
        parse(header)


def _cut_after(text: str, marker: str, extra_lines: int) -> str:
    """`text` up to and including `extra_lines` whole lines after the line holding `marker`."""
    lines = text.split("\n")
    at = next(i for i, line in enumerate(lines) if marker in line)
    return "\n".join(lines[: at + 1 + extra_lines]) + "\n"


def test_aes_truncated_inside_a_phy_keeps_the_complete_slots() -> None:
    text = _cut_after(stored("aes"), "Element index: 18", 5)  # up to "target port for: SSP"
    aes = parse_additional_status(text)
    assert aes.truncated
    assert [e.device_slot_number for e in aes.elements] == list(range(18))
    assert any(
        "'Element index: 18  eiioe=0'" in w and "text ends inside it" in w for w in aes.warnings
    )


def test_aes_cut_mid_line_does_not_believe_the_half_address() -> None:
    full = stored("aes")
    at = full.index("attached SAS address: 0x5001b4d5") + len("attached SAS address: 0x5001b4d5")
    aes = parse_additional_status(full[:at])
    assert aes.truncated
    assert [e.device_slot_number for e in aes.elements] == list(range(12))
    assert any("cut mid-line" in w for w in aes.warnings)


def test_aes_truncated_inside_the_expander_pairs_drops_the_expander() -> None:
    text = _cut_after(stored("aes"), "[20] connector ei: 1", 0)
    aes = parse_additional_status(text)
    assert aes.truncated and aes.expanders == []
    assert len(aes.device_slots) == 24
    assert any("21 of 36 expander phys" in w for w in aes.warnings)


def test_es_truncated_inside_a_slot_drops_that_slot() -> None:
    text = _cut_after(stored("es"), "Element 17 descriptor:", 3)  # 3 of its 7 status lines
    es = parse_enclosure_status(text)
    assert es.truncated
    assert [s.element_number for s in es.slots] == list(range(17))
    assert any("3 status lines where its type has 7" in w for w in es.warnings)


def test_es_truncated_before_the_status_line() -> None:
    es = parse_enclosure_status(_cut_after(stored("es"), "Element 5 descriptor:", 0))
    assert es.truncated and len(es.slots) == 5
    assert any("no 'status:' line" in w for w in es.warnings)


def test_cf_truncated_in_the_type_list_keeps_the_identity() -> None:
    cf = parse_configuration(_cut_after(stored("cf"), "Element type: Cooling", 1))
    assert cf.truncated
    assert cf.logical_id == ARECA_LOGICAL_ID
    assert [t.element_type for t in cf.type_descriptors] == [
        "Array device slot",
        "Enclosure",
        "SAS expander",
        "Cooling",
    ]
    assert any("9 type descriptor headers announced, 4 found" in w for w in cf.warnings)


def test_cf_truncated_before_the_logical_id_is_a_parse_error() -> None:
    text = _cut_after(stored("cf"), "number of type descriptor headers", 0)
    with pytest.raises(
        SesParseError, match=r"has no enclosure logical identifier \(page truncated\)$"
    ):
        parse_configuration(text)


def test_ed_cut_mid_line_drops_the_half_name() -> None:
    full = stored("ed")
    ed = parse_element_descriptors(full[: full.index("SLOT 05") + len("SLO")])
    assert ed.truncated
    assert ed.descriptor(0, 3) == "SLOT 04" and ed.descriptor(0, 4) is None


def test_snic_without_its_nickname_line_is_a_parse_error() -> None:
    with pytest.raises(SesParseError, match="no complete nickname descriptor"):
        parse_nicknames(_cut_after(stored("snic"), "nickname language code", 0))


def test_aes_garbled_number_of_phys_drops_that_element_only() -> None:
    text = stored("aes").replace(
        "number of phys: 1, not all phys: 0, device slot number: 5",
        "number of phys: x, not all phys: 0, device slot number: 5",
    )
    aes = parse_additional_status(text)
    assert not aes.truncated
    assert [e.device_slot_number for e in aes.device_slots] == [n for n in range(24) if n != 5]
    assert len(aes.expanders) == 1
    (warning,) = aes.warnings
    assert (
        "'Element index: 5  eiioe=0'" in warning and "number of phys 'x' is not a number" in warning
    )


def test_garbled_addresses_and_indexes_drop_their_elements() -> None:
    text = (
        stored("aes")
        .replace("SAS address: 0x5000c5003011cb29", "SAS address: 0xZZ00c5003011cb29")
        .replace("Element index: 3  eiioe=0", "Element index: three  eiioe=0")
    )
    aes = parse_additional_status(text)
    assert 18 not in [e.device_slot_number for e in aes.elements]
    assert 3 not in [e.device_slot_number for e in aes.elements]
    assert len(aes.warnings) == 2 and not aes.truncated


def test_es_garbled_element_number_and_flag_value() -> None:
    text = (
        stored("es")
        .replace("Element 7 descriptor:", "Element seven descriptor:")
        .replace(
            "Element 18 descriptor:\n        Predicted failure=0, Disabled=0, Swap=0, status: OK",
            "Element 18 descriptor:\n        Predicted failure=?, Disabled=0, Swap=0, status: OK",
        )
    )
    es = parse_enclosure_status(text)
    assert 7 not in [s.element_number for s in es.slots]
    slot_18 = next(s for s in es.slots if s.element_number == 18)
    assert slot_18.predicted_failure is None and "Predicted failure=?" in slot_18.details
    assert not es.truncated and len(es.warnings) == 2


def test_cf_garbled_counts_are_warnings_or_dropped_headers() -> None:
    text = (
        stored("cf")
        .replace("generation code: 0x0", "generation code: 0xGG")
        .replace("number of possible elements: 5", "number of possible elements: five")
    )
    cf = parse_configuration(text)
    assert cf.generation_code is None
    assert "Cooling" not in [t.element_type for t in cf.type_descriptors]
    assert [t.type_index for t in cf.type_descriptors] == [0, 1, 2, 4, 5, 6, 7, 8]
    assert not cf.truncated and len(cf.warnings) == 2


def test_es_without_its_summary_line_is_a_parse_error() -> None:
    text = stored("es").replace("INVOP=0, INFO=0, NON-CRIT=0, CRIT=1, UNRECOV=0", "")
    with pytest.raises(SesParseError, match="no 'INVOP=…"):
        parse_enclosure_status(text)


def test_the_page_stops_where_the_next_page_starts() -> None:
    cf = parse_configuration(stored("cf") + stored("snic"))
    assert len(cf.type_descriptors) == 9
    assert any("another page starts" in w for w in cf.warnings)


def test_bytes_instead_of_text_is_a_parse_error() -> None:
    with pytest.raises(SesParseError, match="expected text, got bytes"):
        parse_nicknames(stored("snic").encode())  # type: ignore[arg-type]


# --- no input raises anything but SesParseError ---------------------------------------------------

REAL_LINES = sorted({line for page in PAGES for line in stored(page).split("\n")})


@st.composite
def damaged_pages(draw: st.DrawFn) -> tuple[str, str]:
    """A real page title followed by real lines, shuffled, dropped, and with characters changed."""
    page = draw(st.sampled_from(PAGES))
    lines = draw(st.lists(st.sampled_from(REAL_LINES), max_size=40))
    damaged = [
        draw(st.sampled_from([line, line[: len(line) // 2], line.replace("0", "x"), ""]))
        for line in lines
    ]
    noise = draw(st.text(max_size=20))
    title = stored(page).split("\n")[0]
    return page, "\n".join([title, *damaged, noise])


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=400), page=st.sampled_from(PAGES))
def test_arbitrary_text_raises_nothing_but_parse_errors(text: str, page: str) -> None:
    try:
        result = PAGE_PARSERS[page](text)
    except SesParseError as err:
        assert "\n" not in str(err)
    else:
        assert isinstance(result, SesPage)


@settings(max_examples=300, deadline=None)
@given(case=damaged_pages())
def test_damaged_pages_raise_nothing_but_parse_errors(case: tuple[str, str]) -> None:
    page, text = case
    try:
        result = PAGE_PARSERS[page](text)
    except SesParseError as err:
        assert "\n" not in str(err)
    else:
        assert isinstance(result, SesPage)
        assert len(result.warnings) <= 51
