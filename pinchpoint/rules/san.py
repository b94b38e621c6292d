"""SAN rules: FC ports, LUN paths and queue depths, over-subscribed paths (field case 2)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field

from pinchpoint.model.breakdown import GroupFigures, GroupLevel
from pinchpoint.model.fc import FcInventory, FcLun, FcPort
from pinchpoint.model.findings import EntityKind, EntityRef, Evidence, Fact, Severity
from pinchpoint.model.inventory import Inventory
from pinchpoint.naming import host_suffix
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext, Threshold
from pinchpoint.stats.attach import wwid_key

SCSI_DISK_TYPE = 0  # peripheral type of a LUN that holds data (12 is the array's controller)


def fc_port_ref(port: FcPort) -> EntityRef:
    """An FC port by WWPN, named as a technician finds it: kernel host, WWPN, PCI function."""
    where = f" ({port.pci_address})" if port.pci_address else ""
    wwpn = f" {port.port_name}" if port.port_name else ""
    return EntityRef(kind=EntityKind.FC_PORT, id=port.id, name=f"{port.scsi_host}{wwpn}{where}")


def _model(port: FcPort) -> str | None:
    return port.symbolic_name.model if port.symbolic_name else None


# -- fc.port.not_online ---------------------------------------------------------------------


def ports_not_online(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """FC ports whose state is not Online: no path runs through them."""
    ports = context.inventory.fc.ports
    online = [p for p in ports if p.online]
    for port in ports:
        if port.online:
            continue
        ref = fc_port_ref(port)
        state = port.port_state or "unknown"
        yield Hit(
            entity=ref,
            title=f"FC port {port.scsi_host} is {state}, not Online",
            evidence=[
                Evidence(
                    rule="fc.port.not_online",
                    summary=(
                        f"{ref.name}: port state {state}; {len(online)} of {len(ports)} FC "
                        f"ports of the host are Online"
                    ),
                    facts=[
                        Fact(name="port state", value=state),
                        Fact(name="negotiated speed", value=port.speed_text),
                        Fact(name="ports online", value=len(online)),
                        Fact(name="ports", value=len(ports)),
                    ],
                    peers=[fc_port_ref(p) for p in online],
                )
            ],
        )


PORT_NOT_ONLINE = Rule(
    id="fc.port.not_online",
    title="FC port not Online",
    category="fc",
    severity=Severity.WARNING,
    needs=(Input.FC,),
    remediation=(
        "Check the port's cable and SFP, the switch port (enabled, zoned, not error-disabled) "
        "and the fabric login (`/sys/class/fc_host/hostN/port_state`); an unused port should be "
        "disabled or muted so that a lost path is noticed."
    ),
    check=ports_not_online,
    doc=(
        "An FC port whose `port_state` is Linkdown, Offline, Blocked or Bypassed carries no "
        "path: every LUN seen through it has lost a path, and the host's bandwidth to the "
        "SAN is that of the ports left. Field case 2 shows what too little FC bandwidth does "
        "to latency."
    ),
)


# -- fc.port.downgraded ---------------------------------------------------------------------


def ports_downgraded(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Online FC ports running below their own fastest rate or below identical peers."""
    ports = [p for p in context.inventory.fc.ports if p.online and p.speed_gbps]
    for port in ports:
        speed = port.speed_gbps
        assert speed is not None  # filtered above
        best = port.max_supported_gbps
        peers = [
            p
            for p in ports
            if p is not port
            and p.driver == port.driver
            and _model(p) == _model(port)
            and p.supported_speeds_gbps == port.supported_speeds_gbps
        ]
        faster = [p for p in peers if (p.speed_gbps or 0) > speed]
        below_own = best is not None and speed < best
        if not below_own and not faster:
            continue
        ref = fc_port_ref(port)
        facts = [
            Fact(name="negotiated speed", value=speed, unit="Gbit/s"),
            Fact(name="supported speeds", value=port.supported_speeds_text),
        ]
        if below_own:
            summary = (
                f"{ref.name} negotiated {speed:g} Gbit/s but supports {best:g} Gbit/s: "
                "a damaged cable, a dirty or slower SFP, or a switch port set lower"
            )
        else:
            summary = f"{ref.name} negotiated {speed:g} Gbit/s where identical ports run faster"
        facts += [
            Fact(name="peer speed", value=p.speed_gbps, unit="Gbit/s", entity=fc_port_ref(p))
            for p in faster
        ]
        yield Hit(
            entity=ref,
            title=f"FC port {port.scsi_host} at {speed:g} Gbit/s"
            + (f" of {best:g}" if below_own and best is not None else ""),
            evidence=[
                Evidence(
                    rule="fc.port.downgraded",
                    summary=summary,
                    facts=facts,
                    peers=[fc_port_ref(p) for p in peers],
                )
            ],
        )


