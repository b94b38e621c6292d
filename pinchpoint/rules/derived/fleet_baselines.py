"""Baselines of the fleet rules (`model/fleet.py`): per group, what each member is judged
against — the running NICs of one model by speed, the hosts holding one device model by
firmware level — with how many and the first few named. The rules judge a group by its baseline
and its members; a central service keeps each group's baseline as a row and moves it by one
host's facts when that host joins, changes or leaves, so that a push judges only that host
(and the group's standing outliers) instead of every member.

A baseline moved by a host's facts is the baseline of the group's members after the move, as
long as the first few named are known: when the host that leaves was one of them and the group
has more than were kept, moving says None and the caller takes the baseline of every member."""

from __future__ import annotations

from collections.abc import Iterable

from pinchpoint.model.fleet import (
    FleetModel,
    FleetNic,
    LevelHosts,
    ModelBaseline,
    NicBaseline,
    PeerNic,
    SpeedPeers,
)

MIN_FLEET_PEERS = 3  # NICs of one model, across hosts, before one of them can stand out
SHOWN_PEERS = 10  # peers a NIC finding names
MIN_FLEET_HOSTS = 3  # hosts holding one model before one of them can stand out
SHOWN_HOSTS = 10  # hosts a firmware finding names (one more is kept: the host itself may be one)
KEPT_HOSTS = SHOWN_HOSTS + 1


def running(nic: FleetNic) -> bool:
    """Whether the NIC counts among its peers: up, with a carrier and a speed."""
    return bool(nic.speed_mbps) and nic.operstate == "up" and nic.carrier is not False


def _nic_key(nic: FleetNic | PeerNic) -> tuple[str, int]:
    return (nic.host, nic.position)


def _peer(nic: FleetNic) -> PeerNic:
    return PeerNic(host=nic.host, position=nic.position, ref=nic.ref)


def _with_nics(baseline: NicBaseline, nics: list[FleetNic]) -> None:
    """Add the running `nics` of one host to `baseline` (in place)."""
    speeds: dict[int, list[FleetNic]] = {}
    for nic in nics:
        if running(nic):
            speeds.setdefault(nic.speed_mbps or 0, []).append(nic)
    for speed, at in speeds.items():
        kept = baseline.speeds.get(speed) or SpeedPeers(nics=0, hosts=0, first=[])
        first = sorted([*kept.first, *map(_peer, at)], key=_nic_key)[:SHOWN_PEERS]
        baseline.speeds[speed] = SpeedPeers(
            nics=kept.nics + len(at), hosts=kept.hosts + 1, first=first
        )
        baseline.running += len(at)


def nic_baseline(nics: Iterable[FleetNic]) -> NicBaseline:
    """The baseline of one NIC model from every NIC of it in the fleet."""
    baseline = NicBaseline()
    by_host: dict[str, list[FleetNic]] = {}
    for nic in nics:
        by_host.setdefault(nic.host, []).append(nic)
    for host_nics in by_host.values():
        _with_nics(baseline, host_nics)
    return baseline


def nic_baseline_moved(
    baseline: NicBaseline, host: str, old: list[FleetNic], new: list[FleetNic]
) -> NicBaseline | None:
    """`baseline` with `host`'s NICs of the model `old` replaced by `new` (either may be
    empty); None when the first NICs named at a speed are no longer known."""
    moved = baseline.model_copy(deep=True)
    for speed in {nic.speed_mbps or 0 for nic in old if running(nic)}:
        gone = sum(1 for nic in old if running(nic) and (nic.speed_mbps or 0) == speed)
        kept = moved.speeds[speed]
        first = [peer for peer in kept.first if peer.host != host]
        nics = kept.nics - gone
        moved.running -= gone
        if nics == 0:
            del moved.speeds[speed]
            continue
        if len(first) < min(SHOWN_PEERS, nics):
            return None
        moved.speeds[speed] = SpeedPeers(nics=nics, hosts=kept.hosts - 1, first=first)
    if any(peer.host == host for at in moved.speeds.values() for peer in at.first):
        return None  # the host is counted where its old NICs are not: not this group's baseline
    _with_nics(moved, new)
    return moved


