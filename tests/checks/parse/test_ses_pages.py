"""`sg_ses` page parsers against the real Areca 8028 capture, decoded by the real `sg_ses`.

The hex capture is decoded with the installed tool (`sg_ses --status --page=PG --inhex=FILE`)
and compared with the stored decodings; the facts asserted are those of the capture (slot 18
holds a Seagate SAS disk, slots 12-15 are wired to a second, cascaded expander). Then the shapes
other sg3_utils versions and live devices print, and every kind of bad input.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from functools import cache

import pytest
from fixture_paths import FIXTURES as ALL_FIXTURES
from hypothesis import given, settings
from hypothesis import strategies as st

from pinchpoint.checks.parse.ses_pages import (
    PAGE_PARSERS,
    SesParseError,
    parse_additional_status,
    parse_configuration,
    parse_element_descriptors,
    parse_enclosure_status,
    parse_nicknames,
)
from pinchpoint.model.ses import SesPage

FIXTURES = ALL_FIXTURES / "ses"
HEX_CAPTURE = FIXTURES / "sg3utils_inhex_ses_areca8028_all_pages.hex"
PAGES = ("cf", "es", "ed", "aes", "snic")

ARECA_LOGICAL_ID = "0xd5b401503fc0ec16"
ARECA_EXPANDER = "0x5001b4d516ecc03f"
CASCADED_EXPANDER = "0x5001517e85c3efff"
SLOT_18_DISK = "0x5000c5003011cb29"

needs_sg_ses = [
    pytest.mark.tools,
    pytest.mark.skipif(shutil.which("sg_ses") is None, reason="sg_ses (sg3-utils) not installed"),
]


def stored(page: str) -> str:
    """The decoding of the capture kept beside it (sg_ses 2.48, Debian sg3-utils 1.46)."""
    return (FIXTURES / f"sg3utils_inhex_areca8028_sg_ses_{page}.txt").read_text()


@cache
def live(page: str) -> str:
    """The capture decoded now by the installed sg_ses."""
    argv = ["sg_ses", "--status", f"--page={page}", f"--inhex={HEX_CAPTURE}"]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 0, f"{' '.join(argv)}: exit {done.returncode}: {done.stderr}"
    return done.stdout


@pytest.fixture(params=["stored", pytest.param("live", marks=needs_sg_ses)])
def decoded(request: pytest.FixtureRequest) -> Callable[[str], str]:
    """The text of a page: from the stored decoding, or from running sg_ses now."""
    return stored if request.param == "stored" else live


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


# --- what live devices and other sg3_utils versions print -----------------------------------------


def test_live_device_output_carries_inquiry_and_primary_logical_id() -> None:
    text = (
        "  HGST      H4060-J           3010\n"
        "  Primary enclosure logical identifier (hex): 5000ccab0400a03e\n"
        + stored("aes").split("\n", 1)[1]  # the --inhex decoding's own identifier line dropped
    )
    aes = parse_additional_status(text)
    assert aes.inquiry is not None
    assert (aes.inquiry.vendor, aes.inquiry.product, aes.inquiry.revision) == (
        "HGST",
        "H4060-J",
        "3010",
    )
    assert aes.primary_logical_id == "0x5000ccab0400a03e"
    assert aes.elements == parse_additional_status(stored("aes")).elements


def test_inquiry_vendor_may_hold_a_space_and_newer_versions_print_a_timestamp() -> None:
    text = (
        "  Areca Te  ARC-802801.37.69  0137\n"
        "Enclosure reports this timestamp:\n"
        "    2 hours, 3 minutes, 4.005 seconds since powerup or reset\n" + stored("cf")
    )
    cf = parse_configuration(text)
    assert cf.inquiry is not None
    assert (cf.inquiry.vendor, cf.inquiry.product, cf.inquiry.revision) == (
        "Areca Te",
        "ARC-802801.37.69",
        "0137",
    )
    assert cf.logical_id == ARECA_LOGICAL_ID and cf.warnings == []


# The wording sg3_utils 1.48 and later print (sg_ses.c: bare es title, "Status descriptor
# list:", "Element descriptor diagnostic page:", "Element descriptor by type list:",
# "Additional element status by element type list:", "Vendor specific data:", list titles
# with colons).
NEWER_WORDING = {
    "cf": [
        ("enclosure descriptor list\n", "enclosure descriptor list:\n"),
        ("vendor-specific data:", "Vendor specific data:"),
        ("type descriptor header and text list\n", "type descriptor header and text list:\n"),
    ],
    "es": [
        ("Enclosure Status diagnostic page:\n", "Enclosure Status diagnostic page\n"),
        ("  status descriptor list\n", "  Status descriptor list:\n"),
    ],
    "ed": [
        ("Element Descriptor In diagnostic page:", "Element descriptor diagnostic page:"),
        ("element descriptor list (grouped by type):", "Element descriptor by type list:"),
    ],
    "aes": [
        (
            "additional element status descriptor list",
            "Additional element status by element type list:",
        ),
    ],
}


@pytest.mark.parametrize("page", sorted(NEWER_WORDING))
def test_newer_sg3_utils_wording_gives_the_same_model(page: str) -> None:
    text = stored(page)
    for old, new in NEWER_WORDING[page]:
        assert old in text
        text = text.replace(old, new)
    assert PAGE_PARSERS[page](text) == PAGE_PARSERS[page](stored(page))


def test_newer_nickname_page_with_subenclosure_prefixes() -> None:
    """1.48 prefixed the keys with "subenclosure": sasutils' `^\\s+nickname:` stopped matching."""
    text = (
        "Subenclosure nickname status diagnostic page:\n"
        "  number of secondary subenclosures: 1\n"
        "  generation code: 0x7\n"
        "    subenclosure identifier: 0 [primary]\n"
        "    subenclosure nickname status: 0x0\n"
        "    subenclosure nickname additional status: 0x0\n"
        "    subenclosure nickname language code: en\n"
        "    subenclosure nickname: OAK-IO1-JBOD-A, rack: 3   \n"
        "    subenclosure identifier: 1\n"
        "    subenclosure nickname status: 0x1\n"
        "    subenclosure nickname additional status: 0x0\n"
        "    subenclosure nickname language code: en\n"
        "    subenclosure nickname: \n"
    )
    snic = parse_nicknames(text)
    assert snic.nickname(0) == "OAK-IO1-JBOD-A, rack: 3"
    assert snic.nickname(1) == ""
    assert snic.nicknames[1].status == 1
    assert snic.nicknames[0].language_code == "en"
    assert (snic.generation_code, snic.secondary_subenclosure_count) == (7, 1)
    assert not snic.truncated and snic.warnings == []