PORT_DOWNGRADED = Rule(
    id="fc.port.downgraded",
    title="FC port running below its supported speed or its peers",
    category="fc",
    severity=Severity.WARNING,
    needs=(Input.FC,),
    remediation=(
        "Compare the switch port's configured speed with the HBA's; replace the cable and "
        "clean or replace the SFPs at both ends (an 8G SFP in a 16G port negotiates 8G); then "
        "reset the link (`echo 1 > /sys/class/fc_host/hostN/issue_lip`) and check the speed."
    ),
    check=ports_downgraded,
    doc=(
        "An FC port negotiates the fastest rate both ends and the cable allow. A port below "
        "its own fastest supported rate, or below identical ports of the same host, points "
        "at a cable, an SFP or a switch setting (field case 3 found the same on a NIC). A "
        "port at its own maximum, like the real Emulex SN1100E2P at 16 of 4/8/16 Gbit, is "
        "not downgraded."
    ),
)


# -- fc.lun.single_path ---------------------------------------------------------------------


@dataclass
class LunPaths:
    """One logical unit (by WWID) and every FC path to it."""

    wwid: str
    paths: list[tuple[FcPort, FcLun]] = field(default_factory=list)

    @property
    def adapters(self) -> set[str]:
        return {port.adapter_id or port.id for port, _ in self.paths}

    @property
    def cards(self) -> set[str]:
        return {port.card_id or port.id for port, _ in self.paths}


def lun_paths(fc: FcInventory) -> list[LunPaths]:
    """Data LUNs by WWID with every path to them, in the inventory's order."""
    found: dict[str, LunPaths] = {}
    for port in fc.ports:
        for lun in port.luns:
            if lun.scsi_type not in (None, SCSI_DISK_TYPE):
                continue
            key = wwid_key(lun.wwid) if lun.wwid else lun.id
            found.setdefault(key, LunPaths(wwid=lun.wwid or lun.id)).paths.append((port, lun))
    return list(found.values())


def lun_ref(lun: LunPaths, inventory: Inventory) -> EntityRef:
    """A LUN by its multipath map where it has one (the id the statistics use), else its path."""
    key = wwid_key(lun.wwid)
    for found in inventory.multipath.maps:
        if wwid_key(found.wwid) == key:
            name = f"{found.name or found.wwid} ({lun.wwid})"
            return EntityRef(kind=EntityKind.LUN, id=found.id, name=name)
    _, first = lun.paths[0]
    name = f"LUN {first.lun} {first.block_device or first.hctl} ({lun.wwid})"
    return EntityRef(kind=EntityKind.LUN, id=first.id, name=name)


