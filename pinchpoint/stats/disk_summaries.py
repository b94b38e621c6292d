"""Each disk's iostat figures over the newest statistics interval, as the service exports them
(`pinchpoint_disk_*` metrics): the devices of its paths summed, so that a dual-pathed disk is
one disk, not two half-busy ones."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from pinchpoint.model.findings import EntityRef
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.stats import IntervalFigures
from pinchpoint.naming import disk_ref
from pinchpoint.stats.attach import AttachedKind, attach_names


class LatencySummary(BaseModel):
    """iostat-style figures of one whole device over the newest statistics interval."""

    entity: EntityRef
    read_await_ms: float | None = None
    write_await_ms: float | None = None
    queue: float | None = None  # average I/Os queued (aqu-sz)
    util_percent: float | None = None
    iops: float | None = None


def disk_latency_summaries(
    inventory: Inventory, intervals: Sequence[IntervalFigures]
) -> list[LatencySummary]:
    """Each disk's figures over the newest of `intervals`: its paths' devices summed (rates,
    queue), waits weighted by the I/Os they timed, %util of the busiest path."""
    if not intervals:
        return []
    newest = intervals[-1]
    attached = attach_names(inventory, [d.device for d in newest.devices]).attached
    disks = {d.id: d for d in inventory.sas.disks}
    sums: dict[str, list[float]] = {}  # r/s, w/s, r_await·r/s, w_await·w/s, aqu-sz, util
    for figures in newest.devices:
        found = attached.get(figures.device)
        if found is None or found.kind is not AttachedKind.DISK or found.entity_id not in disks:
            continue
        total = sums.setdefault(found.entity_id, [0.0] * 6)
        total[0] += figures.r_s
        total[1] += figures.w_s
        total[2] += figures.r_await * figures.r_s
        total[3] += figures.w_await * figures.w_s
        total[4] += figures.aqu_sz
        total[5] = max(total[5], figures.util)
    summaries = []
    for disk_id, (reads, writes, read_wait, write_wait, queue, util) in sums.items():
        summaries.append(
            LatencySummary(
                entity=disk_ref(disks[disk_id], inventory),
                read_await_ms=read_wait / reads if reads else None,
                write_await_ms=write_wait / writes if writes else None,
                queue=queue,
                util_percent=util,
                iops=reads + writes,
            )
        )
    return summaries