def test_configuration_with_possible_elements_on_the_type_line_and_a_secondary() -> None:
    text = (
        "Configuration diagnostic page:\n"
        "  number of secondary subenclosures: 1\n"
        "  generation code: 0x1\n"
        "  enclosure descriptor list\n"
        "    Subenclosure identifier: 0 [primary]\n"
        "      relative ES process id: 1, number of ES processes: 2\n"
        "      number of type descriptor headers: 3\n"
        "      enclosure logical identifier (hex): 500ccab05629d00\n"  # leading zero dropped
        "      enclosure vendor: HGST      product: H4060-J           rev: 4013\n"
        "    Subenclosure identifier: 1\n"
        "      relative ES process id: 2, number of ES processes: 2\n"
        "      number of type descriptor headers: 1\n"
        "      enclosure logical identifier (hex): 5000ccab05629d40\n"
        "      enclosure vendor: HGST      product: H4060-J           rev: 4013\n"
        "  type descriptor header and text list\n"
        "    Element type: Array device slot, subenclosure id: 0, number of possible elements: 60\n"
        "      text: SLOT\n"
        "    Element type: SAS expander, subenclosure id: 0\n"
        "      number of possible elements: 2\n"
        "    Element type: vendor specific [0x81], subenclosure id: 0\n"
        "      number of possible elements: 1\n"
        "    Element type: Array device slot, subenclosure id: 1\n"
        "      number of possible elements: 12\n"
    )
    cf = parse_configuration(text)
    assert cf.logical_id == "0x0500ccab05629d00"  # 16 digits, as sysfs prints SAS addresses
    assert cf.slot_count == 60  # the primary subenclosure's slots only
    assert cf.expander_count == 2
    assert cf.type_descriptors[2].element_type == "vendor specific [0x81]"
    assert cf.type_descriptors[1].text == ""
    assert [s.logical_id for s in cf.subenclosures] == [
        "0x0500ccab05629d00",
        "0x5000ccab05629d40",
    ]
    assert cf.subenclosures[1].primary is False
    assert not cf.truncated and cf.warnings == []