def luns_single_path(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """LUNs with one path, or with every path through one adapter."""
    for lun in lun_paths(context.inventory.fc):
        adapters = lun.adapters
        if len(lun.paths) > 1 and len(adapters) > 1:
            continue
        ref = lun_ref(lun, context.inventory)
        ports = sorted({port.id for port, _ in lun.paths})
        routes = ", ".join(f"{lun_path.hctl} via {port.scsi_host}" for port, lun_path in lun.paths)
        if len(lun.paths) == 1:
            title = f"{ref.name} has a single FC path"
            summary = f"{ref.name}: 1 path ({routes}); losing that port, cable or switch loses it"
        else:
            title = f"every path of {ref.name} runs through one FC adapter"
            summary = (
                f"{ref.name}: {len(lun.paths)} paths ({routes}), all on adapter "
                f"{next(iter(adapters))}: no adapter redundancy"
            )
        yield Hit(
            entity=ref,
            title=title,
            evidence=[
                Evidence(
                    rule="fc.lun.single_path",
                    summary=summary,
                    facts=[
                        Fact(name="paths", value=len(lun.paths)),
                        Fact(name="FC ports used", value=len(ports)),
                        Fact(name="adapters used", value=len(adapters)),
                        Fact(name="FC ports of the host", value=len(context.inventory.fc.ports)),
                    ],
                    peers=[fc_port_ref(port) for port, _ in lun.paths],
                )
            ],
        )


LUN_SINGLE_PATH = Rule(
    id="fc.lun.single_path",
    title="LUN with one path, or all paths through one adapter",
    category="fc",
    severity=Severity.WARNING,
    needs=(Input.FC,),
    remediation=(
        "Zone and map the LUN to a port of a second FC adapter (each adapter cabled to its own "
        "fabric), rescan (`rescan-scsi-bus.sh` or `echo '- - -' > /sys/class/scsi_host/hostN/"
        "scan`) and check that `multipath -ll` shows the new path active."
    ),
    check=luns_single_path,
    doc=(
        "A SAN LUN should be reachable through two adapters on two fabrics, so that an "
        "adapter, an SFP, a cable or a switch can fail without the LUN going away; two paths "
        "through the same adapter protect against a cable, not an adapter. Paths are counted "
        "by the LU's WWID across every FC port (array controller LUNs are left out)."
    ),
)


# -- fc.queue_depth.low ---------------------------------------------------------------------


def _driver_knob(fc: FcInventory, port: FcPort) -> tuple[str, int | None]:
    """The module parameter that sets the port's LUN queue depth and its value."""
    settings = fc.driver_settings
    if port.driver == "qla2xxx":
        return "ql2xmaxqdepth", settings.ql2xmaxqdepth
    if port.driver == "lpfc":
        return "lpfc_lun_queue_depth", port.lun_queue_depth or settings.lpfc_lun_queue_depth
    return "queue_depth", None


def queue_depth_low(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """LUNs whose per-path queue depth is below the minimum while their queue reaches it."""
    inventory = context.inventory
    queues = peak_queues(context)
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
                    rule="fc.queue_depth.low",
                    summary=(
                        f"{ref.name}: {len(lun.paths)} paths of queue depth {min(depths)} hold "
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


def peak_queues(context: RuleContext) -> dict[str, float]:
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


QUEUE_DEPTH_LOW = Rule(
    id="fc.queue_depth.low",
    title="FC LUN queue depth below 64 while the queue fills it",
    category="fc",
    severity=Severity.WARNING,
    needs=(Input.FC, Input.DISK_STATS),
    remediation=(
        "Raise the LUN queue depth to 64 (Emulex: `options lpfc lpfc_lun_queue_depth=64`, "
        "QLogic: `options qla2xxx ql2xmaxqdepth=64` in /etc/modprobe.d, then rebuild the "
        "initramfs and reboot; or at once per path: `echo 64 > /sys/block/sdX/device/"
        "queue_depth`), within what the array vendor supports per host port."
    ),
    check=queue_depth_low,
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


# -- san.oversubscribed ---------------------------------------------------------------------


def oversubscribed(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """High latency on SAN LUNs that are mostly idle: the FC path, not the array, limits."""
    inventory = context.inventory
    fc = inventory.fc
    luns = [g for g in context.groups(GroupLevel.LUN) if g.measured and g.await_ms is not None]
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
    through = sum(g.mb_s for g in context.groups(GroupLevel.FC_PORT))
    adapters = len({p.adapter_id or p.id for p in online})
    recommended = max(adapters + 1, 2 * adapters)
    worst = max(slow_idle, key=lambda g: g.await_ms or 0.0)
    host = EntityRef(
        kind=EntityKind.HOST,
        id=f"host:{inventory.host.hostname or 'local'}",
        name=inventory.host.hostname or "this host",
    )
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
        Fact(name="mean wait", value=round(g.await_ms or 0.0, 1), unit="ms", entity=_group_ref(g))
        for g in slow_idle
    ]
    lines = ", ".join(
        f"{g.name} {g.await_ms or 0.0:.0f} ms at {g.util_pct or 0.0:.0f}% busy, {g.iops:.0f} IOPS"
        for g in slow_idle
    )
    yield Hit(
        entity=host,
        title=(
            f"SAN path over-subscribed: {len(slow_idle)} LUNs wait up to "
            f"{worst.await_ms or 0.0:.0f} ms while mostly idle"
        ),
        evidence=[
            Evidence(
                rule="san.oversubscribed",
                summary=(
                    f"{lines}: the LUNs are idle most of the time yet their I/Os wait, so the "
                    f"wait is on the way to the array: {len(online)} FC ports on {adapters} "
                    f"adapters give {capacity:.0f} MB/s{host_suffix(inventory)}; use "
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
    )


def _group_ref(group: GroupFigures) -> EntityRef:
    return EntityRef(kind=EntityKind.LUN, id=group.id, name=group.name)


OVERSUBSCRIBED = Rule(
    id="san.oversubscribed",
    title="SAN path over-subscribed: LUNs slow while idle",
    category="san",
    severity=Severity.WARNING,
    needs=(Input.FC, Input.DISK_STATS),
    remediation=(
        "Add FC adapters (each port on its own fabric, zoned to the array) and measure again; "
        "raise the LUN queue depth to 64."
    ),
    check=oversubscribed,
    doc=(
        "Field case 2: a database host saw read and write latency up to whole seconds on three "
        "LUNs while the disks behind them were idle more than half the time; not too few "
        "disks and not busy disks, but too few FC adapters: going from 2 to 4 to 6 adapters "
        "cut latency by more than two orders of magnitude. The rule fires when a SAN LUN's "
        "mean wait is above the limit (Microsoft PAL: 25 ms is critical) while the LUN is busy "
        "less than the limit of the time; the evidence gives the FC ports, their aggregate "
        "bandwidth and the adapter count to go to next (double it)."
    ),
    thresholds={
        "latency_ms": Threshold(25.0, "Mean wait of a LUN above which it is slow.", "ms"),
        "max_busy_pct": Threshold(
            50.0, "Busy time (%util) below which a slow LUN counts as idle.", "%"
        ),
    },
)

RULES: tuple[Rule, ...] = (
    OVERSUBSCRIBED,
    PORT_NOT_ONLINE,
    PORT_DOWNGRADED,
    LUN_SINGLE_PATH,
    QUEUE_DEPTH_LOW,
)
