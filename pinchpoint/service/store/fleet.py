"""The fleet as a central service compares it: each host's fleet facts (`model/fleet.py`) kept
as rows per group (a NIC model, a device model) when a report is stored, each group's baseline
(`rules/derived/fleet_baselines.py`) and the fleet rules' findings kept as rows, judged again
for the groups a push changes, in the push's transaction. `GET /v1/fleet/findings` reads those
rows only (and a central instance keeps the answer until the store's fleet generation moves).

A push whose host's facts did not change (the usual case: the same hardware every sweep) costs
one digest comparison. One that changes them rewrites the host's fact rows of the groups it
left, joined or changed in, locks those groups (PostgreSQL: advisory transaction locks taken in
one order, so that two central instances judge one group one after the other while pushes of
hosts in other groups go on) and judges each: the host and the group's standing outliers
against the group's baseline moved by the host's change, or every member when the verdict
moves (`judge_groups`). A change of the findings bumps the fleet generation."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any, TypeVar, cast

from pydantic import TypeAdapter
from sqlalchemy import ColumnElement, Engine, Row, delete, insert, or_, select, text, tuple_, update
from sqlalchemy.orm import Session

from pinchpoint.model.findings import Finding
from pinchpoint.model.fleet import (
    FleetFacts,
    FleetModel,
    FleetNic,
    HostFleetFacts,
    ModelBaseline,
    NicBaseline,
)
from pinchpoint.model.inventory import Inventory
from pinchpoint.rules.catalog import FLEET_RULES
from pinchpoint.rules.derived.fleet_baselines import (
    model_baseline,
    model_baseline_moved,
    model_quoted,
    model_verdict,
    nic_baseline,
    nic_baseline_moved,
    nic_quoted,
    nic_verdict,
)
from pinchpoint.rules.derived.fleet_facts import host_fleet_facts
from pinchpoint.rules.engine import evaluate, fleet_context
from pinchpoint.service.store.bodies import pack, unpack
from pinchpoint.service.store.database import Database, lock, lock_each, moment_or_now
from pinchpoint.service.store.inventories import report_inventory
from pinchpoint.service.store.schema import (
    FleetBaselineRow,
    FleetFactRow,
    FleetFindingRow,
    FleetGenerationRow,
    HostRow,
    InventoryRow,
    ReportRow,
)

NIC = "nic"
MODEL = "model"
OPEN = "open"
RESOLVED = "resolved"
IN_CHUNK = 500  # keys in one IN (...) list

FleetJudge = Callable[[FleetFacts], list[Finding]]
Group = tuple[str, str]  # (kind, group_key)
Key = TypeVar("Key", str, int)
Baseline = NicBaseline | ModelBaseline


@dataclass(frozen=True)
class Move:
    """One host's fleet facts changing: its fact rows by group, before and after."""

    host_id: int
    host: str
    before: Mapping[Group, str]
    after: Mapping[Group, str]


_NICS = TypeAdapter(list[FleetNic])
PARSED_KEPT = 16384  # fact rows kept parsed per process


@lru_cache(maxsize=PARSED_KEPT)
def _parsed_nics(body: str) -> tuple[FleetNic, ...]:
    """A `nic` fact row parsed, once per content per process: judging a group reads every
    host's row in it, and a push changes one. A cache of content (the row's JSON is its key,
    and names its host), not of state: nothing in it can be stale."""
    return tuple(_NICS.validate_json(body))


@lru_cache(maxsize=PARSED_KEPT)
def _parsed_model(body: str) -> FleetModel:
    """A `model` fact row parsed, once per content per process (as `_parsed_nics`)."""
    return FleetModel.model_validate_json(body)


def judge_with_defaults(facts: FleetFacts) -> list[Finding]:
    """The fleet rules with the default configuration (a service passes its own)."""
    return evaluate(fleet_context(facts), FLEET_RULES)[0]


