"""NVMe subsystems with their paths and iSCSI sessions with their LUNs, for a terminal.

Facts only (judging them is the rules' job); what a host wrote is shown as plain text, never
as markup.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from pinchpoint.model.inventory import Inventory
from pinchpoint.model.iscsi import IscsiDevice
from pinchpoint.model.multipath import MultipathMap
from pinchpoint.model.nvme import ANA_USABLE, CONTROLLER_LIVE, NvmeController
from pinchpoint.naming import multipath_lun_name
from pinchpoint.stats.attach import wwid_key


def _table(title: str, *columns: str) -> Table:
    table = Table(title=title, title_justify="left")
    for column in columns:
        table.add_column(column)
    return table


def _route(controller: NvmeController | None) -> str:
    if controller is None:
        return "?"
    target = controller.target_address or "?"
    if controller.target_port:
        target += f":{controller.target_port}"
    via = f" via {controller.adapter}" if controller.adapter and controller.fabrics else ""
    return f"{controller.transport or '?'} {target}{via}"


def nvme_table(inventory: Inventory) -> Table | None:
    """One row per namespace (or per subsystem where none is seen): its paths, each with its
    controller's state and ANA state."""
    subsystems = inventory.nvme.subsystems
    if not subsystems:
        return None
    table = _table("NVMe subsystems", "subsystem", "namespace", "paths live", "paths")
    for s in subsystems:
        label = Text(f"{s.name} {s.model or ''}".strip() + f"\n{s.nqn}")
        rows: list[tuple[str, list[tuple[str, str | None, str | None]]]] = []
        if s.namespaces:
            for ns in s.namespaces:
                name = f"{ns.nsid} ({ns.head})" if ns.head else str(ns.nsid)
                rows.append((name, [(p.controller, p.name, p.ana_state) for p in ns.paths]))
        else:
            rows.append(("—", [(c.name, None, None) for c in s.controllers]))
        for name, paths in rows:
            live = 0
            lines = []
            for ctrl_name, path, ana in paths:
                controller = s.controller(ctrl_name)
                state = controller.state if controller else None
                if state == CONTROLLER_LIVE and (ana is None or ana in ANA_USABLE):
                    live += 1
                states = " ".join(x for x in (state or "?", ana) if x)
                head = f"{path} via {ctrl_name}" if path and path != ctrl_name else ctrl_name
                lines.append(f"{head}: {_route(controller)}, {states}")
            table.add_row(label, Text(name), f"{live} of {len(paths)}", Text("\n".join(lines)))
            label = Text("")
    return table


def _lun_line(device: IscsiDevice, maps: dict[str, MultipathMap]) -> str:
    """`LUN 0 naa.6001405… sda running, in mpatha (36001405…)`: the disk behind a session
    and the multipath map of its WWID, where there is one."""
    line = f"LUN {device.lun} {device.wwid or '?'} {device.block_device or device.hctl}"
    line += f" {device.state}" if device.state else ""
    mpath = maps.get(wwid_key(device.wwid)) if device.wwid else None
    return line + (f", in {multipath_lun_name(mpath)}" if mpath else "")


def iscsi_table(inventory: Inventory) -> Table | None:
    """One row per session: target, portal, the interface it leaves through, session and
    connection state, and the LUNs (disks) behind it with their multipath maps."""
    sessions = inventory.iscsi.sessions
    if not sessions:
        return None
    maps = {wwid_key(m.wwid): m for m in inventory.multipath.maps if m.wwid}
    table = _table(
        "iSCSI sessions", "session", "target", "portal", "from", "session / connection", "LUNs"
    )
    for s in sessions:
        luns = "\n".join(_lun_line(d, maps) for d in s.devices)
        table.add_row(
            Text(f"{s.name} ({s.scsi_host})" if s.scsi_host else s.name),
            Text(s.target or "—"),
            Text(s.portal or "—"),
            Text(s.interface or "—"),
            Text(f"{s.state or '?'} / {s.connection_state or '?'}"),
            Text(luns or "—"),
        )
    return table
