"""`sg_ses` page parsers against the real Areca 8028 capture, decoded by the real `sg_ses`.

The hex capture is decoded with the installed tool (`sg_ses --status --page=PG --inhex=FILE`)
and compared with the stored decodings; the facts asserted are those of the capture (slot 18
holds a Seagate SAS disk, slots 12-15 are wired to a second, cascaded expander).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable

import pytest
from ses_capture import (
    ARECA_EXPANDER,
    ARECA_LOGICAL_ID,
    CASCADED_EXPANDER,
    HEX_CAPTURE,
    PAGES,
    SLOT_18_DISK,
    live,
    stored,
)

from pinchpoint.checks.parse.ses import (
    PAGE_PARSERS,
    parse_additional_status,
    parse_configuration,
    parse_element_descriptors,
    parse_enclosure_status,
    parse_nicknames,
)

# --- the real tool and the stored decodings agree ------------------------------------------------


@pytest.mark.tools
@pytest.mark.skipif(shutil.which("sg_ses") is None, reason="sg_ses (sg3-utils) not installed")
@pytest.mark.parametrize("page", PAGES)
def test_live_decode_gives_the_same_model_as_the_stored_decoding(page: str) -> None:
    from_tool = PAGE_PARSERS[page](live(page))
    from_file = PAGE_PARSERS[page](stored(page))
    assert from_tool == from_file
    assert not from_tool.truncated
    assert from_tool.warnings == []


@pytest.mark.tools
@pytest.mark.skipif(shutil.which("sg_ses") is None, reason="sg_ses (sg3-utils) not installed")
def test_every_page_parses_out_of_the_all_pages_decoding() -> None:
    """`sg_ses --page=all` prints the pages one after another: each parser takes its own."""
    argv = ["sg_ses", "--status", "--page=all", f"--inhex={HEX_CAPTURE}"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 0, done.stderr
    for page in PAGES:
        alone = PAGE_PARSERS[page](stored(page))
        among_others = PAGE_PARSERS[page](done.stdout)
        assert not among_others.truncated
        assert among_others.model_dump(exclude={"warnings", "primary_logical_id"}) == (
            alone.model_dump(exclude={"warnings", "primary_logical_id"})
        )


# --- facts of the Areca capture -----------------------------------------------------------------


def test_configuration_names_the_enclosure_and_counts_slots(decoded: Callable[[str], str]) -> None:
    cf = parse_configuration(decoded("cf"))
    assert cf.logical_id == ARECA_LOGICAL_ID
    assert (cf.vendor, cf.product, cf.revision) == ("Areca", "ARC-802801.33.63", "0133")
    assert cf.secondary_subenclosure_count == 0
    assert cf.generation_code == 0
    assert cf.slot_count == 24
    assert cf.expander_count == 1
    assert [t.element_type for t in cf.type_descriptors][:3] == [
        "Array device slot",
        "Enclosure",
        "SAS expander",
    ]
    expander_type = cf.type_descriptors[2]
    assert (expander_type.type_index, expander_type.possible_elements) == (2, 1)
    assert expander_type.text == "SAS Expander"
    assert len(cf.type_descriptors) == cf.subenclosures[0].type_descriptor_header_count == 9
    assert cf.inquiry is None  # --inhex prints no INQUIRY line


def test_enclosure_status_gives_summary_and_slot_leds(decoded: Callable[[str], str]) -> None:
    es = parse_enclosure_status(decoded("es"))
    summary = (es.invalid_operation, es.info, es.non_critical, es.critical, es.unrecoverable)
    assert summary == (False, False, False, True, False)
    assert len(es.slots) == 24
    occupied = [s for s in es.slots if s.status == "OK"]
    assert [s.element_number for s in occupied] == [18]
    slot = occupied[0]
    assert (slot.ident, slot.fault_sensed, slot.fault_requested, slot.device_off) == (
        False,
        False,
        False,
        False,
    )
    assert slot.predicted_failure is False
    assert slot.flags["Hot spare"] == 0
    overall = es.elements[0]
    assert (overall.element_number, overall.status, overall.type_index) == (None, "Unsupported", 0)


def test_enclosure_status_keeps_every_flag_and_reading(decoded: Callable[[str], str]) -> None:
    es = parse_enclosure_status(decoded("es"))
    by_place = {(e.type_index, e.element_number): e for e in es.elements}
    fan = by_place[(3, 4)]
    assert fan.flags["Actual speed"] == 7500  # "Actual speed=7500 rpm"
    assert fan.details == ["Fan at highest speed"]
    assert by_place[(4, 0)].flags["Temperature"] == 49
    assert by_place[(5, 1)].details == ["Voltage: 1.80 volts"]
    assert by_place[(6, 0)].details == ["Mini SAS HD 4x receptacle (SFF-8644) [max 4 phys]"]
    assert by_place[(8, 0)].flags["Tone indicator: Info"] == 0
    assert by_place[(3, 0)].ident is False  # fans have a locate LED too
    assert by_place[(1, 0)].fault_sensed is None  # an enclosure element has no such flag


def test_element_descriptors_name_each_slot(decoded: Callable[[str], str]) -> None:
    ed = parse_element_descriptors(decoded("ed"))
    assert ed.descriptor(0, 0) == "SLOT 01"
    assert ed.descriptor(0, 23) == "SLOT 24"
    assert ed.descriptor(3, 4) == "CPUFan"
    assert ed.descriptor(4, 0) == "ENC. Temp"  # trailing padding stripped
    assert ed.descriptor(9, 0) is None
    slots = ed.groups[0]
    assert (slots.element_type, slots.overall, len(slots.descriptors)) == (
        "Array device slot",
        "ArrayDevicesInSubEnclsr0",
        24,
    )
    assert [g.type_index for g in ed.groups] == list(range(9))


def test_additional_status_gives_addresses_per_slot(decoded: Callable[[str], str]) -> None:
    aes = parse_additional_status(decoded("aes"))
    assert aes.primary_logical_id == ARECA_LOGICAL_ID
    assert [e.device_slot_number for e in aes.device_slots] == list(range(24))
    slot_18 = aes.slot(18)
    assert slot_18 is not None
    (phy,) = slot_18.phys
    assert (phy.device_type, phy.sas_address, phy.attached_sas_address) == (
        "end device",
        SLOT_18_DISK,
        ARECA_EXPANDER,
    )
    assert phy.target_ports == ["SSP"] and phy.initiator_ports == []
    cascaded = [e for e in aes.device_slots if e.phys[0].sas_address == CASCADED_EXPANDER]
    assert [e.device_slot_number for e in cascaded] == [12, 13, 14, 15]
    assert [e.phys[0].phy_identifier for e in cascaded] == [0x14, 0x15, 0x16, 0x17]
    assert all(e.phys[0].device_type == "expander device" for e in cascaded)
    empty = aes.slot(0)
    assert empty is not None and not empty.phys[0].attached
    assert empty.phys[0].sas_address == "0x0"


def test_additional_status_gives_the_expander_and_its_phys(decoded: Callable[[str], str]) -> None:
    aes = parse_additional_status(decoded("aes"))
    (expander,) = aes.expanders
    assert expander.sas_address == ARECA_EXPANDER
    assert expander.phy_count == 36 and len(expander.expander_phys) == 36
    assert expander.element_index == 25  # an element index, not a slot number
    assert expander.device_slot_number is None
    first, connector = expander.expander_phys[0], expander.expander_phys[16]
    assert (first.connector_element_index, first.other_element_index) == (None, 13)
    assert (connector.connector_element_index, connector.other_element_index) == (2, None)
    assert first.description == "no connector; other ei: 13"


def test_nicknames_give_the_whole_nickname(decoded: Callable[[str], str]) -> None:
    snic = parse_nicknames(decoded("snic"))
    assert snic.nickname(0) == "Eval Board Nickname Simulator"  # sasutils kept only "Eval"
    assert snic.nickname(1) is None
    (entry,) = snic.nicknames
    assert (entry.status, entry.additional_status, entry.language_code) == (0, 0, None)
