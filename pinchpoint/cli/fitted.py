"""A wide table for a narrow terminal: its columns split into as many tables as the width needs,
the first column (the device or entity) repeated in each, so that no name or number is cut to
"…" at 80 columns or any other width."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from rich.console import Console, ConsoleOptions, RenderableType
from rich.measure import Measurement
from rich.table import Table

Justify = Literal["left", "right", "center"]


@dataclass
class FittedTable:
    """Columns `(heading, justify)` and rows of cells; `table` keyword arguments go to each
    `rich.table.Table` drawn."""

    title: str
    columns: Sequence[tuple[str, Justify]]
    rows: list[Sequence[RenderableType]] = field(default_factory=list)
    table: dict[str, Any] = field(default_factory=dict)

    def add_row(self, *cells: RenderableType) -> None:
        self.rows.append(cells)

    def part(self, indices: Sequence[int], title: str | None) -> Table:
        """The table of the columns at `indices` (0, the key column, first)."""
        drawn = Table(title=title, title_justify="left", **self.table)
        for index in indices:
            heading, justify = self.columns[index]
            if index == 0:  # a name longer than the terminal folds onto the next line
                drawn.add_column(heading, justify=justify, overflow="fold")
            else:
                drawn.add_column(heading, justify=justify, no_wrap=True)
        for row in self.rows:
            drawn.add_row(*(row[i] for i in indices))
        return drawn

    def groups(self, console: Console, options: ConsoleOptions) -> list[list[int]]:
        """The other columns, split into runs whose table fits `options.max_width`."""
        groups: list[list[int]] = []
        current: list[int] = []
        unbounded = options.update_width(1_000_000)  # a table's measure is clamped to the width
        for index in range(1, len(self.columns)):
            trial = self.part([0, *current, index], None)
            wanted = Measurement.get(console, unbounded, trial).maximum
            if current and wanted > options.max_width:
                groups.append(current)
                current = []
            current.append(index)
        groups.append(current)
        return groups

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Table]:
        groups = self.groups(console, options)
        for number, group in enumerate(groups):
            title = self.title if number == 0 else f"{self.title} (continued)"
            yield self.part([0, *group], title if self.title else None)
