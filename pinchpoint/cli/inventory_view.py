"""The inventory drawn for a terminal, as an expert draws the SAS fabric on a whiteboard.

HBA → port (width, each phy's rate) → chain → enclosures in cabling order → slot summary, with
the path count of every enclosure and disk. Status is shown with words and symbols as well as
colour, so it reads the same on a monochrome terminal or in a pasted ticket.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from pinchpoint.cli.host_view import below_maximum, host_tables, link_words
from pinchpoint.model.findings import Severity
from pinchpoint.model.inventory import Inventory, SourceKind
from pinchpoint.model.sas import Disk, Enclosure, EnclosureElement, Hba, HbaPort, Phy, SasFabric
from pinchpoint.naming import disk_slot_name, element_name, hba_port_name, slot_name
from pinchpoint.plurals import plural
from pinchpoint.stats.enclosure_elements import element_troubles, elements_summary
from pinchpoint.stats.sas_phys import phy_downgrade
from pinchpoint.units import gbps_text

OK = "✔"
SHORT = "✖"
WARN = "▲"


def _rate(value: float | None) -> str:
    return "no link" if value is None else gbps_text(value)


def phy_rates(phys: Iterable[Phy]) -> str:
    """`4×12 Gb/s` when all phys agree, else each phy: `8:12 Gb/s 9:6 Gb/s 10:no link`."""
    listed = list(phys)
    if not listed:
        return "no phys"
    rates = {p.negotiated_gbps for p in listed}
    if len(rates) == 1:
        return f"{len(listed)}×{_rate(listed[0].negotiated_gbps)}"
    return " ".join(f"{p.phy_identifier}:{_rate(p.negotiated_gbps)}" for p in listed)


def _phys_span(port: HbaPort) -> str:
    ids = [p.phy_identifier for p in port.phys]
    if not ids:
        return "no phys"
    return f"phy {ids[0]}" if len(ids) == 1 else f"phys {min(ids)}-{max(ids)}"


def _below_capability(port: HbaPort) -> list[Phy]:
    """Phys running slower than both they and their far end can (as `sas.link.downgraded`)."""
    return [phy for phy in port.phys if phy_downgrade(phy) is not None]


def paths_text(present: int, expected: int) -> Text:
    if present >= expected:
        return Text(f"{OK} paths {present}/{expected}", style="green")
    return Text(f"{SHORT} paths {present}/{expected}", style="bold red")


def hba_label(hba: Hba) -> Text:
    label = Text()
    label.append(f"HBA {hba.pci_address or hba.scsi_host}", style="bold")
    label.append(f"  {hba.board_name or 'unknown board'}  {hba.driver or '?'}")
    if hba.firmware:
        label.append(f" fw {hba.firmware}")
    if hba.pcie and hba.pcie.current_speed_gts is not None:
        pcie = hba.pcie
        label.append(f"  PCIe {link_words(pcie.current_speed_gts, pcie.current_width)}")
        if below_maximum(pcie):
            label.append(
                f" (capable of {link_words(pcie.max_speed_gts, pcie.max_width)})", style="yellow"
            )
    if hba.numa_node is not None:
        label.append(f"  NUMA {hba.numa_node}")
    label.append(f"  [{hba.scsi_host}]", style="dim")
    if not hba.sas_transport:
        label.append("  no SAS transport class: ports not visible", style="yellow")
    return label


def port_label(port: HbaPort) -> Text:
    label = Text(f"connector {port.connector}  ", style="bold")
    label.append(f"x{port.width}  {_phys_span(port)}: {phy_rates(port.phys)}")
    slow = _below_capability(port)
    if slow:
        names = ", ".join(str(p.phy_identifier) for p in slow)
        label.append(f"  {WARN} phy {names} below what both ends support", style="yellow")
    far = {p.far_end_max_source for p in port.phys if p.far_end_max_source}
    if far and any(
        p.negotiated_gbps is not None
        and p.maximum_hw_gbps is not None
        and p.negotiated_gbps < p.maximum_hw_gbps
        for p in port.phys
    ):
        label.append(f"  (far end: {sorted(far)[0]})", style="dim")
    label.append(f"  [{port.name}]", style="dim")
    return label


def disk_path_summary(disks: list[Disk]) -> str:
    """`24 disks, 2 paths each` or `24 disks: 23 × 2 paths, 1 × 1 path (slot 5)`."""
    if not disks:
        return "no disks"
    counts = Counter(d.hba_ports for d in disks)
    if len(counts) == 1:
        (paths,) = counts
        return f"{plural(len(disks), 'disk')}, {plural(paths, 'path')} each"
    common = counts.most_common(1)[0][0]
    parts = []
    for paths, count in sorted(counts.items(), reverse=True):
        text = f"{count} × {plural(paths, 'path')}"
        if paths != common:
            slots = sorted(d.slot for d in disks if d.hba_ports == paths and d.slot is not None)
            if slots:
                text += f" (slot{'s' if len(slots) > 1 else ''} {', '.join(map(str, slots[:12]))}"
                text += "…)" if len(slots) > 12 else ")"
        parts.append(text)
    return f"{plural(len(disks), 'disk')}: " + ", ".join(parts)


def enclosure_label(enc: Enclosure, disks: list[Disk], position: int | None = None) -> Text:
    label = Text()
    if position is not None:
        label.append(f"{position}. ")
    label.append(enc.name, style="bold")
    model = " ".join(x for x in (enc.vendor, enc.product) if x)
    if model:
        label.append(f"  {model}")
    label.append("  ")
    label.append_text(paths_text(enc.hba_ports, enc.hba_ports_expected))
    occupied = sum(1 for s in enc.slots if s.occupied)
    slots = enc.bay_count or len(enc.slots)
    label.append(f"  slots {occupied}/{slots} occupied  {disk_path_summary(disks)}")
    faults = [slot_name(s.index, s.descriptor) for s in enc.slots if s.fault]
    if faults:
        label.append(f"  {WARN} fault LED on {', '.join(faults)}", style="yellow")
    for trouble in element_troubles(enc):
        style = "red" if trouble.severity.rank >= Severity.CRITICAL.rank else "yellow"
        label.append(f"  {WARN} {element_name(trouble.element)} {trouble.what}", style=style)
    return label


def fabric_tree(inventory: Inventory) -> Tree:
    """The SAS fabric as a tree: HBA → connector → chain → enclosures."""
    fabric = inventory.sas
    host = inventory.host
    title = Text(host.hostname or "unknown host", style="bold")
    if host.source is SourceKind.DEMO:
        title.append("  (DEMO: simulated host, field case 1)", style="bold magenta")
    elif host.source is SourceKind.SNAPSHOT:
        title.append(f"  (snapshot {host.source_location or 'unknown'})", style="cyan")
    if host.kernel:
        title.append(f"  kernel {host.kernel}", style="dim")
    title.append("\n" + fabric_summary(fabric))
    tree = Tree(title)
    enclosures = {e.id: e for e in fabric.enclosures}
    disks_by_enc: dict[str, list[Disk]] = {}
    for disk in fabric.disks:
        if disk.enclosure_id:
            disks_by_enc.setdefault(disk.enclosure_id, []).append(disk)
    chains = {c.hba_port_id: c for c in fabric.chains}
    expanders = {e.id: e for e in fabric.expanders}
    for hba in fabric.hbas:
        hba_node = tree.add(hba_label(hba))
        for port in hba.ports:
            node = hba_node.add(port_label(port))
            chain = chains.get(port.id)
            if chain is None:
                if port.attached_kind.value == "end_device":
                    node.add(Text("direct-attached device", style="dim"))
                continue
            if chain.switch_ids:
                names = ", ".join(
                    f"{expanders[s].vendor or ''} {expanders[s].product or s}".strip()
                    for s in chain.switch_ids
                )
                node.add(Text(f"expander outside any enclosure (switch or unidentified): {names}"))
            branches = chain.branches or [chain.enclosure_ids]
            parent = node
            if len(branches) > 1:
                parent = node.add(
                    Text(
                        f"{chain.enclosure_count} enclosures share this port in "
                        f"{len(branches)} branches"
                    )
                )
            for branch in branches:
                chain_node = parent.add(Text(f"chain of {plural(len(branch), 'enclosure')}"))
                for position, enc_id in enumerate(branch, start=1):
                    enc = enclosures.get(enc_id)
                    if enc is not None:
                        label = enclosure_label(enc, disks_by_enc.get(enc_id, []), position)
                        chain_node.add(label)
        if not hba.sas_transport:
            hidden = hba_node.add(Text("enclosures reached (the driver shows no ports)"))
            for enc in fabric.enclosures:
                if any(r.startswith(f"{hba.id}/") for r in enc.hba_port_ids):
                    hidden.add(enclosure_label(enc, disks_by_enc.get(enc.id, [])))
        if hba.idle_phys:
            ids = ", ".join(str(p.phy_identifier) for p in hba.idle_phys)
            hba_node.add(Text(f"phys without a port (not cabled): {ids}", style="dim"))
        direct = [
            d
            for d in fabric.disks
            if d.direct_attached and any(p.hba_id == hba.id for p in d.paths)
        ]
        for disk in direct:
            hba_node.add(
                Text(
                    f"direct-attached disk {disk.vendor or ''} {disk.model or ''} "
                    f"{disk.wwid or disk.id}  paths {disk.hba_ports}"
                )
            )
    return tree


def fabric_summary(fabric: SasFabric) -> str:
    return (
        f"SAS fabric: {len(fabric.hbas)} HBA{'s' if len(fabric.hbas) != 1 else ''}, "
        f"{len(fabric.enclosures)} enclosures, {len(fabric.disks)} disks, "
        f"{fabric.path_count} disk paths"
    )


def enclosure_table(fabric: SasFabric) -> Table:
    """One row per enclosure: where it is cabled and how many paths it has."""
    table = Table(title="Enclosures", title_justify="left")
    for column in (
        "enclosure",
        "model",
        "logical id",
        "cabled to (port: position)",
        "paths",
        "disks",
        "power, cooling, sensors",
    ):
        # a long logical id or port name folds onto a second line: never cut to "…" at 80 columns
        table.add_column(column, overflow="fold")
    port_names = {port.id: hba_port_name(hba, port) for hba in fabric.hbas for port in hba.ports}
    positions: dict[str, list[str]] = {}
    for chain in fabric.chains:
        where = port_names.get(chain.hba_port_id, chain.hba_port_id)
        for branch in chain.branches or [chain.enclosure_ids]:
            for index, enc_id in enumerate(branch, start=1):
                positions.setdefault(enc_id, []).append(f"{where}: {index}/{len(branch)}")
    disks: dict[str, list[Disk]] = {}
    for disk in fabric.disks:
        if disk.enclosure_id:
            disks.setdefault(disk.enclosure_id, []).append(disk)
    for enc in fabric.enclosures:
        table.add_row(
            enc.name,
            " ".join(x for x in (enc.vendor, enc.product) if x),
            enc.logical_id,
            "\n".join(positions.get(enc.id, ["—"])),
            paths_text(enc.hba_ports, enc.hba_ports_expected),
            disk_path_summary(disks.get(enc.id, [])),
            elements_summary(enc),
        )
    return table


def element_table(fabric: SasFabric) -> Table | None:
    """The SES elements in trouble (a failed PSU or fan, a hot sensor, a missing I/O module),
    one row each; None when there is none."""
    table = Table(title="Enclosure elements with a problem", title_justify="left")
    for column in ("enclosure", "element", "status", "reading", "own limits", "problem"):
        table.add_column(column, overflow="fold")
    for enc in fabric.enclosures:
        for trouble in element_troubles(enc):
            element = trouble.element
            limits = element.limits
            limit_text = ""
            if limits is not None and limits.unit == "C":
                limit_text = "warn {} / crit {} °C".format(
                    *(
                        f"{v:g}" if v is not None else "—"
                        for v in (limits.high_warning, limits.high_critical)
                    )
                )
            table.add_row(
                enc.name,
                element_name(element),
                element.status,
                _reading(element),
                limit_text,
                Text(
                    trouble.what, style="red" if trouble.severity is Severity.CRITICAL else "yellow"
                ),
            )
    return table if table.row_count else None


def _reading(element: EnclosureElement) -> str:
    """A sensor's or fan's reading with its unit; empty when it reports none."""
    if element.temperature_c is not None:
        return f"{element.temperature_c:g} °C"
    if element.voltage_v is not None:
        return f"{element.voltage_v:g} V"
    if element.current_a is not None:
        return f"{element.current_a:g} A"
    if element.fan_rpm is not None:
        return f"{element.fan_rpm} rpm"
    return ""


def disk_table(inventory: Inventory) -> Table:
    """Every disk with its place, path count and SMART verdict (for `inventory --disks`)."""
    fabric = inventory.sas
    enclosures = {e.id: e for e in fabric.enclosures}
    verdicts = {
        h.id: {True: "passed", False: "FAILED", None: "—"}[h.smart_passed]
        for h in inventory.health.disks
    }
    table = Table(title="Disks", title_justify="left")
    columns = ("enclosure", "slot", "model", "LU name (wwid)", "paths", "block devices", "SMART")
    for column in columns:
        table.add_column(column, overflow="fold")
    for disk in fabric.disks:
        enclosure = enclosures.get(disk.enclosure_id or "")
        table.add_row(
            enclosure.name if enclosure else "direct" if disk.direct_attached else "—",
            (disk_slot_name(disk, enclosure) if enclosure else None) or "",
            " ".join(x for x in (disk.vendor, disk.model) if x),
            disk.wwid or disk.id,
            str(disk.hba_ports),
            " ".join(p.block_device or p.sg_device or p.hctl for p in disk.paths),
            verdicts.get(disk.id, "not read"),
        )
    return table


def problems_table(inventory: Inventory) -> RenderableType:
    if not inventory.problems:
        return Text(f"{OK} everything the collectors look at was read", style="green")
    table = Table(title="Not collected", title_justify="left")
    for column in ("part", "what", "why"):
        table.add_column(column, overflow="fold")
    for problem in inventory.problems:
        table.add_row(problem.part, problem.subject, problem.reason)
    return table


def inventory_view(inventory: Inventory, *, with_disks: bool = False) -> Group:
    parts: list[RenderableType] = [fabric_tree(inventory)]
    if inventory.sas.enclosures:
        parts.append(enclosure_table(inventory.sas))
        troubles = element_table(inventory.sas)
        if troubles is not None:
            parts.append(troubles)
    if with_disks:
        parts.append(disk_table(inventory))
    parts.extend(host_tables(inventory))
    parts.append(problems_table(inventory))
    return Group(*parts)
