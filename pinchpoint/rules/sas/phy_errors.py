"""`sas.phy.errors`: SAS phy error counters rising between two sweeps."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.model.sas import PhyErrorCounters
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext, Threshold
from pinchpoint.rules.derived.counters import (
    interval_words,
    rise_facts,
    rise_words,
    sweep_interval_s,
)
from pinchpoint.rules.sas.phys import phys_with_refs
from pinchpoint.stats.counters import counter_changes

ERROR_COUNTERS = tuple(PhyErrorCounters.model_fields)


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Phys whose error counters rose since the previous sweep (a counter that went back
    was reset by a link reset or reboot and says nothing)."""
    if context.previous is None:
        return
    seconds = context.derived(sweep_interval_s)
    before = {phy.id: phy for phy, _ in phys_with_refs(context.previous)}
    for phy, ref in phys_with_refs(context.inventory):
        old = before.get(phy.id)
        if old is None:
            continue
        changes = counter_changes(old.errors.model_dump(), phy.errors.model_dump(), ERROR_COUNTERS)
        minimum = limits.number("min_increase", phy.id)
        if not changes.rises or changes.total < minimum:
            continue
        yield Hit(
            entity=ref,
            title=f"{ref.name}: {changes.total} new phy errors since the last sweep",
            evidence=[
                Evidence(
                    summary=f"{ref.name}: {rise_words(changes, seconds)} "
                    + interval_words(seconds),
                    facts=[
                        *rise_facts(changes, seconds, "errors"),
                        Fact(name="minimum rise", value=minimum, unit="errors"),
                    ],
                )
            ],
        )


RULE = Rule(
    id="sas.phy.errors",
    title="SAS phy error counters rising between two sweeps",
    severity=Severity.WARNING,
    needs=(Input.SAS, Input.PREVIOUS),
    remediation=(
        "Replace the cable on that phy's link (the errors are usually signal quality); if "
        "they keep rising, move the cable to another port to tell the cable from the port."
    ),
    judge=judge,
    derived=(sweep_interval_s,),
    doc=(
        "Invalid dwords, running disparity errors, loss of dword sync and phy reset problems "
        "(`sas_phy/*/…_count`) count signal-quality trouble on a lane. The totals since boot "
        "say little; a rise between two sweeps says the link is failing now. A counter that "
        "went down was reset and is not judged."
    ),
    thresholds={
        "min_increase": Threshold(
            1, "Fewest new errors on one phy between two sweeps that is reported.", "errors"
        ),
    },
)
