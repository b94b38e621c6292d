"""Reports: saving one (with its inventory, the host's finding states moved in the same
transaction), reading them back, listing their summaries and comparing two.

What a report's findings add up to is `pinchpoint/report/summary.py`, how two differ
`pinchpoint/report/diff.py`; this module reads and writes rows.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import ColumnElement, Select, func, select
from sqlalchemy.orm import Session, defer

from pinchpoint.model.findings import Report, Severity
from pinchpoint.model.fleet import HostFleetFacts
from pinchpoint.model.inventory import Inventory
from pinchpoint.performance import gc_paused
from pinchpoint.report.diff import findings_diff
from pinchpoint.report.summary import SeverityCounts, findings_summary
from pinchpoint.rules.derived.fleet_facts import host_fleet_facts
from pinchpoint.service.events import FindingTransition
from pinchpoint.service.store.bodies import (
    PartError,
    PushedInventory,
    SplitInventory,
    pack,
    split_inventory,
    unpack,
    validated_part,
)
from pinchpoint.service.store.database import (
    MissingPartsError,
    StoreInputError,
    check_page,
    lock,
    moment_or_now,
    utc,
)
from pinchpoint.service.store.findings import advance_states
from pinchpoint.service.store.fleet import (
    FleetStore,
    facts_of,
    facts_source,
    facts_wanted,
    keep_fleet_facts,
)
from pinchpoint.service.store.fleet_parts import fact_part, fact_part_read
from pinchpoint.service.store.hosts import host_name, host_row
from pinchpoint.service.store.inventories import (
    held_parts,
    packed_new_parts,
    store_inventory,
    stored_parts,
)
from pinchpoint.service.store.mute_holds import holding_mute
from pinchpoint.service.store.mutes import unexpired_mutes
from pinchpoint.service.store.records import (
    ORIGINS,
    Origin,
    Page,
    ReportDiff,
    ReportSummary,
    SavedReport,
    StoredReport,
)
from pinchpoint.service.store.schema import HostRow, ReportRow


def _summary(row: ReportRow, host: str) -> ReportSummary:
    return ReportSummary(
        id=row.id,
        host=host,
        generated_at=row.generated_at,
        stored_at=row.stored_at,
        origin=cast(Origin, row.origin),
        duration_s=row.duration_s,
        findings=SeverityCounts(critical=row.critical, warning=row.warning, info=row.info),
        muted=row.muted,
        worst=Severity(row.worst) if row.worst else None,
        rules_evaluated=row.rules_evaluated,
        skipped=row.skipped,
        collection_problems=row.collection_problems,
        has_inventory=row.inventory_id is not None,
    )


def _stored(row: ReportRow) -> StoredReport:
    return StoredReport(
        id=row.id,
        origin=cast(Origin, row.origin),
        duration_s=row.duration_s,
        stored_at=row.stored_at,
        has_inventory=row.inventory_id is not None,
        report=Report.model_validate_json(unpack(row.body)),
    )


def _check_save(
    report: Report,
    inventory: Inventory | None,
    duration_s: float | None,
    origin: str,
    raise_after: int,
    resolve_after: int,
) -> str:
    """The host name `report` is saved under, once every argument is one the store takes."""
    host = host_name(report)
    if origin not in ORIGINS:
        raise StoreInputError(f"origin must be one of {', '.join(ORIGINS)}, not {origin!r}")
    for name, value in (("raise_after", raise_after), ("resolve_after", resolve_after)):
        if value < 1:
            raise StoreInputError(f"{name} must be 1 or more, not {value}")
    if duration_s is not None and not (math.isfinite(duration_s) and duration_s >= 0):
        raise StoreInputError(f"duration_s must be a duration in seconds, not {duration_s}")
    if inventory is not None and inventory.host.hostname not in (None, "", host):
        raise StoreInputError(
            f"the inventory is of host {inventory.host.hostname!r}, the report of {host!r}"
        )
    return host


@dataclass(frozen=True)
class _Inventory:
    """A report's inventory as the save transaction takes it: its parts (those not held yet
    compressed ahead), its host block, and its fleet facts when the transaction needs them."""

    split: SplitInventory
    host_json: str
    packed: dict[str, bytes]
    facts: Callable[[], HostFleetFacts | None]


class ReportStore(FleetStore):
    """The store's reports (each keeps its host's fleet facts up to date)."""

    def save_report(
        self,
        report: Report,
        *,
        inventory: Inventory | None = None,
        duration_s: float | None = None,
        origin: str = "sweep",
        raise_after: int = 2,
        resolve_after: int = 2,
        now: datetime | None = None,
    ) -> SavedReport:
        """Store `report` (and the inventory it was made from) in one transaction, move the
        host's finding states and its fleet facts (and the fleet findings they change), and
        return the transitions to notify. The same report again (same host, same generated_at)
        is stored once: the second save answers with the first's id (`duplicate`)."""
        host = _check_save(report, inventory, duration_s, origin, raise_after, resolve_after)
        split = split_inventory(inventory) if inventory is not None else None
        packed = {}
        if split is not None:
            with self._reading() as session:
                packed = packed_new_parts(session, split)
        facts = facts_of(host, inventory)
        return self._save(
            report,
            host,
            _Inventory(split, inventory.host.model_dump_json(), packed, lambda: facts)
            if split is not None and inventory is not None
            else None,
            duration_s=duration_s,
            origin=origin,
            raise_after=raise_after,
            resolve_after=resolve_after,
            now=now,
        )

    def save_pushed(
        self,
        report: Report,
        inventory: PushedInventory | None,
        *,
        duration_s: float | None = None,
        raise_after: int = 2,
        resolve_after: int = 2,
        now: datetime | None = None,
    ) -> SavedReport:
        """`save_report` for what an agent pushed, without making the inventory a model: each
        part is stored as the JSON it came in, checked against the model only when the store
        does not hold its digest yet (`StoreInputError` when the model refuses it); a part sent
        by digest only must be held (`MissingPartsError` names those that are not). The fleet
        facts are taken from the inventory only when it is not the one they were taken from."""
        host = _check_save(report, None, duration_s, "push", raise_after, resolve_after)
        if inventory is None:
            return self._save(
                report,
                host,
                None,
                duration_s=duration_s,
                origin="push",
                raise_after=raise_after,
                resolve_after=resolve_after,
                now=now,
            )
        if inventory.host.hostname not in (None, "", host):
            raise StoreInputError(
                f"the inventory is of host {inventory.host.hostname!r}, the report of {host!r}"
            )
        split = inventory.split()
        host_json = inventory.host.model_dump_json()
        source = facts_source(split.digest, host_json)
        generated_at = utc(report.generated_at)
        checked: dict[str, Any] = {}
        packed: dict[str, bytes] = {}
        ahead: HostFleetFacts | None = None
        # Parts sent by digest only (an agent's next sweep, the usual push): nothing to check or
        # compress, and the transaction finds them held (or names those that are not); the
        # facts are taken in it only if they may have changed.
        if any(part.json is not None for part in split.parts):
            with self._reading() as session:
                held = held_parts(session, (part.digest for part in split.parts))
                missing = sorted(
                    {p.name for p in split.parts if p.json is None and p.digest not in held}
                )
                if missing:
                    raise MissingPartsError(missing)
                with gc_paused():  # one host's parts made models: see `_pushed_facts`
                    for part in split.parts:
                        if part.json is not None and part.digest not in held:
                            try:
                                checked[part.name] = validated_part(part.name, part.json)
                            except PartError as err:
                                raise StoreInputError(str(err)) from None
                packed = packed_new_parts(session, split, held)
                known = session.scalars(select(HostRow).where(HostRow.name == host)).first()
                wanted = facts_wanted(session, known, generated_at, source)
                ahead = (
                    self._pushed_facts(session, host, inventory, split, checked) if wanted else None
                )

        def facts() -> HostFleetFacts:
            if ahead is not None:
                return ahead
            with self._reading() as session:  # by digest only, or a concurrent push meanwhile
                return self._pushed_facts(session, host, inventory, split, checked)

        return self._save(
            report,
            host,
            _Inventory(split, host_json, packed, facts),
            duration_s=duration_s,
            origin="push",
            raise_after=raise_after,
            resolve_after=resolve_after,
            now=now,
        )

    @staticmethod
    @gc_paused()
    def _pushed_facts(
        session: Session,
        host: str,
        pushed: PushedInventory,
        split: SplitInventory,
        checked: dict[str, Any],
    ) -> HostFleetFacts:
        """The fleet facts of a pushed inventory: the parts checked on the way in as they were
        made models, the others (held: checked when stored) made models of just the fields the
        facts read (`fleet_parts.py`), those sent by digest read back from the store. The
        collector is paused meanwhile (`performance.gc_paused`): the tens of thousands of
        objects made live on until the facts are taken, and its passes over them cost more
        than making them."""
        read = [p for p in split.parts if p.name in checked or fact_part_read(p.name)]
        held = stored_parts(session, (p.digest for p in read if p.json is None))
        models = {}
        for part in read:
            if part.name in checked:
                models[part.name] = checked[part.name]
                continue
            try:
                raw = part.json if part.json is not None else held[part.digest]
                models[part.name] = fact_part(part.name, raw)
            except PartError as err:
                raise StoreInputError(str(err)) from None
        inventory = Inventory.model_construct(
            format_version=split.format_version, host=pushed.host, **models
        )
        return host_fleet_facts(host, inventory)

    def _save(
        self,
        report: Report,
        host: str,
        inventory: _Inventory | None,
        *,
        duration_s: float | None,
        origin: str,
        raise_after: int,
        resolve_after: int,
        now: datetime | None,
    ) -> SavedReport:
        """The transaction of `save_report` and `save_pushed`."""
        stored_at = moment_or_now(now)
        generated_at = utc(report.generated_at)
        body = pack(report.model_dump_json())
        summary = findings_summary(report.findings)
        with self._writing() as session:
            lock(session, "maintenance", shared=True)
            lock(session, f"host:{host}")
            host_record = host_row(session, host, generated_at)
            duplicate = session.scalar(
                select(ReportRow).where(
                    ReportRow.host_id == host_record.id, ReportRow.generated_at == generated_at
                )
            )
            if duplicate is not None:
                return SavedReport(
                    id=duplicate.id,
                    host=host,
                    generated_at=duplicate.generated_at,
                    stored_at=duplicate.stored_at,
                    inventory_id=duplicate.inventory_id,
                    states_advanced=False,
                    duplicate=True,
                )
            newest = session.scalar(
                select(func.max(ReportRow.generated_at)).where(ReportRow.host_id == host_record.id)
            )
            inventory_id, inventory_stored = (
                store_inventory(session, inventory.split, inventory.packed, stored_at)
                if inventory is not None
                else (None, False)
            )
            row = ReportRow(
                host_id=host_record.id,
                generated_at=generated_at,
                stored_at=stored_at,
                origin=origin,
                duration_s=duration_s,
                inventory_id=inventory_id,
                inventory_host=inventory.host_json if inventory is not None else None,
                critical=summary.unmuted.critical,
                warning=summary.unmuted.warning,
                info=summary.unmuted.info,
                muted=summary.muted,
                worst=summary.worst.value if summary.worst else None,
                rules_evaluated=report.rules_evaluated,
                skipped=len(report.skipped),
                collection_problems=len(report.collection),
                body=body,
            )
            session.add(row)
            session.flush()
            advanced = newest is None or generated_at > newest
            transitions: list[FindingTransition] = []
            if advanced:
                mutes = unexpired_mutes(session, host, generated_at)
                transitions = advance_states(
                    session,
                    host_id=host_record.id,
                    host=host,
                    report=report,
                    report_id=row.id,
                    raise_after=raise_after,
                    resolve_after=resolve_after,
                    muted=lambda f: (
                        f.muted is not None
                        or holding_mute(mutes, host, f, generated_at) is not None
                    ),
                )
                host_record.host_info = report.host.model_dump_json()
                host_record.last_seen = generated_at
            host_record.first_seen = min(host_record.first_seen, generated_at)
            if inventory is not None:
                source = facts_source(inventory.split.digest, inventory.host_json)
                if not facts_wanted(session, host_record, generated_at, source):
                    # the inventory the kept facts were taken from: the same facts
                    host_record.fleet_at = max(host_record.fleet_at or generated_at, generated_at)
                else:
                    facts = inventory.facts()
                    if facts is not None:
                        keep_fleet_facts(
                            session, host_record, facts, generated_at, stored_at, self.fleet_judge
                        )
            return SavedReport(
                id=row.id,
                host=host,
                generated_at=generated_at,
                stored_at=stored_at,
                inventory_id=inventory_id,
                inventory_stored=inventory_stored,
                states_advanced=advanced,
                transitions=transitions,
            )

    def _report_select(self) -> Select[ReportRow, str]:
        return select(ReportRow, HostRow.name).join(HostRow, HostRow.id == ReportRow.host_id)

    def report(self, report_id: int) -> StoredReport | None:
        """The report stored under `report_id`."""
        with self._reading() as session:
            row = session.get(ReportRow, report_id)
            return _stored(row) if row is not None else None

    def latest_report(self, host: str | None = None) -> StoredReport | None:
        """The newest report of `host` (None: of any host), by generated_at."""
        query = select(ReportRow).order_by(ReportRow.generated_at.desc(), ReportRow.id.desc())
        if host is not None:
            query = query.join(HostRow, HostRow.id == ReportRow.host_id).where(HostRow.name == host)
        with self._reading() as session:
            row = session.scalars(query.limit(1)).first()
            return _stored(row) if row is not None else None

    def report_summaries(
        self,
        *,
        host: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> Page[ReportSummary]:
        """Reports generated in [since, until), newest first."""
        check_page(limit, offset)
        where: list[ColumnElement[bool]] = []
        if host is not None:
            where.append(HostRow.name == host)
        if since is not None:
            where.append(ReportRow.generated_at >= utc(since))
        if until is not None:
            where.append(ReportRow.generated_at < utc(until))
        with self._reading() as session:
            total = session.scalar(
                select(func.count())
                .select_from(ReportRow)
                .join(HostRow, HostRow.id == ReportRow.host_id)
                .where(*where)
            )
            rows = session.execute(
                self._report_select()
                .options(defer(ReportRow.body))  # a summary needs the columns only
                .where(*where)
                .order_by(ReportRow.generated_at.desc(), ReportRow.id.desc())
                .limit(limit)
                .offset(offset)
            ).all()
        return Page[ReportSummary](
            items=[_summary(row, name) for row, name in rows],
            total=total or 0,
            limit=limit,
            offset=offset,
        )

    def diff(self, a: int, b: int) -> ReportDiff | None:
        """Findings new in report `b`, resolved since `a`, persisting and worsened; None when
        either report is unknown."""
        with self._reading() as session:
            rows = {
                row.id: (row, name)
                for row, name in session.execute(
                    self._report_select().where(ReportRow.id.in_([a, b]))
                ).all()
            }
        if a not in rows or b not in rows:
            return None
        changes = findings_diff(_stored(rows[a][0]).report, _stored(rows[b][0]).report)
        return ReportDiff(
            a=_summary(*rows[a]),
            b=_summary(*rows[b]),
            new=changes.new,
            resolved=changes.resolved,
            persisting=changes.persisting,
            worsened=changes.worsened,
        )
