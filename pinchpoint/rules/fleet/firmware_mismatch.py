"""`fleet.firmware.mismatch`: a host whose disks, HBAs, expanders or enclosure I/O modules run
another firmware level than the same model runs on most of the fleet's hosts.

On one host, `firmware.mismatch` sees only that host's devices: a host whose twelve disks all
run an old level looks uniform. Across the fleet, the other hosts say which level the model
runs; a host behind them is named with its devices' levels and the hosts it differs from.
It judges the fleet facts (`model/fleet.py`) a central service keeps per host when a report is
pushed, never the inventories themselves; on one host the rule is skipped."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.model.fleet import FleetFacts, FleetModel, FleetUnit
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext
from pinchpoint.rules.derived.firmware import behind_facts, mismatch_severity

MIN_FLEET_HOSTS = 3  # hosts holding one model before one of them can stand out
SHOWN_HOSTS = 10

Model = tuple[str, tuple[str, ...]]  # a unit's kind and model identity


def _by_model(fleet: FleetFacts | None) -> dict[Model, dict[str, FleetModel]]:
    """For each model, its units on each host that holds it, hosts in name order."""
    found: dict[Model, dict[str, FleetModel]] = {}
    for held in sorted(fleet.models if fleet else [], key=lambda m: m.host):
        found.setdefault((held.kind, held.identity), {})[held.host] = held
    return dict(sorted(found.items()))


def _usual_level(per_host: dict[str, list[FleetUnit]]) -> tuple[str, list[str]] | None:
    """The level most hosts run the model at, with those hosts; None when no level is run by
    more hosts than any other (two hosts at two levels say nothing about which is usual)."""
    hosts_at: dict[str, list[str]] = {}
    for host, units in per_host.items():
        for level in sorted({u.firmware for u in units}):
            hosts_at.setdefault(level, []).append(host)
    ranked = Counter({level: len(names) for level, names in hosts_at.items()}).most_common()
    if len(ranked) < 2 or ranked[0][1] == ranked[1][1]:
        return None
    usual = ranked[0][0]
    return usual, hosts_at[usual]


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Hosts whose devices of one model are not at the level most of the fleet runs."""
    for (kind, identity), held in _by_model(context.fleet).items():
        if len(held) < MIN_FLEET_HOSTS:
            continue
        per_host = {host: model.units for host, model in held.items()}
        found = _usual_level(per_host)
        if found is None:
            continue
        usual, usual_hosts = found
        for host, units in per_host.items():
            behind = [u for u in units if u.firmware != usual]
            if not behind:
                continue
            peers = [h for h in usual_hosts if h != host]
            if len(peers) < MIN_FLEET_HOSTS - 1:
                continue
            levels = Counter(u.firmware for u in units)
            on_host = ", ".join(f"{level} on {n}" for level, n in levels.most_common())
            model = units[0].model
            entity = held[host].host_ref
            facts = [
                Fact(name="host", value=host),
                Fact(name="firmware levels on this host", value=on_host),
                Fact(name="the fleet's usual level", value=usual),
                Fact(name="hosts at the usual level", value=len(peers)),
                Fact(name="hosts holding the model", value=len(per_host)),
            ]
            facts += behind_facts(units, usual)
            yield Hit(
                entity=entity,
                key=f"{host}/{kind}/{'/'.join(identity)}",
                title=(
                    f"{len(behind)} of {len(units)} {kind}s {model} on {host} are not at "
                    f"{usual}, the level {len(peers)} other hosts run"
                ),
                severity=mismatch_severity(kind),
                evidence=[
                    Evidence(
                        summary=(
                            f"{kind}s {model}: {on_host} on {host}; {usual} on "
                            f"{len(peers)} of the {len(per_host) - 1} other hosts that hold it "
                            f"({', '.join(peers[:SHOWN_HOSTS])})"
                        ),
                        facts=facts,
                    )
                ],
            )


RULE = Rule(
    id="fleet.firmware.mismatch",
    title="One model running another firmware than on the fleet's other hosts",
    severity=Severity.WARNING,
    needs=(Input.FLEET,),
    remediation=(
        "Bring the named devices to the level the rest of the fleet runs (or, if that level "
        "is the older one, plan the fleet's update to the vendor's current release), one "
        "device at a time in a maintenance window; for I/O modules and expanders use the "
        "enclosure vendor's bundle, for HBAs the release the enclosure vendor supports."
    ),
    judge=judge,
    doc=(
        "`firmware.mismatch` compares devices on one host; a host whose devices of a model all "
        "run one old level looks uniform there. Across the fleet, devices are grouped by the "
        "same full model identity (a disk by SMART's model and its capacity, an HBA by board "
        "and driver, an expander or I/O module by vendor and product); among at least 3 hosts "
        "holding a model, the level most hosts run is the usual one, and a host with devices "
        "at another level is named with those devices. When no level is run by more hosts "
        "than any other, nothing is said. Disks are info, HBAs, expanders and I/O modules a "
        "warning. A central service evaluates it on the devices of the newest inventory of "
        "every host, when a push changes them, and serves the result "
        "(`GET /v1/fleet/findings`); on one host it is skipped."
    ),
)