def fact_rows(facts: HostFleetFacts) -> dict[Group, str]:
    """The host's facts cut by group: its NICs of each driver and model, its devices of each
    kind and model; each group's JSON."""
    nics: dict[str, list[FleetNic]] = {}
    for nic in facts.nics:
        nics.setdefault(json.dumps([nic.driver, nic.model]), []).append(nic)
    rows = {(NIC, key): _NICS.dump_json(members).decode() for key, members in nics.items()}
    for model in facts.models:
        rows[(MODEL, json.dumps([model.kind, *model.identity]))] = model.model_dump_json()
    return rows


def _digest(rows: dict[Group, str]) -> str:
    hasher = hashlib.sha256()
    for (kind, key), body in sorted(rows.items()):
        hasher.update(f"{kind}\0{key}\0{len(body)}\0".encode())
        hasher.update(body.encode())
    return hasher.hexdigest()


def _owner(finding: Finding, hosts: Mapping[str, int]) -> str | None:
    """The host a fleet finding is about: its id is `<rule>@<host>/…` (the longest host name
    that is a prefix of it, should a name hold a slash)."""
    key = finding.id.partition("@")[2]
    ends = [at for at, char in enumerate(key) if char == "/"]
    return next((key[:at] for at in reversed(ends) if key[:at] in hosts), None)


def _chunks(keys: Sequence[Key]) -> Iterable[Sequence[Key]]:
    for start in range(0, len(keys), IN_CHUNK):
        yield keys[start : start + IN_CHUNK]


def _rule_key(group: Group) -> tuple[str, str] | tuple[str, tuple[str, ...]]:
    """A group as the rules key it: (driver, model) or (kind, identity)."""
    kind, key = group
    parts = json.loads(key)
    return (parts[0], parts[1]) if kind == NIC else (parts[0], tuple(parts[1:]))


def _baseline(kind: str, bodies: Iterable[str]) -> Baseline:
    """The baseline of a group from the fact rows of every member."""
    if kind == NIC:
        return nic_baseline(nic for body in bodies for nic in _parsed_nics(body))
    return model_baseline(_parsed_model(body) for body in bodies)


HOST = "host"  # only the host that moved is judged in the group
STANDING = "standing"  # that host and the group's standing outliers


def _moved(group: Group, kept: str, move: Move) -> tuple[Baseline, str] | None:
    """The group's kept baseline moved by the host's facts in it, and whom to judge against it:
    the host alone (`HOST`) while what the group's findings quote of it stays (`nic_quoted`,
    `model_quoted`: nobody else can start or stop standing out, and no standing finding's text
    changes), the host and the group's standing outliers (`STANDING`) when only the peers they
    name move; None when the verdict moves or the baseline cannot be moved (every member is
    judged)."""
    kind, host = group[0], move.host
    old, new = move.before.get(group), move.after.get(group)
    if kind == NIC:
        nics = NicBaseline.model_validate_json(kept)
        moved_nics = nic_baseline_moved(
            nics,
            host,
            list(_parsed_nics(old)) if old is not None else [],
            list(_parsed_nics(new)) if new is not None else [],
        )
        if moved_nics is None or nic_verdict(moved_nics) != nic_verdict(nics):
            return None
        return moved_nics, HOST if nic_quoted(moved_nics) == nic_quoted(nics) else STANDING
    models = ModelBaseline.model_validate_json(kept)
    moved_models = model_baseline_moved(
        models,
        host,
        _parsed_model(old) if old is not None else None,
        _parsed_model(new) if new is not None else None,
    )
    if moved_models is None or model_verdict(moved_models) != model_verdict(models):
        return None
    return moved_models, HOST if model_quoted(moved_models) == model_quoted(models) else STANDING


