"""Inventories, stored once per content part by part (`bodies.py` cuts them): what a report's
save adds, and the inventory a report was made from read back whole."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from pinchpoint.model.inventory import Inventory
from pinchpoint.service.store.bodies import SplitInventory, join_inventory, pack, unpack
from pinchpoint.service.store.database import Database, MissingPartsError, dialect_insert
from pinchpoint.service.store.schema import (
    HostRow,
    InventoryPartLinkRow,
    InventoryPartRow,
    InventoryRow,
    ReportRow,
)


def held_parts(session: Session, digests: Iterable[str]) -> set[str]:
    """Which of `digests` the store holds as inventory parts."""
    wanted = sorted(set(digests))
    return set(
        session.scalars(select(InventoryPartRow.digest).where(InventoryPartRow.digest.in_(wanted)))
    )


def packed_new_parts(
    session: Session, split: SplitInventory, held: set[str] | None = None
) -> dict[str, bytes]:
    """The parts not stored yet, compressed: done before the write transaction begins (the
    transaction compresses any that a prune removed meanwhile). `held`: the digests already
    known to be stored (looked up when not given)."""
    if held is None:
        held = held_parts(session, (part.digest for part in split.parts))
    return {
        p.digest: pack(p.json) for p in split.parts if p.json is not None and p.digest not in held
    }


def store_inventory(
    session: Session, split: SplitInventory, packed: dict[str, bytes], at: datetime
) -> tuple[int, bool]:
    """The id of the inventory `split` (stored now unless it already was), and whether it
    was new. A part sent by digest only must be held already (`MissingPartsError`)."""
    found = session.scalar(select(InventoryRow.id).where(InventoryRow.digest == split.digest))
    if found is not None:
        return found, False
    digests = sorted({part.digest for part in split.parts})
    stored = {
        digest: (part_id, size)
        for digest, part_id, size in session.execute(
            select(InventoryPartRow.digest, InventoryPartRow.id, InventoryPartRow.raw_size).where(
                InventoryPartRow.digest.in_(digests)
            )
        )
    }
    adding = [p for p in split.parts if p.digest not in stored and p.json is not None]
    missing = sorted({p.name for p in split.parts if p.digest not in stored and p.json is None})
    if missing:
        raise MissingPartsError(missing)
    for part in adding:
        assert part.json is not None
        session.execute(
            dialect_insert(session, InventoryPartRow)
            .values(
                digest=part.digest,
                name=part.name,
                raw_size=len(part.json),
                body=packed.get(part.digest) or pack(part.json),
            )
            .on_conflict_do_nothing(index_elements=["digest"])
        )
    if adding:  # a concurrent save may have stored some of them first: read the ids back
        stored.update(
            (digest, (part_id, size))
            for digest, part_id, size in session.execute(
                select(
                    InventoryPartRow.digest, InventoryPartRow.id, InventoryPartRow.raw_size
                ).where(InventoryPartRow.digest.in_(sorted({p.digest for p in adding})))
            )
        )
    part_ids = {part.name: stored[part.digest][0] for part in split.parts}
    # RETURNING says whether this transaction inserted it (an ORM INSERT's rowcount is -1 on
    # PostgreSQL): a concurrent save of the same content waits for the first one's commit,
    # then finds the row and must not add its links again
    inserted = session.scalar(
        dialect_insert(session, InventoryRow)
        .values(
            digest=split.digest,
            format_version=split.format_version,
            raw_size=sum(stored[part.digest][1] for part in split.parts),
            created_at=at,
        )
        .on_conflict_do_nothing(index_elements=["digest"])
        .returning(InventoryRow.id)
    )
    if inserted is None:
        found = session.scalars(
            select(InventoryRow.id).where(InventoryRow.digest == split.digest)
        ).one()
        return found, False
    inventory_id: int = inserted
    session.add_all(
        InventoryPartLinkRow(inventory_id=inventory_id, name=name, part_id=part_id)
        for name, part_id in part_ids.items()
    )
    session.flush()
    return inventory_id, True


def stored_parts(session: Session, digests: Iterable[str]) -> dict[str, bytes]:
    """The JSON of the stored parts of `digests`, by digest."""
    wanted = sorted(set(digests))
    return {
        digest: unpack(body)
        for digest, body in session.execute(
            select(InventoryPartRow.digest, InventoryPartRow.body).where(
                InventoryPartRow.digest.in_(wanted)
            )
        )
    }


def report_inventory(session: Session, row: ReportRow) -> Inventory | None:
    """The inventory saved with the report `row`, if one was."""
    if row.inventory_id is None or row.inventory_host is None:
        return None
    inventory = session.get(InventoryRow, row.inventory_id)
    if inventory is None:
        return None
    parts = session.execute(
        select(InventoryPartLinkRow.name, InventoryPartRow.body)
        .join(InventoryPartRow, InventoryPartRow.id == InventoryPartLinkRow.part_id)
        .where(InventoryPartLinkRow.inventory_id == row.inventory_id)
    ).all()
    return join_inventory(
        inventory.format_version,
        row.inventory_host,
        {name: unpack(body) for name, body in parts},
    )


class InventoryStore(Database):
    """The store's inventories, read by the report they were saved with."""

    def inventory_of(self, report_id: int) -> Inventory | None:
        """The inventory saved with report `report_id`, if one was."""
        with self._reading() as session:
            row = session.get(ReportRow, report_id)
            return report_inventory(session, row) if row is not None else None

    def latest_inventory(self, host: str | None = None) -> Inventory | None:
        """The inventory of the newest report of `host` (None: any host) that has one."""
        query = (
            select(ReportRow)
            .where(ReportRow.inventory_id.is_not(None))
            .order_by(ReportRow.generated_at.desc(), ReportRow.id.desc())
        )
        if host is not None:
            query = query.join(HostRow, HostRow.id == ReportRow.host_id).where(HostRow.name == host)
        with self._reading() as session:
            row = session.scalars(query.limit(1)).first()
            return report_inventory(session, row) if row is not None else None
