"""`zfs.pool.degraded`: a pool or vdev not ONLINE, each failed disk named by enclosure and slot,
and how many more disks the pool can lose."""

from __future__ import annotations

from collections.abc import Iterator

from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.model.zfs import Pool, VdevRole
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext
from pinchpoint.rules.derived.disk_names import disk_names
from pinchpoint.rules.zfs.devices import (
    HEALTHY,
    POOL_LOST,
    Device,
    counts_text,
    data_vdevs,
    devices,
    pool_redundancy_left,
    pool_ref,
    redundancy_left,
)

_FIX = {
    "FAULTED": "replace it (`zpool replace {pool} <old> <new>`) and let the resilver finish",
    "UNAVAIL": "check its cable and slot and reseat it; if it stays unavailable, replace it",
    "REMOVED": "it was pulled or dropped off the bus: reseat it, or replace it",
    "OFFLINE": "bring it back with `zpool online {pool} <device>`, or replace it",
    "DEGRADED": "watch its error counts; replace it if they keep rising",
}


def _failed(pool: Pool, context: RuleContext) -> list[Device]:
    return [
        d
        for d in devices(pool, context.inventory, context.derived(disk_names))
        if d.leaf.state not in HEALTHY
    ]


def _left_words(left: int | None) -> str:
    if left is None:
        return "it has no data vdev"
    if left < 0:
        return "a data vdev has lost its data: the pool cannot serve it"
    if left == 0:
        return "no redundancy left: one more disk failing in that vdev loses data"
    return f"{left} more disk{'s' if left > 1 else ''} per vdev can fail before data is lost"


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Pools not ONLINE, or with a device that is not."""
    for pool in context.inventory.zfs.pools:
        failed = _failed(pool, context)
        if pool.state in HEALTHY and not failed:
            continue
        left = pool_redundancy_left(pool)
        lost = [v for v in data_vdevs(pool) if redundancy_left(v) < 0]
        critical = pool.state in POOL_LOST or bool(lost) or (left is not None and left <= 0)
        in_data = [d for d in failed if d.top.role is VdevRole.DATA]
        if not in_data and not critical:
            severity = Severity.WARNING  # a log, cache or spare device only
        else:
            severity = Severity.CRITICAL if critical else Severity.WARNING
        lines = [
            f"{d.ref.name} {d.leaf.state} in {d.top.name}"
            + (
                f" ({counts_text(d.leaf)})"
                if d.leaf.read_errors or d.leaf.write_errors or d.leaf.checksum_errors
                else ""
            )
            + (f", {d.leaf.note}" if d.leaf.note else "")
            for d in failed
        ]
        summary = f"pool {pool.name} is {pool.state or 'of unknown state'}"
        if lines:
            summary += ": " + "; ".join(lines)
        summary += f"; {_left_words(left)}"
        facts = [
            Fact(name="pool state", value=pool.state or "unknown"),
            Fact(name="devices not online", value=len(failed)),
        ]
        if left is not None:
            facts.append(Fact(name="more disks each data vdev can lose", value=max(left, 0)))
        facts += [
            Fact(name=f"{d.leaf.state} in {d.top.name}", value=d.leaf.name, entity=d.ref)
            for d in failed
        ]
        fixes = sorted(
            {_FIX[d.leaf.state].format(pool=pool.name) for d in failed if d.leaf.state in _FIX}
        )
        yield Hit(
            entity=pool_ref(pool),
            title=(
                f"pool {pool.name} {pool.state or 'degraded'}: "
                f"{len(failed)} device{'s' if len(failed) != 1 else ''} not online"
                + (", no redundancy left" if left is not None and left <= 0 else "")
            ),
            severity=severity,
            evidence=[Evidence(summary=summary, facts=facts)],
            remediation=("For each device named: " + "; ".join(fixes) + ". " if fixes else "")
            + "Then `zpool status -v` until the pool is ONLINE; a pool with no redundancy left "
            "comes first: one more failure in that vdev loses data.",
        )


RULE = Rule(
    id="zfs.pool.degraded",
    title="ZFS pool or vdev not online",
    severity=Severity.CRITICAL,
    needs=(Input.ZFS,),
    derived=(disk_names,),
    remediation=(
        "Replace FAULTED disks (`zpool replace`), reseat REMOVED or UNAVAIL ones, bring OFFLINE "
        "ones back (`zpool online`), and watch the resilver to the end."
    ),
    judge=judge,
    doc=(
        "A pool is only as safe as its most degraded vdev: a two-way mirror with one side "
        "FAULTED still serves every read, but one more failure in that mirror loses data. The "
        "rule reads `zpool status` and names every device that is not ONLINE by the enclosure "
        "and slot the SAS fabric puts it in (else by its device name), with its state and "
        "error counts, and says how many more disks each data vdev can lose (mirror: its "
        "width less one; raidzN: N; both less the children already gone — a disk being "
        "replaced counts as gone until the resilver ends). Critical when the pool or a data "
        "vdev is unavailable or when a vdev has no redundancy left; a warning otherwise (a "
        "raidz2 with one disk out, a failed log, cache or spare device)."
    ),
)
