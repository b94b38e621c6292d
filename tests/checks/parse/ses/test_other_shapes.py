"""What live devices and other sg3_utils versions print, parsed into the same models as the
stored decodings of the Areca capture; a 60-bay JBOD whose slots print the same lines."""

from __future__ import annotations

import pytest
from ses_capture import (
    ARECA_LOGICAL_ID,
    PAGES,
    stored,
)

from pinchpoint.checks.parse.ses import (
    PAGE_PARSERS,
    parse_additional_status,
    parse_configuration,
    parse_enclosure_status,
    parse_nicknames,
)

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
