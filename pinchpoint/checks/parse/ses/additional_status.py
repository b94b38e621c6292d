"""The additional element status page (`sg_ses --page=aes`): per slot the SAS addresses of the
device in it (one per phy), per expander its SAS address and how its phys are wired, per SCSI
port or controller its phys.

Slots repeat most lines ("phy index: 0", "target port for: SSP"), so each distinct line is
sorted once per page; a 60-bay page is about 1,300 lines.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from pinchpoint.checks.parse.ses.elements import (
    Block,
    built_elements,
    element_label,
    page_layout,
)
from pinchpoint.checks.parse.ses.page import (
    Body,
    SesParseError,
    generation_code,
    page_body,
    safely,
)
from pinchpoint.checks.parse.ses.values import (
    IncompleteError,
    field_key,
    hex_id_value,
    line_fields,
    number_value,
)
from pinchpoint.model.ses import SAS_EXPANDER, SesAdditionalElement, SesAdditionalStatus

__all__ = ["parse_additional_status"]


# The first line of an element: "Element index: 25  eiioe=0", possibly followed by
# "but overridden" (1.48+). Devices that give no index get "Element N descriptor" instead.
_ELEMENT_INDEX = re.compile(
    r"element index:\s*(?P<index>\S+)(?:\s+eiioe=(?P<eiioe>\S+))?.*", re.IGNORECASE
)
_NOTHING_ATTACHED = "no sas device attached"
_PAIR_TITLE = "attached connector; other_element pairs"  # the line above an expander's pairs
_SAS_EXPANDER_KEY = field_key(SAS_EXPANDER)  # element types compare as `same_element_type` does


def _expander_pair(text: str) -> tuple[str, str] | None:
    """Split an expander phy's pair line at its "]" ("[16] connector ei: 2" -> "16", "connector
    ei: 2"); None for other lines. Other pairs: "[0] no connector; other ei: 13", and with a join
    (live device) names instead of indexes: "[0] no connector; SLOT 14 [0,13] etype: …".
    """
    phy, bracket, rest = text[1:].partition("]")
    if text[0] != "[" or not bracket:
        return None
    return phy, rest.lstrip()


def _is_aes_start(text: str) -> bool:
    """True for the first line of an additional element status descriptor (a stripped line)."""
    if text[:1] not in ("e", "E"):  # neither "Element index: …" nor "Element N descriptor: …"
        return False
    if _ELEMENT_INDEX.fullmatch(text):
        return True
    label = element_label(text)
    return label is not None and label[0] is not None


@dataclass
class _PhyDraft:
    """The lines under one "phy index: N" line."""

    fields: dict[str, str] = field(default_factory=dict)
    other_text: list[str] = field(default_factory=list)


@dataclass
class _AesDraft:
    """The lines of one aes element, sorted by what they describe."""

    fields: dict[str, str] = field(default_factory=dict)
    invalid: bool = False
    pairs: list[tuple[str, str]] = field(default_factory=list)  # expander pairs: phy, the rest
    has_pair_title: bool = False
    phys: list[_PhyDraft] = field(default_factory=list)


# What the lines of a SAS phy descriptor are called; anything else under a phy is its
# connector / other element text (SCSI port and controller elements).
_PHY_KEYS = frozenset(
    {
        "sas device type",
        "initiator port for",
        "target port for",
        "attached sas address",
        "sas address",
        "phy identifier",
        "phy_id",
    }
)


# What one line of an aes element is, worked out once per distinct text (a plain tuple: a page
# has hundreds of distinct lines):
# * kind: "invalid" ("flagged as invalid …"), "pair title" or "fields";
# * fields: its `name: value` fields, shared by the lines alike: not to be changed;
# * starts_phy: it is a "phy index: N" line;
# * of_phy: it is another line of a phy descriptor ("SAS address: …", one of `_PHY_KEYS`).
_AesLine = tuple[str, dict[str, str], bool, bool]


def _aes_line(text: str) -> _AesLine:
    """Sort one line; the first letter rules out the rare kinds before the text is compared."""
    if text[0] in "fF" and field_key(text).startswith("flagged as invalid"):
        return "invalid", {}, False, False
    if text[0] in "aA" and field_key(text).startswith(_PAIR_TITLE):
        return "pair title", {}, False, False
    fields = line_fields(text)
    starts_phy = "phy index" in fields
    return "fields", fields, starts_phy, not starts_phy and not _PHY_KEYS.isdisjoint(fields)


def _aes_draft(body: Body, block: Block, seen: dict[str, _AesLine]) -> _AesDraft:
    """Sort an aes element's lines into element fields, phy blocks and expander pairs.

    Slots repeat most lines ("phy index: 0", "target port for: SSP"), so each distinct line is
    sorted only once per page: `seen` holds the lines sorted so far, by their text.
    """
    draft = _AesDraft()
    phy: _PhyDraft | None = None  # the phy the lines are about, from its "phy index" line on
    for number, text in zip(block.numbers, block.texts, strict=True):
        if text[0] == "[" and phy is None and (pair := _expander_pair(text)):
            draft.pairs.append(pair)  # unlike the others, each of these lines is different
            continue
        sorted_line = seen.get(text)
        if sorted_line is None:
            sorted_line = seen[text] = _aes_line(text)
        kind, fields, starts_phy, of_phy = sorted_line
        if phy is not None and of_phy:  # the usual line
            for name, value in fields.items():
                phy.fields.setdefault(name, value)
        elif kind == "invalid":
            draft.invalid = True
        elif kind == "pair title":
            draft.has_pair_title = True
        elif starts_phy:
            phy = _PhyDraft(fields=dict(fields))  # the lines below add to it
            draft.phys.append(phy)
        elif phy is not None:
            phy.other_text.append(text)
        elif fields:
            for name, value in fields.items():
                draft.fields.setdefault(name, value)
        elif draft.fields.get("transport protocol", "").upper().startswith("SAS"):
            body.warn(f"line {number}: not understood: {text!r}")
    return draft


def _port_list(value: str | None) -> list[str]:
    """The protocols after "initiator port for:" / "target port for:" ("SSP STP" -> two)."""
    return value.split() if value else []


def _slot_phy(phy: _PhyDraft) -> dict[str, object]:
    """A device slot's phy, as the fields of a `SesPhy`; addresses may be left out only when
    nothing is attached."""
    f = phy.fields
    index = number_value(f["phy index"], "phy index")
    if "sas device type" not in f:
        raise IncompleteError(f"phy {index} has no 'SAS device type' line")
    printed = ("attached sas address" in f, "sas address" in f)
    nothing = field_key(f["sas device type"]).startswith(_NOTHING_ATTACHED)
    if any(printed) and "phy identifier" not in f:
        raise IncompleteError(f"phy {index} has no 'phy identifier' line")
    if not nothing and not all(printed):
        raise IncompleteError(f"phy {index} has a device but not both SAS addresses")
    identifier = f.get("phy identifier")
    return {
        "phy_index": index,
        "device_type": f["sas device type"],
        "initiator_ports": _port_list(f.get("initiator port for")),
        "target_ports": _port_list(f.get("target port for")),
        "attached_sas_address": hex_id_value(
            f.get("attached sas address", "0"), "attached SAS address"
        ),
        "sas_address": hex_id_value(f.get("sas address", "0"), "SAS address"),
        "phy_identifier": None
        if identifier is None
        else number_value(identifier, "phy identifier"),
    }


def _port_phy(phy: _PhyDraft) -> dict[str, object]:
    """A phy of a SCSI port or controller element, as the fields of a `SesPortPhy`."""
    f = phy.fields
    index = number_value(f["phy index"], "phy index")
    if "sas address" not in f:
        raise IncompleteError(f"phy {index} has no 'SAS address' line")
    return {
        "phy_index": index,
        "phy_identifier": number_value(f["phy_id"], "phy_id") if "phy_id" in f else None,
        "sas_address": hex_id_value(f["sas address"], "SAS address"),
        "description": "; ".join(phy.other_text),
    }


def _expander_phy(pair: tuple[str, str]) -> dict[str, object]:
    """One "[N] connector …; other …" pair of a SAS expander element (as `_expander_pair` split
    it), as a `SesExpanderPhy`'s fields."""
    phy, rest = pair
    phy_index = number_value(phy, "expander phy index")
    connector_index, other_index = _pair_indexes(rest)
    return {
        "phy_index": phy_index,
        "connector_element_index": connector_index,
        "other_element_index": other_index,
        "description": rest,
    }


