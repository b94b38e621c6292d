"""Error counters between two sweeps: the time between the sweeps, and the evidence every rule on
rising counters gives (SAS phys, FC ports, NICs): each counter before → after, its rise, the
interval and the rate. Which counters rose and which were reset is `stats.counters`."""

from __future__ import annotations

from collections.abc import Mapping

from pinchpoint.model.findings import Fact
from pinchpoint.model.network import DRIVER_COUNTER_PREFIX
from pinchpoint.rules.base import RuleContext
from pinchpoint.stats.counters import CounterChanges

SECONDS_PER_HOUR = 3600.0


def sweep_interval_s(context: RuleContext) -> float | None:
    """Seconds between the previous sweep and this one (their capture times); None when either
    time is unknown or they are not in order."""
    previous = context.previous
    if previous is None:
        return None
    then, now = previous.host.captured_at, context.inventory.host.captured_at
    if then is None or now is None:
        return None
    seconds = (now - then).total_seconds()
    return seconds if seconds > 0 else None


DRIVER_PREFIX = DRIVER_COUNTER_PREFIX  # a driver's own counter (`ethtool -S`), beside the kernel's


def counter_label(name: str) -> str:
    """`rx_crc_errors` -> `rx crc errors`; `ethtool:port.rx_crc_errors` -> `port.rx crc errors
    (ethtool -S)`."""
    if name.startswith(DRIVER_PREFIX):
        return f"{counter_label(name.removeprefix(DRIVER_PREFIX))} (ethtool -S)"
    return name.replace("_", " ")


def interval_words(seconds: float | None) -> str:
    """`in 15 min`, `in 2.5 h`, `in 40 s`; `since the previous sweep` when unknown."""
    if seconds is None:
        return "since the previous sweep"
    if seconds < 120:
        return f"in {seconds:.0f} s"
    if seconds < 2 * SECONDS_PER_HOUR:
        return f"in {seconds / 60:.0f} min"
    return f"in {seconds / SECONDS_PER_HOUR:.1f} h"


def per_hour(delta: int, seconds: float | None) -> float | None:
    """The rise as a rate per hour; None when the interval is unknown."""
    return None if seconds is None else round(delta * SECONDS_PER_HOUR / seconds, 2)


def rise_words(changes: CounterChanges, seconds: float | None) -> str:
    """`rx crc errors 0 → 57 (+57, 228/h), carrier changes 2 → 5 (+3, 12/h)`."""
    parts = []
    for rise in changes.rises:
        rate = per_hour(rise.delta, seconds)
        shown = f"+{rise.delta}" + (f", {rate:g}/h" if rate is not None else "")
        parts.append(f"{counter_label(rise.name)} {rise.before} → {rise.after} ({shown})")
    return ", ".join(parts)


def rise_facts(
    changes: CounterChanges,
    seconds: float | None,
    unit: str,
    units: Mapping[str, str] | None = None,
) -> list[Fact]:
    """Per rising counter its rise (named as the counter, in `unit` or the counter's own from
    `units`), its values before → now and its rate per hour; then the interval, and the
    counters that were reset (not judged) if any."""
    facts: list[Fact] = []
    for rise in changes.rises:
        label = counter_label(rise.name)
        own = (units or {}).get(rise.name, unit)
        facts += [
            Fact(name=label, value=rise.delta, unit=own),
            Fact(name=f"{label} before → now", value=f"{rise.before} → {rise.after}"),
        ]
        rate = per_hour(rise.delta, seconds)
        if rate is not None:
            facts.append(Fact(name=f"{label} per hour", value=rate, unit=f"{own}/h"))
    facts.append(Fact(name="interval between sweeps", value=seconds, unit="s"))
    if changes.resets:
        facts.append(
            Fact(
                name="counters reset (went down, not judged)",
                value=", ".join(counter_label(n) for n in changes.resets),
            )
        )
    return facts
