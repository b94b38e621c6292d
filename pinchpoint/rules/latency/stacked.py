"""What the absolute-limit rules (`latency.threshold`, `latency.disk.overwhelmed`) say about a
stacked device — an md array, an LVM volume or thin pool, a dm-crypt volume: whether one of its
members explains its latency, and where to look when none does.

An I/O to a stacked device is the I/O its members do for it plus what the layer adds (md's
resync and write-intent bitmap, a RAID 5/6 read-modify-write, encryption, a thin pool's
allocation). A member whose mean latency is at least `member_share` of the device's is where
the time goes: the finding points at it (its own finding names its bay or controller). When
every measured member is faster, the time is spent in the layer itself."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pinchpoint.model.block import StackLayer
from pinchpoint.model.findings import EntityRef, Evidence, Fact
from pinchpoint.plurals import plural
from pinchpoint.stats.block_disks import StackedDevice, StackMember
from pinchpoint.stats.latency import DeviceLatency
from pinchpoint.units import latency_ms_text


@dataclass(frozen=True)
class MemberLatency:
    """One member's mean latency over the judged directions; None where not measured."""

    member: StackMember
    latency_ms: float | None


@dataclass(frozen=True)
class Explanation:
    """The members of a slow stacked device and those slow enough to explain it."""

    members: list[MemberLatency]
    slow: list[MemberLatency]  # slowest first

    @property
    def measured(self) -> list[MemberLatency]:
        return [m for m in self.members if m.latency_ms is not None]

    @property
    def in_layer(self) -> bool:
        """Members were measured and none of them explains the device's latency."""
        return bool(self.measured) and not self.slow


def mean_latency(latency: DeviceLatency, directions: Sequence[str]) -> float | None:
    """The I/O-weighted mean latency of `directions`; None when no I/O was measured."""
    count = wait = 0.0
    for direction in directions:
        ios, waited, _ = latency.totals(direction)
        count, wait = count + ios, wait + waited
    return wait / count if count > 0 else None


def explain(
    stack: StackedDevice,
    latency_ms: float,
    latencies: Mapping[str, DeviceLatency],
    directions: Sequence[str],
    share: float,
) -> Explanation:
    """Each member's mean latency in `directions`, and those at or above `share` × the
    device's `latency_ms` (they explain it)."""
    members = []
    for member in stack.members:
        found = latencies.get(member.name)
        members.append(
            MemberLatency(member, None if found is None else mean_latency(found, directions))
        )
    slow = sorted(
        (m for m in members if m.latency_ms is not None and m.latency_ms >= share * latency_ms),
        key=lambda m: -(m.latency_ms or 0.0),
    )
    return Explanation(members, slow)


def explanation_evidence(
    ref: EntityRef, stack: StackedDevice, latency_ms: float, found: Explanation, what: str
) -> Evidence:
    """One sentence saying which member explains the device's latency (`what`: "reads",
    "I/Os"), or that none does and the time is the layer's; a fact per member."""
    facts = [
        Fact(
            name=f"member's mean {what[:-1]} latency",
            value=None if m.latency_ms is None else round(m.latency_ms, 2),
            unit="ms",
            entity=m.member.ref,
        )
        for m in found.members
    ]
    if not stack.members:
        summary = f"{ref.name} lists no members (`slaves/` empty or not read): nothing to compare"
    elif not found.measured:
        names = ", ".join(m.name for m in stack.members)
        summary = (
            f"{ref.name}: its members ({names}) have no diskstats figures, so whether one of "
            "them explains its latency is not known"
        )
    elif found.slow:
        slowest = found.slow[0]
        summary = (
            f"{ref.name}: {what} took {latency_ms_text(latency_ms)}; its member "
            f"{member_words(slowest.member)} took {latency_ms_text(slowest.latency_ms or 0.0)}: "
            "it waits "
            "for that member"
        )
        if len(found.slow) > 1:
            summary += f" (and {plural(len(found.slow) - 1, 'other slow member')})"
    else:
        slowest_ms = max(m.latency_ms or 0.0 for m in found.measured)
        members = (
            f"its member {member_words(found.measured[0].member)} took"
            if len(found.measured) == 1
            else f"its {plural(len(found.measured), 'member')} at most"
        )
        summary = (
            f"{ref.name}: {what} took {latency_ms_text(latency_ms)} but {members} "
            f"{latency_ms_text(slowest_ms)}: "
            f"the time is spent in the {_layer_words(stack)}, not on the disks"
        )
    return Evidence(summary=summary, facts=facts, peers=[m.ref for m in stack.members][:24])


