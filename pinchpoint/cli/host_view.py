"""The rest of the I/O path for a terminal: PCIe links, NICs and bonds, FC ports, multipath maps,
block queue settings, disk health and ZFS. One table per part, shown only where the host has it.

Facts only: a link below its maximum is shown next to the maximum so the reader sees it; judging
it is the rules' job.
"""

from __future__ import annotations

from collections import Counter

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from pinchpoint.cli.paths_view import iscsi_table, nvme_table
from pinchpoint.cli.pool_view import pool_tree_views
from pinchpoint.model.fc import FcPort
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.network import Nic
from pinchpoint.model.pcie import PcieLink
from pinchpoint.naming import controller_name
from pinchpoint.plurals import plural
from pinchpoint.stats.block_disks import other_disks
from pinchpoint.units import gbps_text, link_speed_text

WARN = "▲"


def _table(title: str, *columns: str) -> Table:
    table = Table(title=title, title_justify="left")
    for column in columns:
        table.add_column(column, overflow="fold")  # a long PCI address folds, never cut to "…"
    return table


def link_words(speed_gts: float | None, width: int | None) -> str:
    """`8 GT/s x8`; a part the collector did not find says so: `8 GT/s, width unknown`."""
    speed = "speed unknown" if speed_gts is None else f"{speed_gts:g} GT/s"
    if width is None:
        return f"{speed}, width unknown"
    return f"{speed} x{width}"


def below_maximum(link: PcieLink) -> bool:
    """The link runs at other than its maximum, in a part known at both ends (an unknown
    maximum is no evidence of a slow link)."""

    def differs(now: float | None, most: float | None) -> bool:
        return now is not None and most is not None and now != most

    return differs(link.current_speed_gts, link.max_speed_gts) or differs(
        link.current_width, link.max_width
    )


def pcie_link_text(link: PcieLink | None) -> Text:
    """`8 GT/s x8`, with the maximum beside it when the link runs below it."""
    if link is None or (link.current_speed_gts is None and link.current_width is None):
        return Text("—")
    text = Text(link_words(link.current_speed_gts, link.current_width))
    if below_maximum(link):
        text.append(f"  {WARN} of {link_words(link.max_speed_gts, link.max_width)}", style="yellow")
    return text


def pcie_table(inventory: Inventory) -> Table | None:
    functions = [f for f in inventory.pcie.functions if not f.virtual_function]
    if not functions:
        return None
    table = _table("PCIe", "function", "kind", "driver", "link", "slot (upstream)", "NUMA", "root")
    for f in functions:
        table.add_row(
            f.pci_address,
            f.kind.value,
            f.driver or "—",
            pcie_link_text(f.link),
            pcie_link_text(f.upstream_link) if f.upstream_port else Text("—"),
            "—" if f.numa_node is None else str(f.numa_node),
            f.root_port or f.root_complex or "—",
        )
    return table


