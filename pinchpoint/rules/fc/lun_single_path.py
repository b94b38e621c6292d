"""`fc.lun.single_path`: a SAN LUN with one path, or with every path through one adapter."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.naming import fc_port_ref
from pinchpoint.plurals import plural
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext
from pinchpoint.rules.fc.luns import lun_paths, lun_ref


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """LUNs with one path, or with every path through one adapter card (the two ports of a
    dual-port card are two PCI functions but one card: one point of failure)."""
    card_of = {a.id: a.card_address for a in context.inventory.fc.adapters}
    for lun in lun_paths(context.inventory.fc):
        adapters = lun.adapters
        cards = {card_of.get(adapter, adapter) for adapter in adapters}
        if len(lun.paths) > 1 and len(cards) > 1:
            continue
        ref = lun_ref(lun, context.inventory)
        ports = sorted({port.id for port, _ in lun.paths})
        routes = ", ".join(f"{lun_path.hctl} via {port.scsi_host}" for port, lun_path in lun.paths)
        if len(lun.paths) == 1:
            title = f"{ref.name} has a single FC path"
            summary = f"{ref.name}: 1 path ({routes}); losing that port, cable or switch loses it"
        elif len(adapters) == 1:
            title = f"every path of {ref.name} runs through one FC adapter"
            summary = (
                f"{ref.name}: {plural(len(lun.paths), 'path')} ({routes}), all on adapter "
                f"{next(iter(adapters))}: no adapter redundancy"
            )
        else:
            card = next(iter(cards))
            title = f"every path of {ref.name} runs through one FC adapter card ({card})"
            summary = (
                f"{ref.name}: {plural(len(lun.paths), 'path')} ({routes}) through "
                f"{plural(len(adapters), 'port')} of "
                f"one card, {card}: the card, its slot or its driver failing loses every path"
            )
        yield Hit(
            entity=ref,
            title=title,
            evidence=[
                Evidence(
                    summary=summary,
                    facts=[
                        Fact(name="paths", value=len(lun.paths)),
                        Fact(name="FC ports used", value=len(ports)),
                        Fact(name="adapters used", value=len(adapters)),
                        Fact(name="adapter cards used", value=len(cards)),
                        Fact(name="FC ports of the host", value=len(context.inventory.fc.ports)),
                    ],
                    peers=[fc_port_ref(port) for port, _ in lun.paths],
                )
            ],
        )


RULE = Rule(
    id="fc.lun.single_path",
    title="LUN with one path, or all paths through one adapter",
    severity=Severity.WARNING,
    needs=(Input.FC,),
    remediation=(
        "Zone and map the LUN to a port of a second FC adapter (each adapter cabled to its own "
        "fabric), rescan (`rescan-scsi-bus.sh` or `echo '- - -' > /sys/class/scsi_host/hostN/"
        "scan`) and check that `multipath -ll` shows the new path active."
    ),
    judge=judge,
    doc=(
        "A SAN LUN should be reachable through two adapters on two fabrics, so that an "
        "adapter, an SFP, a cable or a switch can fail without the LUN going away; two paths "
        "through the same adapter protect against a cable, not an adapter, and two ports of "
        "one dual-port card (two PCI functions of one PCI device) not against the card. Paths "
        "are counted by the LU's WWID across every FC port (array controller LUNs are left "
        "out)."
    ),
)