@lru_cache(maxsize=1024)  # an expander wires many phys alike ("no connector; other ei: 61")
def _pair_indexes(rest: str) -> tuple[int | None, int | None]:
    """The connector and other element indexes of a pair's text after its "[N]", if printed."""
    connector, _, other = rest.partition(";")
    connector_index = line_fields(connector).get("connector ei")
    other_index = line_fields(other).get("other ei")
    return (
        None if connector_index is None else number_value(connector_index, "connector ei"),
        None if other_index is None else number_value(other_index, "other ei"),
    )


def _phy_count(fields: Mapping[str, str]) -> int | None:
    """The count of "number of phys" (SAS) or "number of ports" (FCP, PCIe), if printed."""
    for key in ("number of phys", "number of ports"):
        if key in fields:
            return number_value(fields[key], key)
    return None


def _additional_element(
    body: Body, block: Block, seen: dict[str, _AesLine]
) -> SesAdditionalElement:
    """One aes element, checked complete: every announced phy (or pair) is there."""
    assert block.heading is not None  # built_elements skips blocks without a heading
    draft = _aes_draft(body, block, seen)
    f = draft.fields
    element_index = eiioe = element_number = None
    index_line = _ELEMENT_INDEX.fullmatch(block.start.text)
    if index_line:
        element_index = number_value(index_line["index"], "element index")
        if index_line["eiioe"] is not None:
            eiioe = number_value(index_line["eiioe"], "eiioe")
    else:
        label = element_label(block.start.text)
        element_number = number_value(label[0] or "", "element number") if label else None
    transport = f.get("transport protocol")
    if transport is None and not draft.invalid:
        raise IncompleteError("no 'Transport protocol' line")
    phy_count = _phy_count(f)
    not_all = f.get("not all phys", f.get("not all ports"))
    slot = f.get("device slot number")
    values = {
        "element_type": block.heading.element_type,
        "subenclosure_id": block.heading.subenclosure_id,
        "type_index": block.heading.type_index,
        "element_index": element_index,
        "element_number": element_number,
        "eiioe": eiioe,
        "invalid": draft.invalid,
        "transport_protocol": transport,
        "phy_count": phy_count,
        "not_all_phys": None if not_all is None else number_value(not_all, "not all phys") != 0,
        "device_slot_number": None if slot is None else number_value(slot, "device slot number"),
    }
    if not draft.invalid and (transport or "").upper().startswith("SAS"):
        values |= _sas_phys(block.heading.element_type, phy_count, draft)
    # nothing more is decoded for invalid elements and other transports
    return SesAdditionalElement(**values)


