"""`net.link.errors`: a NIC's CRC, receive or transmit errors, or carrier changes, rising between
two sweeps."""

from __future__ import annotations

import re
from collections.abc import Iterator

from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.model.network import Nic, NicCounters, NicKind
from pinchpoint.naming import nic_ref
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext, Threshold
from pinchpoint.rules.derived.counters import (
    DRIVER_PREFIX,
    counter_label,
    interval_words,
    rise_facts,
    rise_words,
    sweep_interval_s,
)
from pinchpoint.stats.counters import CounterChanges, counter_changes

# The kernel's counters (`/sys/class/net/IF/statistics/`) that count a link's faults: frames
# damaged on the wire, and frames the link could not send. Drops and FIFO overruns are the
# host's load, not the link's health, and are not judged.
ERROR_COUNTERS = (
    "rx_crc_errors",
    "rx_frame_errors",
    "rx_length_errors",
    "rx_errors",
    "tx_carrier_errors",
    "tx_errors",
)
CARRIER_COUNTER = "carrier_changes"
# The driver's own names (`ethtool -S`) for damaged frames: `port.rx_crc_errors` (i40e, ice),
# `rx_crc_errors_phy` (mlx5), `rx_align_errors` (e1000e), `rx_symbol_err`, `rx_fcs_errors`.
_DRIVER_LINK_ERROR = re.compile(r"(crc|fcs|align|symbol).*err", re.IGNORECASE)


def judged_names(before: NicCounters, after: NicCounters) -> list[str]:
    """The counters judged on one NIC: the kernel's error counters, the carrier changes, and
    the driver's CRC/alignment/symbol counters the kernel does not already give by that name."""
    names = [*ERROR_COUNTERS, CARRIER_COUNTER]
    kernel = set(after.statistics) | set(before.statistics)
    names += [
        f"{DRIVER_PREFIX}{name}"
        for name in after.driver
        if _DRIVER_LINK_ERROR.search(name) and name not in kernel
    ]
    return names


def _rising(changes: CounterChanges, nic: Nic, limits: Limits) -> bool:
    """Enough new errors, or carrier changes, to report."""
    errors = max((r.delta for r in changes.rises if r.name != CARRIER_COUNTER), default=0)
    flaps = sum(r.delta for r in changes.rises if r.name == CARRIER_COUNTER)
    return errors >= limits.number("min_errors", nic.id) or flaps >= limits.number(
        "min_carrier_changes", nic.id
    )


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Physical NICs whose error counters or carrier changes rose since the previous sweep (a
    counter that went down was reset: a driver reload or a reboot, and says nothing)."""
    if context.previous is None:
        return
    seconds = context.derived(sweep_interval_s)
    before = {nic.id: nic for nic in context.previous.network.nics}
    for nic in context.inventory.network.nics:
        old = before.get(nic.id)
        if nic.kind is not NicKind.PHYSICAL or old is None:
            continue
        if nic.counters is None or old.counters is None:
            continue
        changes = counter_changes(
            old.counters.values(),
            nic.counters.values(),
            judged_names(old.counters, nic.counters),
        )
        if not changes.rises or not _rising(changes, nic, limits):
            continue
        ref = nic_ref(nic, context.inventory)
        lead = ", ".join(f"{counter_label(r.name)} +{r.delta}" for r in changes.rises[:2])
        yield Hit(
            entity=ref,
            title=f"{ref.name}: {lead} since the last sweep",
            evidence=[
                Evidence(
                    summary=f"{ref.name}: {rise_words(changes, seconds)} "
                    + interval_words(seconds),
                    facts=[
                        *rise_facts(changes, seconds, "errors", {CARRIER_COUNTER: "changes"}),
                        Fact(name="running speed", value=nic.speed_mbps, unit="Mb/s"),
                        Fact(
                            name="minimum rise",
                            value=limits.number("min_errors", nic.id),
                            unit="errors",
                        ),
                    ],
                )
            ],
        )


RULE = Rule(
    id="net.link.errors",
    title="NIC errors or carrier changes rising between two sweeps",
    severity=Severity.WARNING,
    needs=(Input.NETWORK, Input.PREVIOUS, Input.NIC_COUNTERS),
    remediation=(
        "Look at the switch port's own error counters and log for the same link. CRC, frame "
        "and alignment errors are damaged frames: reseat, then replace the cable and the "
        "transceivers (SFP, DAC) at both ends, one at a time, checking the counter after each. "
        "Carrier changes are the link going down and up: look for a loose connector, a port "
        "flapping in the switch log, or energy-efficient Ethernet (`ethtool --set-eee IF eee "
        "off`). If the errors stay after new cabling, move the link to another switch port to "
        "tell the port from the NIC."
    ),
    judge=judge,
    derived=(sweep_interval_s,),
    doc=(
        "The kernel counts damaged and failed frames per interface "
        "(`/sys/class/net/IF/statistics/{rx_crc_errors,rx_frame_errors,rx_length_errors,"
        "rx_errors,tx_carrier_errors,tx_errors}`) and how often the link went down and up "
        "(`carrier_changes`); drivers add their own (`ethtool -S`: `port.rx_crc_errors`, "
        "`rx_align_errors` …). Totals since boot say little; a rise between two sweeps says "
        "the link is damaging frames now, which costs retransmits and latency long before it "
        "fails. Physical NICs only. A counter that went down was reset (driver reload, "
        "reboot) and is not judged; drops and FIFO overruns measure the host's load, not the "
        "link, and are left out."
    ),
    thresholds={
        "min_errors": Threshold(
            1, "Fewest new errors in one counter between two sweeps that is reported.", "errors"
        ),
        "min_carrier_changes": Threshold(
            1, "Fewest new carrier changes between two sweeps that is reported.", "changes"
        ),
    },
)
