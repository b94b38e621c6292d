"""`sas.chain.too_deep`: a chain (or a branch behind a switch) holding more enclosures than the
maximum."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.naming import chain_ref
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext, Threshold


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Chains (or branches behind a switch) holding more enclosures than the maximum."""
    inventory = context.inventory
    for chain in inventory.sas.chains:
        maximum = limits.number("max_enclosures", chain.id)
        if chain.depth <= maximum:
            continue
        ref = chain_ref(chain, inventory)
        yield Hit(
            entity=ref,
            title=f"{chain.depth} enclosures in one chain (at most {maximum:g})",
            evidence=[
                Evidence(
                    summary=(
                        f"{ref.name}: {chain.depth} enclosures share one HBA port; every "
                        f"enclosure past the first crosses another expander and shares the "
                        f"port's bandwidth"
                    ),
                    facts=[
                        Fact(name="enclosures in the chain", value=chain.depth),
                        Fact(name="maximum", value=maximum),
                    ],
                )
            ],
        )


RULE = Rule(
    id="sas.chain.too_deep",
    title="More enclosures in a chain than the maximum",
    severity=Severity.WARNING,
    needs=(Input.SAS,),
    remediation=(
        "Move enclosures from the end of the chain to an unused HBA port (or a new HBA) so "
        "that no chain is longer than the maximum; cable each new chain's I/O modules A and B "
        "to two different HBAs."
    ),
    judge=judge,
    doc=(
        "Every enclosure in a daisy chain shares the HBA port's wide link with the enclosures "
        "behind it and adds an expander hop. Vendors support chains of 4 to 10 enclosures, "
        "but bandwidth per disk falls with every enclosure added: field case 1's chain of 4 "
        "queued 260–270 I/Os per disk where a chain of 2 queued 197."
    ),
    thresholds={
        "max_enclosures": Threshold(4, "Most enclosures a chain may hold.", "enclosures"),
    },
)
