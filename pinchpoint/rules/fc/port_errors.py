"""`fc.port.errors`: an FC port's link failures, losses of sync or signal, invalid CRCs or error
frames rising between two sweeps."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.fc import FcPort
from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.naming import fc_port_ref
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext, Threshold
from pinchpoint.rules.derived.counters import (
    counter_label,
    interval_words,
    rise_facts,
    rise_words,
    sweep_interval_s,
)
from pinchpoint.stats.counters import counter_changes

# `fc_host/hostN/statistics/` counters that count a link's faults (FC-FS link error status
# block): the link failed, lost bit or word sync, lost light, or carried damaged words and
# frames. Frame and word totals, dumped frames and FCP requests are traffic, not faults.
ERROR_COUNTERS = (
    "link_failure_count",
    "loss_of_sync_count",
    "loss_of_signal_count",
    "invalid_crc_count",
    "invalid_tx_word_count",
    "error_frames",
)


def interval_s(context: RuleContext, before: FcPort, after: FcPort) -> float | None:
    """Seconds between the sweeps: their capture times, else the port's own statistics clock
    (`seconds_since_last_reset`) where it only moved forward."""
    seconds = context.derived(sweep_interval_s)
    if seconds is not None:
        return seconds
    then = before.statistics.seconds_since_last_reset
    now = after.statistics.seconds_since_last_reset
    return float(now - then) if then is not None and now is not None and now > then else None


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """FC ports whose link error counters rose since the previous sweep (counters that went
    down were reset: `reset_statistics`, a driver reload or a reboot, and say nothing)."""
    if context.previous is None:
        return
    before = {port.id: port for port in context.previous.fc.ports}
    for port in context.inventory.fc.ports:
        old = before.get(port.id)
        if old is None:
            continue
        changes = counter_changes(
            old.statistics.model_dump(), port.statistics.model_dump(), ERROR_COUNTERS
        )
        minimum = limits.number("min_increase", port.id)
        if not changes.rises or max(r.delta for r in changes.rises) < minimum:
            continue
        seconds = interval_s(context, old, port)
        ref = fc_port_ref(port)
        lead = ", ".join(f"{counter_label(r.name)} +{r.delta}" for r in changes.rises[:2])
        yield Hit(
            entity=ref,
            title=f"FC port {port.scsi_host}: {lead} since the last sweep",
            evidence=[
                Evidence(
                    summary=f"{ref.name}: {rise_words(changes, seconds)} "
                    + interval_words(seconds),
                    facts=[
                        *rise_facts(changes, seconds, "errors"),
                        Fact(name="port state", value=port.port_state),
                        Fact(name="speed", value=port.speed_gbps, unit="Gb/s"),
                        Fact(
                            name="seconds since the counters were reset",
                            value=port.statistics.seconds_since_last_reset,
                            unit="s",
                        ),
                        Fact(name="minimum rise", value=minimum, unit="errors"),
                    ],
                )
            ],
        )


RULE = Rule(
    id="fc.port.errors",
    title="FC port link errors rising between two sweeps",
    severity=Severity.WARNING,
    needs=(Input.FC, Input.PREVIOUS),
    remediation=(
        "Compare with the switch port's counters (`porterrshow` on Brocade, `show interface "
        "… counters` on Cisco MDS) to find which end sees the errors. Clean the fibre ends "
        "and replace the cable, then the SFP at the end that reports the errors, checking the "
        "counters after each step; read the SFPs' optical power (`sfpshow`) for a weak "
        "transmitter. Link failures and losses of signal with the port going down point at "
        "the cable or a switch port being reset."
    ),
    judge=judge,
    derived=(sweep_interval_s,),
    doc=(
        "An FC port counts its link faults in `/sys/class/fc_host/hostN/statistics/`: link "
        "failures, losses of sync and of signal, invalid CRCs, invalid transmission words and "
        "error frames. Totals since the driver loaded say little (a real 8 Gbit port showed one "
        "link failure in 25 days); a rise between two sweeps says the link is failing now, "
        "which costs aborted and retried I/O on every LUN behind it. A counter that went down "
        "was reset (`reset_statistics`, a driver reload) and is not judged; counters the "
        "driver does not keep (-1) are left out."
    ),
    thresholds={
        "min_increase": Threshold(
            1, "Fewest new errors in one counter between two sweeps that is reported.", "errors"
        ),
    },
)
