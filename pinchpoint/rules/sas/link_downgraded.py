"""`sas.link.downgraded`: a SAS phy negotiated below what both its ends support (judged by
`pinchpoint.stats.sas_phys.phy_downgrade`, as the terminal's inventory view judges it)."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext
from pinchpoint.rules.sas.phys import phys_with_refs
from pinchpoint.stats.sas_phys import phy_downgrade
from pinchpoint.units import gbps_text


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Phys negotiated below what both ends support. A 12 G HBA phy on a 6 G expander runs
    at 6 G by design; where the far end's maximum is unknown nothing is concluded."""
    for phy, ref in phys_with_refs(context.inventory):
        slow = phy_downgrade(phy)
        if slow is None:
            continue
        yield Hit(
            entity=ref,
            title=(
                f"{ref.name} runs at {gbps_text(slow.negotiated_gbps)} of "
                f"{gbps_text(slow.both_gbps)}"
            ),
            evidence=[
                Evidence(
                    summary=(
                        f"{ref.name} negotiated {gbps_text(slow.negotiated_gbps)}; it can do "
                        f"{gbps_text(slow.own_max_gbps)} and its far end "
                        f"({phy.far_end_max_source or 'unknown'}) "
                        f"{gbps_text(slow.far_end_max_gbps)}: the "
                        f"lane lost speed, usually a damaged or loose cable"
                    ),
                    facts=[
                        Fact(name="negotiated", value=slow.negotiated_gbps, unit="Gb/s"),
                        Fact(name="this end's maximum", value=slow.own_max_gbps, unit="Gb/s"),
                        Fact(name="far end's maximum", value=slow.far_end_max_gbps, unit="Gb/s"),
                        Fact(name="far end", value=phy.attached_id),
                    ],
                )
            ],
        )


RULE = Rule(
    id="sas.link.downgraded",
    title="A SAS phy negotiated below what both its ends support",
    severity=Severity.WARNING,
    needs=(Input.SAS,),
    remediation=(
        "Reseat the cable at both ends; if the lane stays slow, replace the cable, then try "
        "another port on the HBA or I/O module to tell a bad cable from a bad port."
    ),
    judge=judge,
    doc=(
        "A lane that negotiates below the speed both its ends can do has lost signal quality "
        "(a damaged cable, a dirty or loose connector). A rate below this end's maximum alone "
        "is not a fault: a 12 Gb/s HBA phy on a 6 Gb/s expander runs at 6 Gb/s by design "
        "(the real capture of a SAS9400 behind an LSI SAS2X36 shows exactly that). The far "
        "end's maximum comes from the expander's phys or its product; where it is unknown the "
        "phy is not judged."
    ),
)
