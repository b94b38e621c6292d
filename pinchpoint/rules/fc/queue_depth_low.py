"""`fc.queue_depth.low`: a SAN LUN whose per-path queue depth is below the minimum while its
measured queue fills the room its paths give (field case 2)."""

from __future__ import annotations

import math
from collections.abc import Iterator

from pinchpoint.model.fc import FcInventory, FcPort
from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.naming import fc_port_ref
from pinchpoint.plurals import agree, plural
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext, Threshold
from pinchpoint.rules.fc.luns import lun_paths, lun_ref


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """LUNs whose per-path queue depth is below the minimum while their queue reaches it."""
    inventory = context.inventory
    queues = _peak_queues(context)
    for lun in lun_paths(inventory.fc):
        ref = lun_ref(lun, inventory)
        minimum = limits.number("min_queue_depth", ref.id)
        depths = [path.queue_depth for _, path in lun.paths if path.queue_depth]
        if not depths or min(depths) >= minimum:
            continue
        room = sum(depths)
        peak = max((queues.get(path.block_device or "", 0.0) for _, path in lun.paths), default=0)
        peak = max(peak, queues.get(ref.id, 0.0))
        if peak < limits.number("reach_share", ref.id) * room:
            continue
        port = lun.paths[0][0]
        knob, value = _driver_knob(inventory.fc, port)
        yield Hit(
            entity=ref,
            title=f"{ref.name}: LUN queue depth {min(depths)} is full (at least {minimum:g})",
            evidence=[
                Evidence(
                    summary=(
                        f"{ref.name}: {plural(len(lun.paths), 'path')} of queue depth "
                        f"{min(depths)} {agree(len(lun.paths), 'holds', 'hold')} "
                        f"{room} I/Os; its queue reached {peak:.0f} (busiest interval), so "
                        f"I/Os waited above the HBA for a free slot"
                    ),
                    facts=[
                        Fact(name="queue depth per path", value=min(depths), unit="I/Os"),
                        Fact(name="paths", value=len(lun.paths)),
                        Fact(name="queue reached", value=round(peak, 1), unit="I/Os"),
                        Fact(name=knob, value=value),
                        Fact(name="minimum", value=minimum, unit="I/Os"),
                    ],
                    peers=[fc_port_ref(p) for p, _ in lun.paths],
                )
            ],
        )


def _peak_queues(context: RuleContext) -> dict[str, float]:
    """The highest aqu-sz of each kernel device over the intervals, and of each multipath map
    by its id: the queue a LUN reached."""
    peaks: dict[str, float] = {}
    maps = {m.dm_device: m.id for m in context.inventory.multipath.maps if m.dm_device}
    for interval in context.intervals:
        if not (math.isfinite(interval.interval_s) and interval.interval_s > 0):
            continue
        for figures in interval.devices:
            if figures.reset or not math.isfinite(figures.aqu_sz):
                continue
            for key in (figures.device, maps.get(figures.device)):
                if key is not None:
                    peaks[key] = max(peaks.get(key, 0.0), figures.aqu_sz)
    return peaks


def _driver_knob(fc: FcInventory, port: FcPort) -> tuple[str, int | None]:
    """The module parameter that sets the port's LUN queue depth and its value."""
    settings = fc.driver_settings
    if port.driver == "qla2xxx":
        return "ql2xmaxqdepth", settings.ql2xmaxqdepth
    if port.driver == "lpfc":
        return "lpfc_lun_queue_depth", port.lun_queue_depth or settings.lpfc_lun_queue_depth
    return "queue_depth", None


RULE = Rule(
    id="fc.queue_depth.low",
    title="FC LUN queue depth below 64 while the queue fills it",
    severity=Severity.WARNING,
    needs=(Input.FC, Input.DISK_STATS),
    remediation=(
        "Raise the LUN queue depth to 64 (Emulex: `options lpfc lpfc_lun_queue_depth=64`, "
        "QLogic: `options qla2xxx ql2xmaxqdepth=64` in /etc/modprobe.d, then rebuild the "
        "initramfs and reboot; or at once per path: `echo 64 > /sys/block/sdX/device/"
        "queue_depth`), within what the array vendor supports per host port."
    ),
    judge=judge,
    doc=(
        "Each path of a LUN lets the HBA driver keep `queue_depth` I/Os at the array; more "
        "wait in the host. Field case 2's published guidance raises the HBA queue depth from "
        "the default 32 to 64, and Microsoft PAL reads a current queue of 32 or more as a "
        "sign of a queue depth capped at 32. The rule fires only when the measured queue of "
        "the LUN (its multipath map's aqu-sz in the busiest interval) reaches the room its "
        "paths give."
    ),
    thresholds={
        "min_queue_depth": Threshold(64, "Smallest LUN queue depth per path.", "I/Os"),
        "reach_share": Threshold(
            0.8, "Share of the paths' queue room the LUN's queue must reach to count as full."
        ),
    },
)
