"""`sas.enclosure.same_hba`: an enclosure whose two paths or more all end on one HBA."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.model.pcie import pci_card_address
from pinchpoint.naming import enclosure_ref
from pinchpoint.plurals import plural
from pinchpoint.rules.base import Hit, Input, Limits, Role, Rule, RuleContext
from pinchpoint.rules.derived.hba_ports import hba_ports
from pinchpoint.rules.sas.wording import and_join


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Enclosures with two paths or more, all through ports of one HBA card (one PCI function,
    or several functions of one card: one card to fail either way)."""
    inventory = context.inventory
    ports = context.derived(hba_ports)
    hbas = {h.id: h for h in inventory.sas.hbas}

    def card(hba_id: str) -> str:
        hba = hbas.get(hba_id)
        return pci_card_address(hba.pci_address) if hba is not None else hba_id

    for enclosure in inventory.sas.enclosures:
        if len(enclosure.hba_port_ids) < 2:
            continue
        adapters = sorted({ports.hba_id(p) for p in enclosure.hba_port_ids})
        if len({card(a) for a in adapters}) != 1:
            continue
        hba_id = adapters[0]
        hba = hbas.get(hba_id)
        board = hba.label if hba is not None else hba_id
        if len(adapters) > 1:  # functions of one card
            board = f"card {card(hba_id)} ({and_join([hbas[a].label for a in adapters])})"
        routes = [ports.name(p) for p in enclosure.hba_port_ids]
        others = [h for h in inventory.sas.hbas if card(h.id) != card(hba_id)]
        summary = (
            f"all {len(routes)} paths of {enclosure.name} run through one adapter, {board} "
            f"({and_join(routes)}): if that HBA fails, the enclosure is lost"
        )
        if others:
            summary += f"; the host has {plural(len(others), 'other SAS HBA')}"
        yield Hit(
            entity=enclosure_ref(enclosure),
            title=f"Both paths of {enclosure.name} go through one HBA ({board})",
            evidence=[
                Evidence(
                    summary=summary,
                    facts=[
                        Fact(name="paths", value=len(routes), unit="HBA ports"),
                        Fact(name="adapters", value=1, unit="HBAs"),
                        Fact(name="other SAS HBAs on the host", value=len(others), unit="HBAs"),
                        *[Fact(name="reached through", value=r) for r in routes],
                    ],
                )
            ],
        )


RULE = Rule(
    id="sas.enclosure.same_hba",
    title="Both paths of an enclosure through one HBA",
    severity=Severity.WARNING,
    needs=(Input.SAS,),
    derived=(hba_ports,),
    remediation=(
        "Move one I/O module's cable to a port of another HBA (or add a second HBA), so that "
        "an adapter failure leaves every enclosure one path."
    ),
    judge=judge,
    doc=(
        "Two paths protect against a cable or I/O module failure, but not against an adapter "
        "failure when both end on the same HBA. An expert cables the A and B sides of each "
        "chain to different HBAs (ideally on different PCIe root ports)."
    ),
    role=Role.CAUSE,
)