def _facts(group: Group, bodies: Mapping[str, str], baseline: Baseline) -> FleetFacts:
    """What the rules judge: the members given (by host name) and the group's baseline."""
    hosts = sorted(bodies)
    if isinstance(baseline, NicBaseline):
        return FleetFacts(
            hosts=hosts,
            nics=[nic for host in hosts for nic in _parsed_nics(bodies[host])],
            nic_baselines={cast(tuple[str, str], _rule_key(group)): baseline},
        )
    return FleetFacts(
        hosts=hosts,
        models=[_parsed_model(bodies[host]) for host in hosts],
        model_baselines={cast(tuple[str, tuple[str, ...]], _rule_key(group)): baseline},
    )


def _members(
    session: Session, groups: Iterable[Group], where: ColumnElement[bool] | None = None
) -> tuple[dict[Group, dict[str, str]], dict[str, int]]:
    """The fact rows of the members of `groups` (all, or those `where` picks) by group and host
    name, and the hosts' ids; one query."""
    members: dict[Group, dict[str, str]] = {group: {} for group in groups}
    if not members:
        return members, {}
    query = (
        select(
            FleetFactRow.kind, FleetFactRow.group_key, FleetFactRow.body, HostRow.name, HostRow.id
        )
        .join(HostRow, HostRow.id == FleetFactRow.host_id)
        .where(_in_groups(FleetFactRow, members))
    )
    owners: dict[str, int] = {}
    for kind, key, body, name, host_id in session.execute(
        query if where is None else query.where(where)
    ):
        members[(kind, key)][name] = body
        owners[name] = host_id
    return members, owners


def _in_groups(
    table: type[FleetFactRow | FleetFindingRow | FleetBaselineRow], groups: Iterable[Group]
) -> ColumnElement[bool]:
    """Rows of `table` of one of `groups` (few: those of one push)."""
    return tuple_(table.kind, table.group_key).in_(sorted(groups))


def judge_groups(
    session: Session,
    groups: set[Group],
    judge: FleetJudge,
    now: datetime,
    move: Move | None = None,
) -> int:
    """Judge each of `groups` again, keep its baseline and bring its stored findings up to date
    (new ones open, gone ones resolved); how many finding rows changed. When `move` (one host's
    facts in these groups, old and new; its rows written already) moves a group's kept
    baseline without moving the verdict, only that host is judged in it against the moved
    baseline (and the hosts with open findings in the group, when the peers the findings name
    moved: `_moved`) — nobody else can start or stop standing out, judging more members finds
    nothing more, and the others' findings quote nothing that moved — else every member."""
    if not groups:
        return 0
    kept: dict[Group, str] = {
        (kind, key): body
        for kind, key, body in session.execute(
            select(FleetBaselineRow.kind, FleetBaselineRow.group_key, FleetBaselineRow.body).where(
                _in_groups(FleetBaselineRow, groups)
            )
        )
    }
    baselines: dict[Group, Baseline] = {}
    alone: set[Group] = set()
    for group in groups:
        body = kept.get(group)
        moved = _moved(group, body, move) if body is not None and move is not None else None
        if moved is not None:
            baselines[group] = moved[0]
            if moved[1] == HOST:
                alone.add(group)
    whole = groups - baselines.keys()
    members, owners = _members(session, whole)
    standing_groups = baselines.keys() - alone
    if standing_groups and move is not None:
        standing = select(FleetFindingRow.host_id).where(
            _in_groups(FleetFindingRow, standing_groups), FleetFindingRow.state == OPEN
        )
        judged, judged_owners = _members(
            session,
            standing_groups,
            or_(FleetFactRow.host_id == move.host_id, FleetFactRow.host_id.in_(standing)),
        )
        members.update(judged)
        owners.update(judged_owners)
    if alone and move is not None:  # the host's own rows: those it wrote, no read
        for group in alone:
            body = move.after.get(group)
            members[group] = {move.host: body} if body is not None else {}
        owners.setdefault(move.host, move.host_id)
    found: dict[str, tuple[Group, Finding]] = {}
    new: list[dict[str, str]] = []
    moved_rows: list[dict[str, str]] = []
    gone: list[Group] = []
    for group in sorted(groups):
        bodies = members[group]
        baseline = baselines.get(group) or _baseline(group[0], bodies.values())
        row = {"kind": group[0], "group_key": group[1], "body": baseline.model_dump_json()}
        if group not in kept:
            if bodies:
                new.append(row)
        elif not bodies and group in whole:
            gone.append(group)  # nobody holds it any more
        else:
            moved_rows.append(row)
        if bodies:
            for finding in judge(_facts(group, bodies, baseline)):
                found[finding.id] = (group, finding)
    if new:
        session.execute(insert(FleetBaselineRow), new)
    if moved_rows:
        session.execute(update(FleetBaselineRow), moved_rows)  # by primary key
    if gone:
        session.execute(delete(FleetBaselineRow).where(_in_groups(FleetBaselineRow, gone)))
    alone_host = (alone, move.host_id) if alone and move is not None else None
    return _keep_findings(session, groups, found, owners, now, alone_host)


