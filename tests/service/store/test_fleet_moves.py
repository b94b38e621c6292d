"""A push judges the groups it moves by the pushing host against each group's kept baseline
(`store/fleet.py`, `rules/derived/fleet_baselines.py`); the findings stay exactly those of
judging every group whole: over random sequences of hosts joining, changing and leaving NIC and
device model groups (SQLite and PostgreSQL), the store's open fleet findings after each push are
those the fleet rules find on every host's current facts."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from datetime import datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from service.store.storetest import T0
from sqlalchemy import select

from pinchpoint.model.findings import EntityKind, EntityRef, Finding
from pinchpoint.model.fleet import FleetFacts, FleetModel, FleetNic, FleetUnit, HostFleetFacts
from pinchpoint.rules.catalog import FLEET_RULES
from pinchpoint.rules.engine import evaluate, fleet_context
from pinchpoint.service.store import Store
from pinchpoint.service.store.fleet import judge_with_defaults, keep_fleet_facts
from pinchpoint.service.store.hosts import host_row
from pinchpoint.service.store.schema import FleetFindingRow

HOSTS = 13  # more than the 10 peers (11 hosts) a baseline names: leaving ones get re-read
NicSpec = tuple[str, int, bool]  # NIC model, speed, up
nic_specs = st.lists(
    st.tuples(st.sampled_from(["a", "b"]), st.sampled_from([100, 1000, 10000]), st.booleans()),
    max_size=2,
)
disk_levels = st.none() | st.lists(st.sampled_from(["A1", "B2", "C3"]), min_size=1, max_size=2)
steps = st.lists(
    st.tuples(st.integers(0, HOSTS - 1), nic_specs, disk_levels), min_size=1, max_size=40
)
_examples = itertools.count()


def _facts(tag: str, host: str, nics: list[NicSpec], disks: list[str] | None) -> HostFleetFacts:
    """A host's fleet facts; `tag` keeps each example's groups apart in one store."""
    return HostFleetFacts(
        host=host,
        nics=[
            FleetNic(
                host=host,
                position=position,
                id=f"{host}-{position}",
                driver="ixgbe",
                model=f"{tag}-{model}",
                speed_mbps=speed,
                operstate="up" if up else "down",
                ref=EntityRef(
                    kind=EntityKind.NIC, id=f"nic:{host}-{position}", name=f"eth{position}"
                ),
            )
            for position, (model, speed, up) in enumerate(nics)
        ],
        models=[
            FleetModel(
                host=host,
                host_ref=EntityRef(kind=EntityKind.HOST, id=f"host:{host}", name=host),
                kind="disk",
                identity=(f"{tag}-ST4000",),
                units=[
                    FleetUnit(kind="disk", model=f"{tag}-ST4000", firmware=level, name=f"sd{i}")
                    for i, level in enumerate(disks)
                ],
            )
        ]
        if disks
        else [],
    )


def _keep(
    store: Store,
    facts: HostFleetFacts,
    at: datetime,
    judge: Callable[[FleetFacts], list[Finding]] = judge_with_defaults,
) -> None:
    with store._writing() as session:
        host = host_row(session, facts.host, at)
        keep_fleet_facts(session, host, facts, at, at, judge)


def _by_id(findings: list[Finding]) -> dict[str, dict[str, object]]:
    return {f.id: f.model_dump(mode="json") for f in findings}


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(plan=steps)
def test_pushes_judged_by_the_baseline_find_what_judging_every_group_finds(
    store: Store, plan: list[tuple[int, list[NicSpec], list[str] | None]]
) -> None:
    tag = f"x{next(_examples):04d}"
    current: dict[str, HostFleetFacts] = {}
    for step, (number, nics, disks) in enumerate(plan):
        host = f"{tag}-host-{number:02d}"
        current[host] = _facts(tag, host, nics, disks)
        _keep(store, current[host], T0 + timedelta(minutes=step))
        whole = evaluate(fleet_context(FleetFacts.joined(list(current.values()))), FLEET_RULES)[0]
        kept = [f for f in store.fleet_findings() if f"@{tag}-" in f.id]
        assert _by_id(kept) == _by_id(whole), f"after step {step}"


def _group_of_thirteen(store: Store, judge: Callable[[FleetFacts], list[Finding]]) -> None:
    """Twelve hosts at 10 Gb/s and one (host-05) at 1 Gb/s in one NIC model group."""
    for number in range(13):
        speed = 1000 if number == 5 else 10000
        facts = _facts("j", f"host-{number:02d}", [("a", speed, True)], None)
        _keep(store, facts, T0 + timedelta(minutes=number), judge)


def _rows(store: Store) -> list[tuple[str, str, datetime, bytes]]:
    with store._reading() as session:
        return [
            tuple(row)
            for row in session.execute(
                select(
                    FleetFindingRow.finding_id,
                    FleetFindingRow.state,
                    FleetFindingRow.last_seen,
                    FleetFindingRow.body,
                ).order_by(FleetFindingRow.finding_id)
            )
        ]


def _recorded_judge() -> tuple[list[list[str]], Callable[[FleetFacts], list[Finding]]]:
    """The default judge, recording the hosts of each set of facts it is given."""
    judged: list[list[str]] = []

    def judge(facts: FleetFacts) -> list[Finding]:
        judged.append(facts.hosts)
        return judge_with_defaults(facts)

    return judged, judge


def test_a_host_joining_a_group_is_judged_alone_against_its_baseline(store: Store) -> None:
    """A fourteenth host at 10 Gb/s joins (after the first peers named): only it is judged, the
    standing outlier's finding row is left as it was (it quotes no count) and the fleet
    generation does not move."""
    judged, judge = _recorded_judge()
    _group_of_thirteen(store, judge)
    judged.clear()
    rows, generation = _rows(store), store.fleet_generation()
    _keep(store, _facts("j", "host-13", [("a", 10000, True)], None), T0 + timedelta(hours=1), judge)
    assert judged == [["host-13"]]
    assert _rows(store) == rows and store.fleet_generation() == generation
    [finding] = store.fleet_findings()
    assert finding.entity.name == "eth0"
    assert finding.title == "eth0 runs at 1 Gb/s; most identical NICs in the fleet run at 10 Gb/s"


def test_a_host_joining_among_the_peers_named_judges_the_standing_outliers(store: Store) -> None:
    """A host that sorts among the first ten peers joins: the standing outlier's finding names
    it now, so it is judged again with the host (and the row rewritten)."""
    judged, judge = _recorded_judge()
    _group_of_thirteen(store, judge)
    judged.clear()
    generation = store.fleet_generation()
    joining = _facts("j", "host-00a", [("a", 10000, True)], None)
    _keep(store, joining, T0 + timedelta(hours=1), judge)
    assert judged == [["host-00a", "host-05"]]
    [finding] = store.fleet_findings()
    assert [peer.id for peer in finding.evidence[0].peers][:2] == [
        "nic:host-00-0",
        "nic:host-00a-0",
    ]
    assert store.fleet_generation() == generation + 1
