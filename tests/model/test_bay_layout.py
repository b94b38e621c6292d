"""Known enclosure layouts: the H4060-J's drawer of 5 rows of 12, front row (bays 0-11) at the
bottom, a divider after the sixth bay of each row; nothing for a model or bay count not known."""

from __future__ import annotations

import pytest

from pinchpoint.model.bay_layout import H4060J, bay_layout


def test_the_h4060j_drawer_places_each_of_its_60_bays_once() -> None:
    layout = bay_layout("HGST", "H4060-J", 60)
    assert layout is H4060J
    assert len(layout.rows) == 5 and {len(row) for row in layout.rows} == {12}
    assert sorted(bay for row in layout.rows for bay in row) == list(range(60))
    assert layout.bays == 60


def test_the_front_row_is_drawn_at_the_bottom_numbered_left_to_right() -> None:
    assert (H4060J.top, H4060J.bottom) == ("rear", "front")
    assert H4060J.rows[-1] == list(range(12))  # the front row: bays 0-11
    assert H4060J.rows[0] == list(range(48, 60))  # the rear row
    assert H4060J.gap_after_column == 6


@pytest.mark.parametrize(
    ("vendor", "product", "bays"),
    [
        ("HGST", "H4060-J", 24),  # a shelf that reports another bay count is not drawn as one
        ("HGST", "H4102-J", 102),
        ("LSI", "SAS2X36", 60),
        (None, None, None),
        ("HGST", "H4060-J", None),
    ],
)
def test_no_layout_for_an_unknown_model_or_bay_count(
    vendor: str | None, product: str | None, bays: int | None
) -> None:
    assert bay_layout(vendor, product, bays) is None


def test_vendor_and_product_are_matched_as_inquiry_data_pads_them() -> None:
    assert bay_layout("HGST    ", " h4060-j ", 60) is H4060J
