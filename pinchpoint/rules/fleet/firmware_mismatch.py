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
from pinchpoint.model.fleet import FleetFacts, FleetModel
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext
from pinchpoint.rules.derived.firmware import behind_facts, mismatch_severity
from pinchpoint.rules.derived.fleet_baselines import (
    MIN_FLEET_HOSTS,
    SHOWN_HOSTS,
    model_baseline,
    usual_level,
)

Model = tuple[str, tuple[str, ...]]  # a unit's kind and model identity


def _by_model(fleet: FleetFacts | None) -> dict[Model, dict[str, FleetModel]]:
    """For each model, its units on each host that holds it, hosts in name order."""
    found: dict[Model, dict[str, FleetModel]] = {}
    for held in sorted(fleet.models if fleet else [], key=lambda m: m.host):
        found.setdefault((held.kind, held.identity), {})[held.host] = held
    return dict(sorted(found.items()))


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Hosts whose devices of one model are not at the level most of the fleet runs (the hosts
    given, against the model's baseline when the context gives one, else against each other).

    A finding says the usual level and names the first hosts at it, never how many hosts hold
    the model: its text stays as it is while hosts join and the verdict holds (as
    `fleet.nic.peer_outlier`)."""
    fleet = context.fleet
    for (kind, identity), held in _by_model(fleet).items():
        given = fleet.model_baselines.get((kind, identity)) if fleet else None
        baseline = given if given is not None else model_baseline(held.values())
        usual = usual_level(baseline)
        if usual is None:
            continue
        at_usual = baseline.levels[usual]
        for host, holding in held.items():
            units = holding.units
            behind = [u for u in units if u.firmware != usual]
            if not behind:
                continue
            peer_count = at_usual.hosts - (1 if len(behind) < len(units) else 0)
            if peer_count < MIN_FLEET_HOSTS - 1:
                continue
            peers = [name for name in at_usual.first if name != host][:SHOWN_HOSTS]
            levels = Counter(u.firmware for u in units)
            on_host = ", ".join(f"{level} on {n}" for level, n in levels.most_common())
            model = units[0].model
            entity = holding.host_ref
            facts = [
                Fact(name="host", value=host),
                Fact(name="firmware levels on this host", value=on_host),
                Fact(name="the fleet's usual level", value=usual),
            ]
            facts += behind_facts(units, usual)
            yield Hit(
                entity=entity,
                key=f"{host}/{kind}/{'/'.join(identity)}",
                title=(
                    f"{len(behind)} of {len(units)} {kind}s {model} on {host} are not at "
                    f"{usual}, the level most of the fleet's hosts holding the model run"
                ),
                severity=mismatch_severity(kind),
                evidence=[
                    Evidence(
                        summary=(
                            f"{kind}s {model}: {on_host} on {host}; {usual} on most other "
                            f"hosts that hold it (among them {', '.join(peers)})"
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