def test_device_slot_status_and_unnamed_element_types() -> None:
    text = (
        "Enclosure Status diagnostic page\n"
        "  INVOP=0, INFO=0, NON-CRIT=1, CRIT=0, UNRECOV=0\n"
        "  generation code: 0x2\n"
        "  Status descriptor list:\n"
        "    Element type: Device slot, subenclosure id: 0 [ti=0]\n"
        "      Overall descriptor:\n"
        "        Predicted failure=0, Disabled=0, Swap=0, status: Unsupported\n"
        "        Slot address: 0\n"
        "      Element 0 descriptor:\n"
        "        Predicted failure=1, Disabled=0, Swap=0, status: Noncritical\n"
        "        Slot address: 7\n"
        "    Element type: vendor specific [0x81], subenclosure id: 0 [ti=1]\n"
        "      Overall descriptor:\n"
        "        Predicted failure=0, Disabled=0, Swap=0, status: OK\n"
        "        Vendor specific element type, status in hex: 01 00 00 00\n"
    )
    es = parse_enclosure_status(text)
    slot = es.slots[0]
    assert (slot.status, slot.predicted_failure, slot.ident) == ("Noncritical", True, None)
    assert slot.details == ["Slot address: 7"]
    assert es.non_critical and not es.critical
    assert es.elements[-1].element_type == "vendor specific [0x81]"
    assert es.elements[-1].type_index == 1


def test_device_slot_prints_fault_requested_in_full() -> None:
    text = (
        "Enclosure Status diagnostic page:\n"
        "  INVOP=0, INFO=0, NON-CRIT=0, CRIT=0, UNRECOV=0\n"
        "  status descriptor list\n"
        "    Element type: Device slot, subenclosure id: 0 [ti=0]\n"
        "      Element 0 descriptor:\n"
        "        Predicted failure=0, Disabled=0, Swap=0, status: OK\n"
        "        Report=0, App client bypassed B=0, Fault sensed=0, Fault requested=1\n"
        "        Enc bypassed B=0, Ready to insert=0, RMV=0, Ident=1\n"
    )
    (slot,) = parse_enclosure_status(text).slots
    assert (slot.fault_requested, slot.fault_sensed, slot.ident) == (True, False, True)


def test_additional_status_without_element_index_and_invalid_descriptors() -> None:
    text = (
        "Additional element status diagnostic page:\n"
        "  generation code: 0x0\n"
        "  additional element status descriptor list\n"
        "    Element type: Array device slot, subenclosure id: 0 [ti=0]\n"
        "      Element 0 descriptor\n"
        "        Transport protocol: SAS\n"
        "        number of phys: 2, not all phys: 0\n"
        "        phy index: 0\n"
        "          SAS device type: end device\n"
        "          initiator port for:\n"
        "          target port for: SSP\n"
        "          attached SAS address: 0x5000ccab0400a03f\n"
        "          SAS address: 0x5000cca2a0d6e2f5\n"
        "          phy identifier: 0x0\n"
        "        phy index: 1\n"
        "          SAS device type: end device\n"
        "          initiator port for:\n"
        "          target port for: SSP\n"
        "          attached SAS address: 0x5000ccab0400a07f\n"
        "          SAS address: 0x5000cca2a0d6e2f6\n"
        "          phy identifier: 0x0\n"
        "      Element 1 descriptor\n"
        "        flagged as invalid (no further information)\n"
    )
    aes = parse_additional_status(text)
    dual, invalid = aes.elements
    assert (dual.element_number, dual.element_index, dual.device_slot_number) == (0, None, None)
    assert [p.sas_address for p in dual.phys] == ["0x5000cca2a0d6e2f5", "0x5000cca2a0d6e2f6"]
    assert invalid.invalid and invalid.phys == []
    assert dual.type_index == 0


# --- a 60-bay JBOD: every slot prints the same lines ---------------------------------------------

# The seven status lines of an array device slot, as sg_ses prints them.
SLOT_STATUS_LINES = [
    "Predicted failure=0, Disabled=0, Swap=0, status: {status}",
    "OK=0, Reserved device=0, Hot spare=0, Cons check=0",
    "In crit array=0, In failed array=0, Rebuild/remap=0, R/R abort=0",
    "App client bypass A=0, Do not remove=0, Enc bypass A=0, Enc bypass B=0",
    "Ready to insert=0, RMV=0, Ident={ident}, Report=0",
    "App client bypass B=0, Fault sensed=0, Fault reqstd=0, Device off=0",
    "Bypassed A=0, Bypassed B=0, Dev bypassed A=0, Dev bypassed B=0",
]


