"""`multipath.path.failed`: a dm-multipath map with paths down (failed, faulty, shaky,
offline, or ghost beside ready peers), with fewer paths than the maps of the same array, or on
an ALUA array with no optimized path left."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from pinchpoint.model.findings import Evidence, Fact, Severity
from pinchpoint.model.multipath import MultipathMap, MultipathPath
from pinchpoint.naming import multipath_lun_ref
from pinchpoint.plurals import plural
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext, Threshold


def _down(mpath: MultipathMap) -> list[MultipathPath]:
    """Paths that do not work: failed by device-mapper, faulty or shaky to the checker, an
    offline device — and a ghost (standby) path in a group whose other paths are ready, where
    it should be ready too."""
    down = [p for p in mpath.paths if p.failed]
    for group in mpath.path_groups:
        ready = [p for p in group.paths if p.checker_state == "ready" and not p.failed]
        if ready:
            down += [p for p in group.paths if p.checker_state == "ghost" and not p.failed]
    return down


# The ALUA prioritizer's priorities: 50 for an active/optimized path (the controller that owns
# the LUN), 10 for active/non-optimized, 1 for standby (multipath-tools prioritizers/alua.c).
ALUA_NON_OPTIMIZED_PRIO = 10


def _best_priority(mpath: MultipathMap, down: list[MultipathPath]) -> int | None:
    """The highest priority of a path group with a working path; None where not printed."""
    working = [
        g.priority
        for g in mpath.path_groups
        if g.priority is not None and any(p not in down for p in g.paths)
    ]
    return max(working, default=None)


def _none_optimized(mpath: MultipathMap, down: list[MultipathPath]) -> bool:
    """An ALUA map whose working paths are all non-optimized: no path reaches the controller
    that owns the LUN (trident#998: one path, prio 10, beside two iSCSI sessions)."""
    return (
        mpath.hardware_handler == "alua" and _best_priority(mpath, down) == ALUA_NON_OPTIMIZED_PRIO
    )


def _path_words(path: MultipathPath) -> str:
    """`sdg (13:0:0:2 via host13): active faulty running`."""
    where = f"{path.hctl} via {path.scsi_host}" if path.scsi_host else path.hctl or "#:#:#:#"
    states = " ".join(s for s in (path.dm_state, path.checker_state, path.online_state) if s)
    return f"{path.device or '?'} ({where}): {states}"


def _usual_path_counts(maps: list[MultipathMap]) -> dict[tuple[str, str], int]:
    """The path count most maps of each array (vendor, product) have, where two or more
    other maps agree on it."""
    by_array: dict[tuple[str, str], Counter[int]] = {}
    for mpath in maps:
        if mpath.vendor and mpath.product and mpath.paths:
            by_array.setdefault((mpath.vendor, mpath.product), Counter())[mpath.path_count] += 1
    usual = {}
    for array, counts in by_array.items():
        count, maps_with_it = counts.most_common(1)[0]
        if maps_with_it >= 2:
            usual[array] = count
    return usual


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Maps with paths down, no path at all, or fewer paths than their array's other maps."""
    maps = context.inventory.multipath.maps
    usual = _usual_path_counts(maps)
    for mpath in maps:
        ref = multipath_lun_ref(mpath)
        down = _down(mpath)
        working = mpath.path_count - len(down)
        expected = usual.get((mpath.vendor or "", mpath.product or ""), 0)
        fewer = 0 < mpath.path_count < expected
        unoptimized = working > 0 and _none_optimized(mpath, down)
        if mpath.path_count and not down and not fewer and not unoptimized:
            continue
        facts = [
            Fact(name="paths", value=mpath.path_count),
            Fact(name="paths working", value=working),
        ]
        if expected:
            facts.append(Fact(name="paths of the array's other maps", value=expected))
        if unoptimized:
            facts.append(
                Fact(name="best working path group's priority", value=ALUA_NON_OPTIMIZED_PRIO)
            )
        facts += [Fact(name="path down", value=_path_words(p)) for p in down]
        optimized_words = (
            f"its {working} working path{'s are' if working != 1 else ' is'} "
            f"non-optimized (ALUA priority {ALUA_NON_OPTIMIZED_PRIO}; optimized is 50): no "
            "path reaches the array controller that owns the LUN, so its I/O crosses to the "
            "owner inside the array, and a session or zone to that controller is missing"
        )
        if not mpath.path_count:
            title = f"{ref.name} has no path at all"
            summary = f"{ref.name} lists no path: its I/O fails or waits (queue_if_no_path)"
        elif down:
            title = f"{len(down)} of {mpath.path_count} paths of {ref.name} down"
            summary = f"{ref.name}: " + "; ".join(_path_words(p) for p in down)
            summary += f"; {working} path{'s' if working != 1 else ''} left working"
        elif fewer:
            title = f"{ref.name} has {mpath.path_count} of {expected} paths"
            summary = (
                f"{ref.name} ({mpath.vendor} {mpath.product}) has "
                f"{plural(mpath.path_count, 'path')} where the array's other maps have "
                f"{expected}: a path was never set up or has gone "
                "(zoning, a cable, a port of the array)"
            )
        else:
            noun = "path" if mpath.path_count == 1 else "paths"
            title = f"{ref.name} has {mpath.path_count} {noun}, none optimized"
            summary = f"{ref.name} ({mpath.vendor} {mpath.product}, ALUA): {optimized_words}"
        if fewer and down:
            summary += f"; the array's other maps have {expected} paths"
        if unoptimized and (down or fewer):
            summary += f"; {optimized_words}"
        critical = working <= limits.number("critical_at_working_paths", mpath.id)
        yield Hit(
            entity=ref,
            title=title,
            severity=Severity.CRITICAL if critical else Severity.WARNING,
            evidence=[Evidence(summary=summary, facts=facts)],
        )


RULE = Rule(
    id="multipath.path.failed",
    title="Multipath map with paths down or missing",
    severity=Severity.WARNING,
    needs=(Input.MULTIPATH,),
    remediation=(
        "For each path down: check the adapter port, cable, switch port and the array port it "
        "runs through (`multipath -ll` names the device, `lsscsi -t` the port); fix it, then "
        "`multipathd reconfigure` and check every path shows `active ready running`. For a "
        "map with fewer paths than its array's other maps: check the zoning and the LUN "
        "mapping on the array for the missing route, rescan, and check again. For an ALUA "
        "map with no optimized path: find the array controller (node) that owns the LUN, "
        "log in to it (an iSCSI session to its portal, FC zoning to its ports), check the LUN "
        "is mapped to this host through it, rescan, and check a group shows `prio=50`."
    ),
    judge=judge,
    doc=(
        "dm-multipath keeps a LUN reachable while some of its paths are down, so a failed "
        "path is invisible until the last one goes. The rule reads `multipath -ll` (and sysfs): "
        "a path failed by device-mapper, faulty or shaky to its checker, or on an offline "
        "device is down; a ghost (standby) path is down when the other paths of its group are "
        "ready. A map whose paths are all down, or with no path at all, loses its I/O. A map "
        "with fewer paths than most maps of the same array (vendor and product, where two or "
        "more agree) is missing a route. A map on an ALUA array (hardware handler `alua`) whose "
        "best working path group has the ALUA prioritizer's non-optimized priority (10; "
        "optimized is 50) reaches its LUN only through the controller that does not own it: "
        "a route to the owner is missing (NetApp trident#998: one path at prio 10 beside two "
        "iSCSI sessions). Critical when at most one path still works."
    ),
    thresholds={
        "critical_at_working_paths": Threshold(
            1, "Working paths at or below which a map with a path down is critical.", "paths"
        ),
    },
)
