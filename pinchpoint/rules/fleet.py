"""Fleet rules: what only a comparison of several hosts shows.

Field case 3: ten identical clients, one of them with its NIC at 100 Mb/s. On that host alone the
NIC may have no identical peer to compare with; across the fleet it is one NIC of ten, and the
nine others say what it should run at.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from pinchpoint.model.findings import Evidence, Fact, Finding, Severity
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.network import Nic
from pinchpoint.naming import nic_ref
from pinchpoint.rules.net import nic_model_key

FLEET_NIC_RULE = "fleet.nic.peer_outlier"
MIN_FLEET_PEERS = 3  # NICs of one model, across hosts, before one of them can stand out
SHOWN_PEERS = 10


def _running(nic: Nic) -> bool:
    return bool(nic.speed_mbps) and nic.operstate == "up" and nic.carrier is not False


def fleet_nic_outliers(inventories: Mapping[str, Inventory]) -> list[Finding]:
    """NICs running slower than most identical NICs across the fleet's hosts."""
    groups: dict[tuple[str, str], list[tuple[str, Nic, Inventory]]] = {}
    for host, inventory in sorted(inventories.items()):
        for nic in inventory.network.nics:
            key = nic_model_key(nic, inventory)
            if key is not None and _running(nic):
                groups.setdefault(key, []).append((host, nic, inventory))
    findings = []
    for (driver, model), members in sorted(groups.items()):
        if len(members) < MIN_FLEET_PEERS:
            continue
        counts = Counter(nic.speed_mbps or 0 for _host, nic, _inv in members)
        usual = max(counts, key=lambda s: (counts[s], s))
        peers = [(h, n, i) for h, n, i in members if n.speed_mbps == usual]
        if len(peers) < MIN_FLEET_PEERS - 1:
            continue
        for host, nic, inventory in members:
            speed = nic.speed_mbps or 0
            if speed >= usual:
                continue
            entity = nic_ref(nic, inventory)
            peer_hosts = sorted({h for h, _n, _i in peers})
            findings.append(
                Finding(
                    id=f"{FLEET_NIC_RULE}@{host}/{nic.id}",
                    rule=FLEET_NIC_RULE,
                    category="net",
                    severity=Severity.WARNING,
                    title=(
                        f"{entity.name} runs at {speed} Mb/s; {len(peers)} identical NICs on "
                        f"{len(peer_hosts)} other hosts run at {usual} Mb/s"
                    ),
                    entity=entity,
                    evidence=[
                        Evidence(
                            rule=FLEET_NIC_RULE,
                            summary=(
                                f"{driver} {model}: {len(peers)} of {len(members)} running NICs "
                                f"in the fleet are at {usual} Mb/s, this one at {speed} Mb/s"
                            ),
                            facts=[
                                Fact(name="negotiated speed", value=speed, unit="Mb/s"),
                                Fact(name="peers' speed", value=usual, unit="Mb/s"),
                                Fact(name="identical NICs at that speed", value=len(peers)),
                                Fact(name="host", value=host),
                            ],
                            peers=[nic_ref(n, i) for _h, n, i in peers[:SHOWN_PEERS]],
                        )
                    ],
                    remediation=(
                        "Identical NICs on the other hosts negotiate faster: check this host's "
                        "cable and switch port (speed/duplex forced, a damaged pair makes both "
                        "ends fall back), then `ethtool -r` to renegotiate."
                    ),
                )
            )
    return findings