def _sas_phys(element_type: str, phy_count: int | None, draft: _AesDraft) -> dict[str, object]:
    """The phys of a SAS element, as model fields: slot phys, expander pairs, or port phys.

    Each phy is a plain dict here: the element's model validates them all at once.
    """
    if phy_count is None:
        raise IncompleteError("no 'number of phys' line")
    expander = draft.has_pair_title or field_key(element_type) == _SAS_EXPANDER_KEY
    if expander:
        if "sas address" not in draft.fields:
            raise IncompleteError("the expander has no 'SAS address' line")
        pairs = [_expander_phy(pair) for pair in draft.pairs]
        if len(pairs) < phy_count:
            raise IncompleteError(f"{len(pairs)} of {phy_count} expander phys")
        return {
            "sas_address": hex_id_value(draft.fields["sas address"], "expander SAS address"),
            "expander_phys": pairs,
        }
    if any("phy_id" in phy.fields for phy in draft.phys):
        ports = [_port_phy(phy) for phy in draft.phys]
        if len(ports) < phy_count:
            raise IncompleteError(f"{len(ports)} of {phy_count} phys")
        return {"port_phys": ports}
    phys = [_slot_phy(phy) for phy in draft.phys]
    if len(phys) < phy_count:
        raise IncompleteError(f"{len(phys)} of {phy_count} phys")
    return {"phys": phys}


def parse_additional_status(text: str) -> SesAdditionalStatus:
    """Decode `sg_ses --page=aes`: per slot the attached SAS addresses, per expander its address."""
    body = page_body(text, "aes")
    layout = page_layout(body, _is_aes_start, count_types=False)
    seen: dict[str, _AesLine] = {}  # the lines already sorted, by their text
    elements, ended_inside = built_elements(
        body, layout.blocks, lambda block, _last: _additional_element(body, block, seen)
    )
    if not elements:
        raise SesParseError("aes", "no complete additional element status descriptor")
    return safely(
        "aes",
        lambda: SesAdditionalStatus(
            inquiry=body.inquiry,
            primary_logical_id=body.primary_logical_id,
            generation_code=generation_code(body, layout.preface),
            truncated=body.cut or ended_inside,
            warnings=body.warnings,
            elements=elements,
        ),
    )
