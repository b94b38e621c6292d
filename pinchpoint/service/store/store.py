"""The report store: every host's reports and inventories, its findings across reports, mutes,
and statistics series, in SQLite or PostgreSQL (`docs/store.md`).

`Store` is one object over one database; each kind of thing it holds has a module of its own:

| module | holds |
|---|---|
| `reports.py` | reports: save (one transaction), read, summaries, diff |
| `inventories.py` | inventories, stored once per content, part by part |
| `findings.py` | finding states across reports, and the findings list |
| `mutes.py`, `mute_holds.py` | mutes, and when one holds for a finding |
| `hosts.py` | the hosts of the fleet |
| `fleet.py` | each host's fleet facts, and the fleet rules' findings kept as rows |
| `statistics.py` | statistics series |
| `database.py` | engines, sessions, locks, pages, migrations |

Retention (`prune`) spans them all and lives here.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import delete, exists
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import aliased

from pinchpoint.service.findings_state import RESOLVED
from pinchpoint.service.store.database import (
    StoreError,
    StoreInputError,
    check_schema,
    lock,
    make_engines,
    migrate_schema,
    moment_or_now,
    rowcount,
)
from pinchpoint.service.store.findings import FindingStore
from pinchpoint.service.store.hosts import HostStore
from pinchpoint.service.store.inventories import InventoryStore
from pinchpoint.service.store.mutes import MuteStore
from pinchpoint.service.store.records import PruneResult
from pinchpoint.service.store.reports import ReportStore
from pinchpoint.service.store.schema import (
    FindingStateRow,
    FleetFindingRow,
    InventoryPartLinkRow,
    InventoryPartRow,
    InventoryRow,
    JobRunRow,
    MuteRow,
    ReportRow,
)
from pinchpoint.service.store.statistics import SeriesStore


class Store(ReportStore, InventoryStore, FindingStore, MuteStore, HostStore, SeriesStore):
    """Reports, inventories, finding states, mutes and statistics series of every host."""

    @classmethod
    def open(cls, url: str, *, migrate: bool = True) -> Store:
        """The store at `url` ("sqlite:///PATH" or "postgresql+psycopg://USER@HOST/DB"), its
        schema migrated to the current version (or, with `migrate=False`, checked to be)."""
        writer, reader = make_engines(url)
        try:
            if migrate:
                migrate_schema(writer)
            else:
                check_schema(reader)
        except DBAPIError as err:
            writer.dispose()
            reader.dispose()
            where = writer.url.render_as_string(hide_password=True)
            raise StoreError(f"cannot use the store {where}: {err.orig}") from err
        except BaseException:
            writer.dispose()
            reader.dispose()
            raise
        return cls(writer, reader)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def claim_job(
        self, name: str, instance: str, *, within_s: float = 50.0, now: datetime | None = None
    ) -> bool:
        """Whether this instance runs this firing of the store-wide job `name`: False when
        another one started it less than `within_s` ago (instances fire together, by cron)."""
        moment = moment_or_now(now)
        with self._writing() as session:
            lock(session, f"job:{name}")
            row = session.get(JobRunRow, name)
            if row is not None and row.started_at > moment - timedelta(seconds=within_s):
                return False
            if row is None:
                session.add(JobRunRow(name=name, started_at=moment, instance=instance))
            else:
                row.started_at, row.instance = moment, instance
            return True

    def prune(self, *, keep_reports_days: int, now: datetime | None = None) -> PruneResult:
        """Delete reports generated more than `keep_reports_days` ago (never a host's newest),
        then the inventories and parts no report uses, resolved findings (and fleet findings)
        not seen since, and mutes expired before then."""
        if keep_reports_days < 0:
            raise StoreInputError(f"keep_reports_days must be 0 or more, not {keep_reports_days}")
        cutoff = moment_or_now(now) - timedelta(days=keep_reports_days)
        newer = aliased(ReportRow)
        quietly = {"synchronize_session": False}
        with self._writing() as session:
            lock(session, "maintenance")
            reports = session.execute(
                delete(ReportRow)
                .where(
                    ReportRow.generated_at < cutoff,
                    exists().where(
                        newer.host_id == ReportRow.host_id,
                        newer.generated_at > ReportRow.generated_at,
                    ),
                )
                .execution_options(**quietly)
            )
            inventories = session.execute(
                delete(InventoryRow)
                .where(~exists().where(ReportRow.inventory_id == InventoryRow.id))
                .execution_options(**quietly)
            )
            parts = session.execute(
                delete(InventoryPartRow)
                .where(~exists().where(InventoryPartLinkRow.part_id == InventoryPartRow.id))
                .execution_options(**quietly)
            )
            states = session.execute(
                delete(FindingStateRow)
                .where(FindingStateRow.state == RESOLVED, FindingStateRow.last_seen < cutoff)
                .execution_options(**quietly)
            )
            fleet = session.execute(
                delete(FleetFindingRow)
                .where(FleetFindingRow.state == RESOLVED, FleetFindingRow.last_seen < cutoff)
                .execution_options(**quietly)
            )
            mutes = session.execute(
                delete(MuteRow)
                .where(MuteRow.until.is_not(None), MuteRow.until < cutoff)
                .execution_options(**quietly)
            )
            return PruneResult(
                reports=rowcount(reports),
                inventories=rowcount(inventories),
                inventory_parts=rowcount(parts),
                finding_states=rowcount(states),
                mutes=rowcount(mutes),
                fleet_findings=rowcount(fleet),
            )
