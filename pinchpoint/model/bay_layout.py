"""Where the bays of a known enclosure model sit, so a view can draw them as a technician finds
them at the rack instead of as a list.

The HGST/WD H4060-J (Ultrastar Data60, "4U60") holds 60 top-loaded disks in a drawer that slides
out of the rack: 5 rows of 12 seen from above, numbered as the shelf numbers its bays (the SES
device slot number, 0-59) from the front row to the back, each row left to right as seen from
the front; a divider runs front to back through the middle of the drawer, between the sixth and
seventh bay of every row. (Sources: the Data60 user guide's drive population, front rows first,
12 at a time; the 5 × 12 grid with its middle divider in TrueNAS's drawing of this shelf,
truenas/webui `es60g2.ts`, whose SES identity is "HGST H4060-J".)

An enclosure not listed here (or one whose bay count does not match) has no layout: views draw
its bays in SES order.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class BayLayout(BaseModel):
    """An enclosure model's bays as drawn: `rows` from the top of the drawing to the bottom,
    each row left to right, by the number the enclosure reports for each bay."""

    model: str  # "HGST H4060-J (Ultrastar Data60)"
    view: str  # what the drawing shows: "drawer, seen from above"
    top: str  # the side at the top of the drawing: "rear"
    bottom: str  # the side at the bottom: "front"
    rows: list[list[int]] = Field(min_length=1)
    gap_after_column: int | None = None  # a divider after this many bays of each row

    @property
    def bays(self) -> int:
        """How many bays the layout places."""
        return sum(len(row) for row in self.rows)


def _drawer(rows: int, columns: int) -> list[list[int]]:
    """Bays numbered from the front row (drawn at the bottom) to the rear, left to right."""
    return [list(range(r * columns, (r + 1) * columns)) for r in reversed(range(rows))]


H4060J = BayLayout(
    model="HGST H4060-J (Ultrastar Data60)",
    view="drawer, seen from above",
    top="rear",
    bottom="front",
    rows=_drawer(5, 12),
    gap_after_column=6,
)

# (SES vendor, SES product) as the enclosure's configuration page reports them.
KNOWN_LAYOUTS: dict[tuple[str, str], BayLayout] = {
    ("HGST", "H4060-J"): H4060J,
    ("WDC", "H4060-J"): H4060J,
}


def bay_layout(vendor: str | None, product: str | None, bay_count: int | None) -> BayLayout | None:
    """The layout of a known enclosure model, or None when the model is not known or reports a
    different number of bays than the model has (a layout never hides or invents a bay)."""
    layout = KNOWN_LAYOUTS.get(((vendor or "").strip().upper(), (product or "").strip().upper()))
    if layout is None or bay_count != layout.bays:
        return None
    return layout