def usual_speed(baseline: NicBaseline) -> int | None:
    """The speed most of the model's running NICs run at, when the model has enough running
    NICs and that speed enough of them to judge the others by; else None."""
    if baseline.running < MIN_FLEET_PEERS or not baseline.speeds:
        return None
    usual = max(baseline.speeds, key=lambda s: (baseline.speeds[s].nics, s))
    return usual if baseline.speeds[usual].nics >= MIN_FLEET_PEERS - 1 else None


def _with_model(baseline: ModelBaseline, held: FleetModel) -> None:
    """Add one host's devices of the model to `baseline` (in place)."""
    baseline.holders += 1
    for level in {unit.firmware for unit in held.units}:
        kept = baseline.levels.get(level) or LevelHosts(hosts=0, first=[])
        first = sorted([*kept.first, held.host])[:KEPT_HOSTS]
        baseline.levels[level] = LevelHosts(hosts=kept.hosts + 1, first=first)


def model_baseline(models: Iterable[FleetModel]) -> ModelBaseline:
    """The baseline of one device model from every host's devices of it."""
    baseline = ModelBaseline()
    for held in models:
        _with_model(baseline, held)
    return baseline


def model_baseline_moved(
    baseline: ModelBaseline, host: str, old: FleetModel | None, new: FleetModel | None
) -> ModelBaseline | None:
    """`baseline` with `host`'s devices of the model `old` replaced by `new` (either may be
    None); None when the first hosts named at a level are no longer known."""
    moved = baseline.model_copy(deep=True)
    if old is not None:
        moved.holders -= 1
        for level in {unit.firmware for unit in old.units}:
            kept = moved.levels[level]
            first = [name for name in kept.first if name != host]
            hosts = kept.hosts - 1
            if hosts == 0:
                del moved.levels[level]
                continue
            if len(first) < min(KEPT_HOSTS, hosts):
                return None
            moved.levels[level] = LevelHosts(hosts=hosts, first=first)
    if any(host in at.first for at in moved.levels.values()):
        return None  # the host is counted where its old devices are not: not this baseline
    if new is not None:
        _with_model(moved, new)
    return moved


def usual_level(baseline: ModelBaseline) -> str | None:
    """The level most holders run the model at, when enough hosts hold it and no other level
    is run by as many; else None."""
    if baseline.holders < MIN_FLEET_HOSTS:
        return None
    ranked = sorted((-at.hosts, level) for level, at in baseline.levels.items())
    if len(ranked) < 2 or ranked[0][0] == ranked[1][0]:
        return None
    return ranked[0][1]


def nic_verdict(baseline: NicBaseline) -> int | None:
    """What decides which NICs of the model stand out: the usual speed (None: none do)."""
    return usual_speed(baseline)


def model_verdict(baseline: ModelBaseline) -> tuple[str, int] | None:
    """What decides which holders of the model stand out: the usual level and whether enough
    hosts run it for a host to be judged (counted up to the least that lets every host be)."""
    usual = usual_level(baseline)
    if usual is None:
        return None
    return usual, min(baseline.levels[usual].hosts, MIN_FLEET_HOSTS)


def nic_quoted(baseline: NicBaseline) -> tuple[int | None, list[PeerNic]]:
    """What the findings of a NIC model say of its baseline: the verdict and the first peers
    named at the usual speed. While it stays, no member's finding changes but that of a host
    whose own NICs moved (the findings quote no count)."""
    usual = nic_verdict(baseline)
    return usual, baseline.speeds[usual].first if usual is not None else []


def model_quoted(baseline: ModelBaseline) -> tuple[tuple[str, int] | None, list[str]]:
    """What the findings of a device model say of its baseline: the verdict and the first
    hosts named at the usual level (as `nic_quoted`)."""
    verdict = model_verdict(baseline)
    return verdict, baseline.levels[verdict[0]].first if verdict is not None else []