def _count(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"


NIC_ERRORS = (("rx", "rx_errors"), ("tx", "tx_errors"), ("crc", "rx_crc_errors"))
NIC_DROPS = (("rx", "rx_dropped"), ("tx", "tx_dropped"))


def nic_errors_text(nic: Nic) -> str:
    """`rx 0 tx 0 crc 0, dropped rx 12 tx 0, carrier 2`: error and drop totals since boot and
    carrier changes (a rise between sweeps is `net.link.errors`' to judge); `—` where not
    read."""
    counters = nic.counters
    if counters is None:
        return "—"
    stats = counters.statistics
    shown = " ".join(
        f"{label} {_count(stats.get(name))}" for label, name in NIC_ERRORS if name in stats
    )
    drops = " ".join(
        f"{label} {_count(stats.get(name))}" for label, name in NIC_DROPS if name in stats
    )
    if drops:
        shown += f"{', ' if shown else ''}dropped {drops}"
    if counters.carrier_changes is not None:
        shown += f"{', ' if shown else ''}carrier {_count(counters.carrier_changes)}"
    return shown or "—"


def fc_errors_text(port: FcPort) -> str:
    """`link 1 sync 2 signal 0 crc 0 frames 0`: link error totals (link failures, losses of
    sync and signal, invalid CRCs, error frames) since the statistics were reset."""
    stats = port.statistics
    counts = (
        ("link", stats.link_failure_count),
        ("sync", stats.loss_of_sync_count),
        ("signal", stats.loss_of_signal_count),
        ("crc", stats.invalid_crc_count),
        ("frames", stats.error_frames),
    )
    shown = " ".join(f"{label} {_count(value)}" for label, value in counts if value is not None)
    return shown or "—"


def network_table(inventory: Inventory) -> Table | None:
    nics = [n for n in inventory.network.nics if n.kind.value == "physical"]
    if not nics and not inventory.network.bonds:
        return None
    table = _table(
        "NICs",
        "interface",
        "driver",
        "PCI",
        "state",
        "runs at",
        "both ends",
        "supports",
        "bond",
        "errors since boot",
    )
    for nic in nics:
        runs = Text(link_speed_text(nic.speed_mbps))
        best = nic.max_common_speed_mbps or nic.max_supported_speed_mbps
        if nic.speed_mbps is not None and best is not None and nic.speed_mbps < best:
            runs.append(f" {WARN}", style="yellow")
        table.add_row(
            nic.name,
            nic.driver.driver if nic.driver else "—",
            nic.pci_address or "—",
            f"{nic.operstate or '?'}{'' if nic.carrier is not False else ', no carrier'}",
            runs,
            link_speed_text(nic.max_common_speed_mbps),
            link_speed_text(nic.max_supported_speed_mbps),
            nic.bond or "",
            nic_errors_text(nic),
        )
    for bond in inventory.network.bonds:
        present = sum(1 for m in bond.members if m.present)
        up = sum(1 for m in bond.members if m.present and m.mii_status == "up")
        table.add_row(
            bond.name,
            f"bond {bond.mode.value if bond.mode else '?'}",
            "",
            bond.mii_status or bond.operstate or "?",
            link_speed_text(bond.speed_mbps),
            "",
            "",
            f"{up} of {len(bond.members)} members up"
            + ("" if present == len(bond.members) else f", {len(bond.members) - present} gone"),
            "",
        )
    return table


def fc_table(inventory: Inventory) -> Table | None:
    fc = inventory.fc
    if not fc.ports:
        return None
    table = _table(
        f"Fibre Channel: {plural(fc.adapter_count, 'adapter')} ({plural(fc.card_count, 'card')}), "
        f"{fc.ports_online} of {len(fc.ports)} ports online",
        "port",
        "WWPN",
        "state",
        "speed",
        "supports",
        "adapter",
        "LUN paths",
        "link errors",
    )
    for port in fc.ports:
        speed = Text(gbps_text(port.speed_gbps))
        best = port.max_supported_gbps
        if port.speed_gbps is not None and best is not None and port.speed_gbps < best:
            speed.append(f" {WARN}", style="yellow")
        table.add_row(
            port.scsi_host,
            port.port_name or "—",
            port.port_state or "—",
            speed,
            gbps_text(best),
            port.pci_address or "—",
            str(len(port.luns)),
            fc_errors_text(port),
        )
    return table


def multipath_table(inventory: Inventory) -> Table | None:
    maps = inventory.multipath.maps
    if not maps:
        return None
    table = _table("dm-multipath", "map", "WWID", "model", "paths active", "over hosts")
    for m in maps:
        table.add_row(
            m.name or m.dm_device or "—",
            m.wwid,
            " ".join(x for x in (m.vendor, m.product) if x),
            f"{m.paths_active} of {m.path_count}",
            " ".join(m.scsi_hosts),
        )
    return table


def block_table(inventory: Inventory) -> Table | None:
    """Queue settings grouped, so 1,000 identical disks make one row."""
    devices = [d for d in inventory.block.devices if d.kind.value in ("scsi_disk", "nvme")]
    devices = devices or list(inventory.block.devices)
    if not devices:
        return None
    groups = Counter(
        (d.kind.value, d.rotational, d.queue_depth, d.nr_requests, d.scheduler) for d in devices
    )
    table = _table(
        "Block devices: queue settings",
        "devices",
        "kind",
        "rotational",
        "queue_depth",
        "nr_requests",
        "scheduler",
    )
    for (kind, rotational, depth, requests, scheduler), count in sorted(
        groups.items(), key=lambda item: -item[1]
    ):
        table.add_row(
            str(count),
            kind,
            "—" if rotational is None else ("yes" if rotational else "no"),
            "—" if depth is None else str(depth),
            "—" if requests is None else str(requests),
            scheduler or "—",
        )
    return table


def controller_table(inventory: Inventory) -> Table | None:
    """Disks off the SAS fabric by controller and port (AHCI, NVMe, virtio, SCSI hosts): what
    the queue and latency rules group them by."""
    disks = other_disks(inventory)
    if not disks:
        return None
    table = _table(
        "Disks on other controllers",
        "controller",
        "driver",
        "port",
        "disk",
        "rotational",
        "queue_depth",
        "nr_requests",
    )
    for device in disks:
        controller = device.controller
        if controller is None:  # other_disks keeps only disks whose place is known
            continue
        table.add_row(
            controller_name(controller),
            controller.driver or "—",
            controller.port or "—",
            device.name,
            "—" if device.rotational is None else ("yes" if device.rotational else "no"),
            "—" if device.queue_depth is None else str(device.queue_depth),
            "—" if device.nr_requests is None else str(device.nr_requests),
        )
    return table


def health_table(inventory: Inventory) -> RenderableType | None:
    health = inventory.health
    if not health.disks:
        return None
    collected = [d for d in health.disks if d.collected]
    failed = [d for d in collected if d.smart_passed is False]
    title = (
        f"Disk health (smartctl): {len(collected)} of {len(health.disks)} read, "
        f"{len(failed)} failing their own SMART check"
    )
    shown = [d for d in health.disks if not d.collected or d.smart_passed is False or d.exit_flags]
    if not shown:
        return Text(f"{title}; every disk read passed, with no error bits set")
    table = _table(
        title,
        "device",
        "model",
        "serial",
        "SMART",
        "notes",
    )
    for disk in shown[:40]:
        verdict = {True: "passed", False: "FAILED", None: "—"}[disk.smart_passed]
        notes = ", ".join(f.value for f in disk.exit_flags) or (disk.not_collected_reason or "")
        table.add_row(disk.device, disk.model or "—", disk.serial or "—", verdict, notes)
    if len(shown) > 40:
        table.add_row("…", f"{len(shown) - 40} more", "", "", "")
    return table


def zfs_table(inventory: Inventory) -> RenderableType | None:
    """The pools, each pool's vdev tree down to its disks' bays, then the vdev queue
    parameters one a row."""
    zfs = inventory.zfs
    if not zfs.pools and not zfs.vdev_queue_parameters:
        return None
    table = _table(f"ZFS {zfs.module_version or ''}".strip(), "pool", "state", "vdevs")
    for pool in zfs.pools:
        table.add_row(pool.name, pool.state or "—", str(len(pool.vdevs)))
    pools: list[RenderableType] = [table, *pool_tree_views(inventory)] if zfs.pools else []
    if not zfs.vdev_queue_parameters:
        return Group(*pools)
    # one parameter a row: squeezed into the title they were cut mid-name at any width
    params = _table("ZFS vdev queue parameters", "parameter", "value")
    params.columns[0].overflow = "fold"
    for name, value in sorted(zfs.vdev_queue_parameters.items()):
        params.add_row(name, str(value))
    return Group(*pools, params)


def host_tables(inventory: Inventory) -> list[RenderableType]:
    """Every non-empty table of the non-SAS parts, in the order of the I/O path."""
    tables: list[RenderableType | None] = [
        pcie_table(inventory),
        network_table(inventory),
        fc_table(inventory),
        multipath_table(inventory),
        block_table(inventory),
        controller_table(inventory),
        health_table(inventory),
        zfs_table(inventory),
        nvme_table(inventory),
        iscsi_table(inventory),
    ]
    return [t for t in tables if t is not None]
