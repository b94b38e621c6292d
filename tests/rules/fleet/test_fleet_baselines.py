"""A group's baseline moved by one host's facts (`rules/derived/fleet_baselines.py`) is the
baseline taken from every member after the move, or None (the first few named are no longer
known): over random groups and random changes of one host, joins and leaves included."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pinchpoint.model.findings import EntityKind, EntityRef
from pinchpoint.model.fleet import FleetModel, FleetNic, FleetUnit
from pinchpoint.rules.derived.fleet_baselines import (
    model_baseline,
    model_baseline_moved,
    nic_baseline,
    nic_baseline_moved,
)

HOSTS = [f"host-{n:02d}" for n in range(14)]  # more than the 10 (11) named: they get dropped
NicSpec = tuple[int, bool]  # speed, up
nic_specs = st.lists(st.tuples(st.sampled_from([0, 100, 1000, 10000]), st.booleans()), max_size=3)
levels = st.lists(st.sampled_from(["A1", "B2", "C3"]), min_size=1, max_size=3)


def _nics(host: str, specs: list[NicSpec]) -> list[FleetNic]:
    return [
        FleetNic(
            host=host,
            position=position,
            id=f"{host}-{position}",
            driver="ixgbe",
            model="8086:10fb",
            speed_mbps=speed or None,
            operstate="up" if up else "down",
            ref=EntityRef(kind=EntityKind.NIC, id=f"nic:{host}-{position}", name=f"eth{position}"),
        )
        for position, (speed, up) in enumerate(specs)
    ]


def _model(host: str, firmware: list[str]) -> FleetModel:
    return FleetModel(
        host=host,
        host_ref=EntityRef(kind=EntityKind.HOST, id=f"host:{host}", name=host),
        kind="disk",
        identity=("ST4000NM0023",),
        units=[
            FleetUnit(kind="disk", model="ST4000NM0023", firmware=f, name=f"sd{i}")
            for i, f in enumerate(firmware)
        ],
    )


@settings(max_examples=300, deadline=None)
@given(
    group=st.dictionaries(st.sampled_from(HOSTS), nic_specs, max_size=len(HOSTS)),
    host=st.sampled_from(HOSTS),
    after=nic_specs,
)
def test_a_nic_baseline_moved_by_one_host_is_the_baseline_of_the_members_after(
    group: dict[str, list[NicSpec]], host: str, after: list[NicSpec]
) -> None:
    before = {name: _nics(name, specs) for name, specs in group.items()}
    moved_to = {**before, host: _nics(host, after)}
    kept = nic_baseline(nic for nics in before.values() for nic in nics)
    moved = nic_baseline_moved(kept, host, before.get(host, []), moved_to[host])
    whole = nic_baseline(nic for nics in moved_to.values() for nic in nics)
    assert moved is None or moved == whole
    if host not in before or not any(n.host == host for s in kept.speeds.values() for n in s.first):
        assert moved == whole  # only a named host leaving can leave the names unknown


@settings(max_examples=300, deadline=None)
@given(
    group=st.dictionaries(st.sampled_from(HOSTS), levels, max_size=len(HOSTS)),
    host=st.sampled_from(HOSTS),
    after=st.none() | levels,
)
def test_a_model_baseline_moved_by_one_host_is_the_baseline_of_the_holders_after(
    group: dict[str, list[str]], host: str, after: list[str] | None
) -> None:
    before = {name: _model(name, firmware) for name, firmware in group.items()}
    moved_to = dict(before)
    moved_to.pop(host, None)
    if after is not None:
        moved_to[host] = _model(host, after)
    kept = model_baseline(before.values())
    moved = model_baseline_moved(kept, host, before.get(host), moved_to.get(host))
    whole = model_baseline(moved_to.values())
    assert moved is None or moved == whole
    if host not in before or not any(host in at.first for at in kept.levels.values()):
        assert moved == whole