_STORED = (
    FleetFindingRow.id,
    FleetFindingRow.finding_id,
    FleetFindingRow.host_id,
    FleetFindingRow.rule,
    FleetFindingRow.kind,
    FleetFindingRow.group_key,
    FleetFindingRow.entity_id,
    FleetFindingRow.entity_name,
    FleetFindingRow.severity,
    FleetFindingRow.severity_rank,
    FleetFindingRow.state,
    FleetFindingRow.body,
)


def _keep_findings(
    session: Session,
    groups: set[Group],
    found: dict[str, tuple[Group, Finding]],
    owners: Mapping[str, int],
    now: datetime,
    alone: tuple[set[Group], int] | None = None,
) -> int:
    """Bring the stored findings of `groups` to `found` (what judging them found): new ones
    open, gone ones resolved, changed ones rewritten, the others seen now; a few statements
    whatever the number of rows. In the groups of `alone` only its host was judged: only that
    host's findings there are brought up to date. How many rows changed."""
    only, host_id = alone if alone is not None else (set(), 0)
    scoped = groups - only
    clauses: list[ColumnElement[bool]] = []  # a resolved row not found again stays as it is
    if scoped:
        clauses.append(_in_groups(FleetFindingRow, scoped) & (FleetFindingRow.state == OPEN))
    if only:
        clauses.append(
            _in_groups(FleetFindingRow, only)
            & (FleetFindingRow.state == OPEN)
            & (FleetFindingRow.host_id == host_id)
        )
    clauses += [FleetFindingRow.finding_id.in_(chunk) for chunk in _chunks(sorted(found))]
    stored = (
        {row.finding_id: row for row in session.execute(select(*_STORED).where(or_(*clauses)))}
        if clauses
        else {}  # nothing judged and nothing found: no row to read
    )
    resolved = [
        row.id
        for finding_id, row in stored.items()
        if finding_id not in found and row.state != RESOLVED
    ]
    added: list[dict[str, Any]] = []
    rewritten: list[dict[str, Any]] = []
    seen: list[int] = []
    for finding_id, ((kind, key), finding) in found.items():
        owner = _owner(finding, owners)
        if owner is None:
            continue
        text = finding.model_dump_json().encode()
        values: dict[str, Any] = {
            "host_id": owners[owner],
            "rule": finding.rule,
            "kind": kind,
            "group_key": key,
            "entity_id": finding.entity.id,
            "entity_name": finding.entity.name,
            "severity": finding.severity.value,
            "severity_rank": finding.severity.rank,
            "state": OPEN,
        }
        existing = stored.get(finding_id)
        if existing is None:
            added.append(
                {
                    "finding_id": finding_id,
                    "first_seen": now,
                    "last_seen": now,
                    "body": pack(text),
                    **values,
                }
            )
        elif any(getattr(existing, name) != value for name, value in values.items()) or (
            unpack(existing.body) != text
        ):
            rewritten.append({"id": existing.id, "last_seen": now, "body": pack(text), **values})
        else:
            seen.append(existing.id)
    if added:
        session.execute(insert(FleetFindingRow), added)
    if rewritten:
        session.execute(update(FleetFindingRow), rewritten)  # by primary key
    for chunk in _chunks(resolved):  # seen gone now: a prune keeps it its days from here
        session.execute(
            update(FleetFindingRow)
            .where(FleetFindingRow.id.in_(chunk))
            .values(state=RESOLVED, last_seen=now)
        )
    for chunk in _chunks(seen):  # still there: seen now
        session.execute(
            update(FleetFindingRow).where(FleetFindingRow.id.in_(chunk)).values(last_seen=now)
        )
    return len(added) + len(rewritten) + len(resolved)