def member_words(member: StackMember) -> str:
    """A member by the name the report gives it, with its kernel name where that name lacks
    it (a SAS disk by enclosure and bay: `JBOD-1 slot 4 (sdq)`)."""
    if re.search(rf"\b{re.escape(member.name)}\b", member.ref.name):
        return member.ref.name
    return f"{member.ref.name} ({member.name})"


def _layer_words(stack: StackedDevice) -> str:
    return {
        StackLayer.MD: "md layer",
        StackLayer.LVM: "LVM mapping",
        StackLayer.LVM_THIN_POOL: "thin pool",
        StackLayer.CRYPT: "encryption (dm-crypt)",
    }.get(stack.layer, "device-mapper layer")


def stacked_remediation(stack: StackedDevice, found: Explanation) -> str | None:
    """Where to look: the slow member, else what the layer does; None: the rule's own text."""
    if found.slow:
        slowest = found.slow[0].member
        return (
            f"The device is as slow as its slowest member, {member_words(slowest)}: see that "
            "member's own findings (a disk's latency, queue, SMART health and link; a stacked "
            "device's members) and fix or replace it; the layer above it adds little."
        )
    if not found.in_layer:
        return None
    device = stack.device
    if stack.layer is StackLayer.MD:
        resync = (
            f" It is running `{device.md_sync_action}` now: that I/O competes with yours."
            if device.md_sync_action and device.md_sync_action != "idle"
            else ""
        )
        return (
            f"The members are fast; md itself adds the time.{resync} Check "
            f"`/sys/block/{device.name}/md/sync_action` and `/proc/mdstat` (a resync, recovery "
            "or check: let it finish, or lower `/proc/sys/dev/raid/speed_limit_max` while the "
            "load runs), the write-intent bitmap (`mdadm --detail`: an internal bitmap with a "
            "small chunk writes before each write; use a larger `--bitmap-chunk`), and on "
            "RAID 5/6 small writes that read-modify-write whole stripes (raise "
            f"`/sys/block/{device.name}/md/stripe_cache_size`, align the file system to the "
            "stripe)."
        )
    if stack.layer is StackLayer.CRYPT:
        return (
            "The members are fast; encryption adds the time. Check that the CPU has AES "
            "instructions (`grep -m1 -o aes /proc/cpuinfo`) and whether the `kcryptd` workers "
            "saturate CPUs (`top`); on SSDs and NVMe open the volume without the work queues "
            "(`cryptsetup refresh --perf-no_read_workqueue --perf-no_write_workqueue`, "
            "cryptsetup ≥ 2.3.4, Linux ≥ 5.9)."
        )
    if stack.layer in (StackLayer.LVM, StackLayer.LVM_THIN_POOL):
        return (
            "The members are fast; the LVM layer adds the time. A linear or striped volume adds "
            "almost nothing, so look for what does: a thin pool allocating on first write or "
            "near full (`lvs -o+data_percent,metadata_percent`; a full metadata device stalls "
            "I/O), a chunk size far from the I/O size, a classic snapshot copying every first "
            "write (`lvs`: origin with snapshots), or a RAID/mirror volume resyncing "
            "(`lvs -a -o+sync_percent`)."
        )
    return (
        "The members are fast; the device-mapper target adds the time: see what it does "
        f"(`dmsetup table {device.dm_name or device.name}`, `dmsetup status`) — a cache or VDO "
        "device writing back or deduplicating, a delay or error target left from a test."
    )
