"""`san.oversubscribed`: SAN LUNs slow while mostly idle — the FC path, not the array, limits
(field case 2)."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.breakdown import GroupLevel
from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.naming import fc_port_ref, group_ref, host_ref, host_suffix
from pinchpoint.plurals import agree, plural
from pinchpoint.rules.base import Hit, Input, Limits, Role, Rule, RuleContext, Threshold
from pinchpoint.rules.derived.breakdown import breakdown, group_figures
from pinchpoint.units import latency_ms_text, mb_s_text


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """High latency on SAN LUNs that are mostly idle: the FC path, not the array, limits."""
    inventory = context.inventory
    fc = inventory.fc
    luns = [
        g for g in group_figures(context, GroupLevel.LUN) if g.measured and g.await_ms is not None
    ]
    slow_idle = [
        g
        for g in luns
        if (g.await_ms or 0.0) > limits.number("latency_ms", g.id)
        and g.util_pct is not None
        and g.util_pct < limits.number("max_busy_pct", g.id)
    ]
    if not slow_idle:
        return
    online = [p for p in fc.ports if p.online and p.speed_gbps]
    capacity = sum(p.speed_gbps or 0.0 for p in online) * 100.0  # MB/s: 100 MB/s per Gbit
    through = sum(g.mb_s for g in group_figures(context, GroupLevel.FC_PORT))
    adapters = len({p.adapter_id or p.id for p in online})
    recommended = max(adapters + 1, 2 * adapters)
    worst = max(slow_idle, key=lambda g: g.await_ms or 0.0)
    facts = [
        Fact(name="LUNs slow while idle", value=len(slow_idle)),
        Fact(name="LUNs measured", value=len(luns)),
        Fact(name="worst mean wait", value=round(worst.await_ms or 0.0, 1), unit="ms"),
        Fact(name="its busy time", value=round(worst.util_pct or 0.0, 1), unit="%"),
        Fact(name="FC ports online", value=len(online)),
        Fact(name="FC adapters", value=adapters),
        Fact(name="aggregate FC bandwidth", value=round(capacity), unit="MB/s"),
        Fact(name="mean FC throughput", value=round(through, 1), unit="MB/s"),
        Fact(name="recommended FC adapters", value=recommended),
    ]
    facts += [
        Fact(name="mean wait", value=round(g.await_ms or 0.0, 1), unit="ms", entity=group_ref(g))
        for g in slow_idle
    ]
    lines = ", ".join(
        f"{g.name} {latency_ms_text(g.await_ms or 0.0)} at {g.util_pct or 0.0:.0f}% busy, "
        f"{g.iops:.0f} IOPS"
        for g in slow_idle
    )
    yield Hit(
        entity=host_ref(inventory),
        title=(
            f"SAN path over-subscribed: {plural(len(slow_idle), 'LUN')} "
            f"{agree(len(slow_idle), 'waits', 'wait')} up to "
            f"{latency_ms_text(worst.await_ms or 0.0)} while mostly idle"
        ),
        evidence=[
            Evidence(
                summary=(
                    f"{lines}: the LUNs are idle most of the time yet their I/Os wait, so the "
                    f"wait is on the way to the array: {len(online)} FC ports on {adapters} "
                    f"adapters give {mb_s_text(capacity)}{host_suffix(inventory)}; use "
                    f"{recommended} adapters and measure again"
                ),
                facts=facts,
                peers=[fc_port_ref(p) for p in online],
            )
        ],
        remediation=(
            f"Add FC adapters, {adapters} → {recommended}, each port to its own fabric and "
            "zoned to the array, so each burst crosses twice the bandwidth; then measure again "
            "(field case 2 went from 2 to 4 to 6 adapters and cut latency by more than 100×). "
            "Raise the LUN queue depth to 64 and check partition alignment on the way."
        ),
        explains=tuple(g.id for g in slow_idle),
    )


RULE = Rule(
    id="san.oversubscribed",
    title="SAN path over-subscribed: LUNs slow while idle",
    severity=Severity.WARNING,
    needs=(Input.FC, Input.DISK_STATS),
    derived=(breakdown,),
    remediation=(
        "Add FC adapters (each port on its own fabric, zoned to the array) and measure again; "
        "raise the LUN queue depth to 64."
    ),
    judge=judge,
    role=Role.CAUSE,
    doc=(
        "Field case 2: a database host saw read and write latency up to whole seconds on three "
        "LUNs while the disks behind them were idle more than half the time; not too few "
        "disks and not busy disks, but too few FC adapters: going from 2 to 4 to 6 adapters "
        "cut latency by more than two orders of magnitude. The rule fires when a SAN LUN's "
        "mean wait is above the limit (Microsoft PAL: 25 ms is critical) while the LUN is busy "
        "less than the limit of the time; the evidence gives the FC ports, their aggregate "
        "bandwidth and the adapter count to go to next (double it). The slow LUNs' own latency "
        "findings fold into this one, which takes their worst severity."
    ),
    thresholds={
        "latency_ms": Threshold(25.0, "Mean wait of a LUN above which it is slow.", "ms"),
        "max_busy_pct": Threshold(
            50.0, "Busy time (%util) below which a slow LUN counts as idle.", "%"
        ),
    },
)
