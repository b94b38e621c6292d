"""A slot's label is the enclosure's own, shown only where it says more than the number; on
HGST/WD shelves the descriptor carries the disk's serial after a comma, which is not a label."""

from __future__ import annotations

import pytest

from pinchpoint.naming import slot_label, slot_name


@pytest.mark.parametrize(
    ("descriptor", "number", "label"),
    [
        ("SLOT 07,8HK1ZT4H", 7, None),  # H4060-J: numbered from 0 like its slots
        ("SLOT 07", 7, None),
        ("SLOT 06", 5, "SLOT 06"),  # labels one above the numbers
        ("SLOT 000,3FHPELZT           ", 0, None),  # H4102-J, padded with spaces
        ("SLOT 12,", 11, "SLOT 12"),
        ("POWER SUPPLY A,CSU1800AP-3-10,N8681X00DPAKZ,,Artesyn,1800W", 0, "POWER SUPPLY A"),
        ("Front Bay 3", 2, "Front Bay 3"),
        (",8HK1ZT4H", 3, None),
        (None, 3, None),
    ],
)
def test_slot_label(descriptor: str | None, number: int, label: str | None) -> None:
    assert slot_label(descriptor, number) == label


def test_an_h4060j_slot_is_named_by_its_number_alone() -> None:
    assert slot_name(57, "SLOT 57,8HK1ZT4H") == "slot 57"
