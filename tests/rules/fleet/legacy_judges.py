"""The fleet rules' judges as they were before fleet facts (main at cb9c4f3): they read every
host's whole inventory. Kept here, unchanged but for their input and their findings' text (which
no longer quotes how many peers a group has), as the reference the rules over fleet facts must
agree with (`test_fleet_facts_agree.py`)."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterator, Mapping

from pinchpoint.model.findings import Evidence, Fact, Finding
from pinchpoint.model.fleet import FleetFacts
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.network import Nic
from pinchpoint.naming import host_ref, nic_ref
from pinchpoint.rules.base import Hit, Limits, RuleContext
from pinchpoint.rules.catalog import FLEET_RULES
from pinchpoint.rules.derived.firmware import (
    Unit,
    behind_facts,
    firmware_units,
    mismatch_severity,
)
from pinchpoint.rules.derived.nics import nic_model_key
from pinchpoint.rules.engine import evaluate, fleet_context
from pinchpoint.units import link_speed_text


def nic_peer_outlier(hosts: Mapping[str, Inventory]) -> Iterator[Hit]:
    groups: dict[tuple[str, str], list[tuple[str, Nic, Inventory]]] = {}
    for host, inventory in sorted(hosts.items()):
        for nic in inventory.network.nics:
            key = nic_model_key(nic, inventory)
            running = bool(nic.speed_mbps) and nic.operstate == "up" and nic.carrier is not False
            if key is not None and running:
                groups.setdefault(key, []).append((host, nic, inventory))
    for (driver, model), members in sorted(groups.items()):
        if len(members) < 3:
            continue
        counts = Counter(nic.speed_mbps or 0 for _host, nic, _inv in members)
        usual = max(counts, key=lambda s: (counts[s], s))
        peers = [(h, n, i) for h, n, i in members if n.speed_mbps == usual]
        if len(peers) < 2:
            continue
        for host, nic, inventory in members:
            speed = nic.speed_mbps or 0
            if speed >= usual:
                continue
            entity = nic_ref(nic, inventory)
            yield Hit(
                entity=entity,
                key=f"{host}/{nic.id}",
                title=(
                    f"{entity.name} runs at {link_speed_text(speed)}; most identical NICs in "
                    f"the fleet run at {link_speed_text(usual)}"
                ),
                evidence=[
                    Evidence(
                        summary=(
                            f"{driver} {model}: most running NICs of the model in the fleet are "
                            f"at {link_speed_text(usual)}, this one at {link_speed_text(speed)}"
                        ),
                        facts=[
                            Fact(name="negotiated speed", value=speed, unit="Mb/s"),
                            Fact(name="peers' speed", value=usual, unit="Mb/s"),
                            Fact(name="host", value=host),
                        ],
                        peers=[nic_ref(n, i) for _h, n, i in peers[:10]],
                    )
                ],
            )


def firmware_mismatch(hosts: Mapping[str, Inventory]) -> Iterator[Hit]:
    found: dict[tuple[str, tuple[str, ...]], dict[str, list[Unit]]] = {}
    for host, inventory in sorted(hosts.items()):
        for unit in firmware_units(inventory):
            found.setdefault((unit.kind, unit.identity), {}).setdefault(host, []).append(unit)
    for (kind, identity), per_host in sorted(found.items()):
        if len(per_host) < 3:
            continue
        hosts_at: dict[str, list[str]] = {}
        for host, units in per_host.items():
            for level in sorted({u.firmware for u in units}):
                hosts_at.setdefault(level, []).append(host)
        ranked = Counter({level: len(names) for level, names in hosts_at.items()}).most_common()
        if len(ranked) < 2 or ranked[0][1] == ranked[1][1]:
            continue
        usual = ranked[0][0]
        usual_hosts = hosts_at[usual]
        for host, units in per_host.items():
            behind = [u for u in units if u.firmware != usual]
            if not behind:
                continue
            peers = [h for h in usual_hosts if h != host]
            if len(peers) < 2:
                continue
            levels = Counter(u.firmware for u in units)
            on_host = ", ".join(f"{level} on {n}" for level, n in levels.most_common())
            model = units[0].model
            facts = [
                Fact(name="host", value=host),
                Fact(name="firmware levels on this host", value=on_host),
                Fact(name="the fleet's usual level", value=usual),
            ]
            facts += behind_facts(units, usual)
            yield Hit(
                entity=host_ref(hosts[host]),
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
                            f"hosts that hold it (among them {', '.join(peers[:10])})"
                        ),
                        facts=facts,
                    )
                ],
            )


LegacyJudge = Callable[[Mapping[str, Inventory]], Iterator[Hit]]
LEGACY: dict[str, LegacyJudge] = {
    "fleet.nic.peer_outlier": nic_peer_outlier,
    "fleet.firmware.mismatch": firmware_mismatch,
}


def legacy_findings(hosts: Mapping[str, Inventory]) -> list[Finding]:
    """The findings of the judges before fleet facts, through the same engine and catalog."""

    def judge_of(old: LegacyJudge) -> Callable[[RuleContext, Limits], Iterator[Hit]]:
        return lambda _context, _limits: old(hosts)

    rules = [dataclasses.replace(r, judge=judge_of(LEGACY[r.id])) for r in FLEET_RULES]
    context = fleet_context(FleetFacts(hosts=sorted(hosts)))  # the input is present
    findings, skipped, _ = evaluate(context, rules)
    assert skipped == []
    return findings