_BUMP = text(
    "INSERT INTO fleet_generation (id, value) VALUES (1, 1) "
    "ON CONFLICT (id) DO UPDATE SET value = fleet_generation.value + 1"
)


def bump_fleet_generation(session: Session) -> None:
    """Move the store's fleet generation, in the transaction that changes the fleet findings:
    every central instance sees the change with its next read of the counter. Taken last in
    the transaction (PostgreSQL holds the row until the commit); the row is made when missing
    (the same statement in PostgreSQL and SQLite)."""
    session.execute(_BUMP)


def keep_fleet_facts(
    session: Session,
    host: HostRow,
    facts: HostFleetFacts,
    generated_at: datetime,
    now: datetime,
    judge: FleetJudge,
) -> bool:
    """Keep `facts` (of a report generated at `generated_at`) as the host's fleet facts unless
    they are of an older report than those kept; judge each group the host left, joined or
    changed its facts in. Whether the fleet's findings were judged again.

    The host's fact rows are written before its groups are locked: no other transaction sees
    them before this one commits, and it judges the groups only once it holds their locks (the
    host's own lock, held by the caller, keeps its rows stable)."""
    if host.fleet_at is not None and generated_at <= host.fleet_at:
        return False
    rows = fact_rows(facts)
    digest = _digest(rows)
    host.fleet_at = generated_at
    if digest == host.fleet_digest:
        return False
    before: dict[Group, str] = {
        (kind, key): body
        for kind, key, body in session.execute(
            select(FleetFactRow.kind, FleetFactRow.group_key, FleetFactRow.body).where(
                FleetFactRow.host_id == host.id
            )
        )
    }
    moves = sorted(g for g in before.keys() | rows.keys() if before.get(g) != rows.get(g))
    left = [group for group in moves if group in before]
    if left:
        session.execute(
            delete(FleetFactRow).where(
                FleetFactRow.host_id == host.id, _in_groups(FleetFactRow, left)
            )
        )
    joined = [
        {"host_id": host.id, "kind": kind, "group_key": key, "body": rows[(kind, key)]}
        for kind, key in moves
        if (kind, key) in rows
    ]
    if joined:
        session.execute(insert(FleetFactRow), joined)
    host.fleet_digest = digest
    session.flush()
    lock_each(session, [f"fleet:{kind}:{key}" for kind, key in moves])  # sorted: no deadlock
    changed = judge_groups(session, set(moves), judge, now, Move(host.id, host.name, before, rows))
    if changed:
        bump_fleet_generation(session)
    return True


def facts_source(inventory_digest: str, host_json: str | None) -> str:
    """What a host's fleet facts are made from: its inventory's content and the host name in
    its host block (the facts name entities after it); two equal sources give equal facts."""
    hostname = json.loads(host_json).get("hostname") if host_json else None
    return f"{inventory_digest}\n{hostname or ''}"


def kept_facts_source(session: Session, host: HostRow) -> str | None:
    """The source of the fleet facts kept for `host`: those of its report at `fleet_at` (None
    when it has none, or that report is gone)."""
    if host.fleet_at is None:
        return None
    row = session.execute(
        select(InventoryRow.digest, ReportRow.inventory_host)
        .join(InventoryRow, InventoryRow.id == ReportRow.inventory_id)
        .where(ReportRow.host_id == host.id, ReportRow.generated_at == host.fleet_at)
    ).first()
    return facts_source(row[0], row[1]) if row is not None else None