def test_each_of_60_slots_keeps_its_own_status_flags_and_warnings() -> None:
    """The parser splits each distinct line once per page: the values, the warnings (with their
    own line numbers) and the objects of each slot are still its own."""
    lines = [
        "Enclosure Status diagnostic page:",
        "  INVOP=0, INFO=0, NON-CRIT=0, CRIT=1, UNRECOV=0",
        "  generation code: 0x0",
        "  status descriptor list",
        "    Element type: Array device slot, subenclosure id: 0 [ti=0]",
    ]
    for slot in [None, *range(60)]:
        lines.append(
            "      Overall descriptor:" if slot is None else f"      Element {slot} descriptor:"
        )
        status = "Unsupported" if slot is None else "Critical" if slot == 7 else "OK"
        ident = "x" if slot in (3, 4) else "1" if slot == 7 else "0"
        lines += [
            "        " + line.format(status=status, ident=ident) for line in SLOT_STATUS_LINES
        ]
    es = parse_enclosure_status("\n".join(lines) + "\n")
    assert [s.element_number for s in es.slots] == list(range(60)) and not es.truncated
    assert [s.element_number for s in es.slots if s.status != "OK"] == [7]
    assert [s.element_number for s in es.slots if s.ident] == [7]
    assert (es.slots[3].ident, es.slots[3].details) == (None, ["Ident=x"])
    bad = [number for number, line in enumerate(lines, 1) if "Ident=x" in line]
    assert [w for w in es.warnings if "Ident=x" in w] == [
        f"line {number}: 'Ident=x' has no numeric value" for number in bad
    ]
    es.slots[0].flags["Ident"] = 1
    es.slots[0].details.append("changed")
    assert es.slots[1].ident is False and es.slots[1].details == []  # nothing is shared


def test_each_of_60_slots_keeps_its_own_addresses() -> None:
    """As above, for the aes page: 60 slots of two phys each, and the expander's 68 pairs."""
    lines = [
        "Additional element status diagnostic page:",
        "  generation code: 0x0",
        "  additional element status descriptor list",
        "    Element type: Array device slot, subenclosure id: 0 [ti=0]",
    ]
    for slot in range(60):
        lines += [
            f"      Element index: {slot}  eiioe=0",
            "        Transport protocol: SAS",
            f"        number of phys: 2, not all phys: 0, device slot number: {slot}",
        ]
        for phy in range(2):
            lines += [
                f"        phy index: {phy}",
                "          SAS device type: end device",
                "          initiator port for:",
                "          target port for: SSP",
                f"          attached SAS address: 0x5000ccab0400a{phy}ff",
                f"          SAS address: 0x5000c500{slot:04x}{phy:04x}",
                f"          phy identifier: 0x{slot:x}",
            ]
    lines += [
        "    Element type: SAS expander, subenclosure id: 0 [ti=5]",
        "      Element index: 60  eiioe=0",
        "        Transport protocol: SAS",
        "        number of phys: 68",
        "        SAS address: 0x5000ccab0400a0ff",
        "        Attached connector; other_element pairs:",
        *(f"          [{phy}] no connector; other ei: {phy}" for phy in range(60)),
        *(f"          [{phy}] connector ei: 61" for phy in range(60, 68)),
    ]
    aes = parse_additional_status("\n".join(lines) + "\n")
    slots = aes.device_slots
    assert [e.device_slot_number for e in slots] == list(range(60)) and aes.warnings == []
    assert [[p.sas_address for p in e.phys] for e in slots] == [
        [f"0x5000c500{slot:04x}0000", f"0x5000c500{slot:04x}0001"] for slot in range(60)
    ]
    assert {(p.phy_index, p.attached_sas_address) for e in slots for p in e.phys} == {
        (0, "0x5000ccab0400a0ff"),
        (1, "0x5000ccab0400a1ff"),
    }
    assert [e.phys[1].phy_identifier for e in slots] == list(range(60))
    (expander,) = aes.expanders
    assert [p.other_element_index for p in expander.expander_phys] == [*range(60)] + [None] * 8
    connectors = [p.connector_element_index for p in expander.expander_phys]
    assert connectors == [None] * 60 + [61] * 8
    slots[0].phys[0].target_ports.append("STP")
    assert slots[1].phys[0].target_ports == ["SSP"]  # nothing is shared between phys


@pytest.mark.parametrize("page", PAGES)
def test_crlf_line_ends_give_the_same_model(page: str) -> None:
    parse = PAGE_PARSERS[page]
    assert parse(stored(page).replace("\n", "\r\n")) == parse(stored(page))


def test_a_primary_logical_id_line_inside_the_page_is_left_to_the_next_page() -> None:
    """`--page=all` prints the next page's identifier line before its title: it is no phy line."""
    stray = "  PRIMARY enclosure  logical identifier (hex): 5000ccab0400a03e\n"
    text = stored("aes").replace("phy identifier: 0x0\n", "phy identifier: 0x0\n" + stray, 1)
    assert text != stored("aes")
    assert parse_additional_status(text) == parse_additional_status(stored("aes"))


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