def facts_wanted(
    session: Session, host: HostRow | None, generated_at: datetime, source: str
) -> bool:
    """Whether a report of `host` generated at `generated_at` from `source` may change the
    host's fleet facts: it is newer than those kept and made from something else."""
    if host is None or host.fleet_at is None:
        return True
    return generated_at > host.fleet_at and kept_facts_source(session, host) != source


def facts_of(host: str, inventory: Inventory | None) -> HostFleetFacts | None:
    """The fleet facts of a report's inventory, taken before the write transaction begins."""
    return host_fleet_facts(host, inventory) if inventory is not None else None


def _sort_key(row: Row[int, str, str, str, bytes]) -> tuple[int, str, str, list[str]]:
    """The order the engine gives findings (worst first, by rule, by entity name), and within
    those the order the rules judge groups in."""
    rank, rule, entity_name, group_key, _body = row
    return (-rank, rule, entity_name, json.loads(group_key))


class FleetStore(Database):
    """The store's fleet facts and fleet findings."""

    def __init__(self, writer: Engine, reader: Engine) -> None:
        super().__init__(writer, reader)
        # how pushes judge the fleet: the service sets one with its rules' configuration
        self.fleet_judge: FleetJudge = judge_with_defaults

    def _open_fleet_bodies(self) -> list[bytes]:
        """The open fleet findings' JSON, as the engine orders them; the columns read as
        tuples, not rows made objects (this is every `GET /v1/fleet/findings`)."""
        with self._reading() as session:
            rows = list(
                session.execute(
                    select(
                        FleetFindingRow.severity_rank,
                        FleetFindingRow.rule,
                        FleetFindingRow.entity_name,
                        FleetFindingRow.group_key,
                        FleetFindingRow.body,
                    ).where(FleetFindingRow.state == OPEN)
                )
            )
        rows.sort(key=_sort_key)
        return [unpack(row[4]) for row in rows]

    def fleet_generation(self) -> int:
        """The store's fleet generation: it moves with every change of the fleet findings, by
        any central instance (one row read; a kept answer of an older one is stale)."""
        with self._reading() as session:
            return session.scalar(select(FleetGenerationRow.value)) or 0

    def fleet_findings(self) -> list[Finding]:
        """The fleet rules' open findings, as the engine orders them."""
        return [Finding.model_validate_json(body) for body in self._open_fleet_bodies()]

    def fleet_findings_json(self) -> bytes:
        """The same as a JSON array, from the stored bodies without parsing them."""
        return b"[" + b",".join(self._open_fleet_bodies()) + b"]"

    def backfill_fleet_facts(self, *, now: datetime | None = None) -> int:
        """Take the fleet facts of every host that has none yet from its newest inventory (a
        store written before fleet facts were kept); how many hosts were filled in."""
        moment = moment_or_now(now)
        with self._reading() as session:
            waiting = list(session.scalars(select(HostRow.name).where(HostRow.fleet_at.is_(None))))
        filled = 0
        for name in waiting:
            with self._writing() as session:
                lock(session, f"host:{name}")
                host = session.scalars(select(HostRow).where(HostRow.name == name)).one()
                row = session.scalars(
                    select(ReportRow)
                    .where(ReportRow.host_id == host.id, ReportRow.inventory_id.is_not(None))
                    .order_by(ReportRow.generated_at.desc(), ReportRow.id.desc())
                    .limit(1)
                ).first()
                inventory = report_inventory(session, row) if row is not None else None
                facts = facts_of(name, inventory)
                if row is None or facts is None or host.fleet_at is not None:
                    continue
                keep_fleet_facts(session, host, facts, row.generated_at, moment, self.fleet_judge)
                filled += 1
        return filled
