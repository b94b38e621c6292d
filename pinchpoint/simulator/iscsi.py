"""iSCSI sessions (open-iscsi's iscsi_tcp): each session its own SCSI host, its connection, and
the LUNs it presents as SCSI disks.

Laid out as the kernel's iSCSI transport class does it for iscsi_tcp (no PCI function: the
host hangs from the platform bus):

    devices/platform/hostH/{scsi_host/hostH, iscsi_host/hostH/{netdev,ipaddress,hwaddress}}
    devices/platform/hostH/sessionS/iscsi_session/sessionS/{targetname,state,tpgt,ifacename,…}
    devices/platform/hostH/sessionS/connectionS:0/iscsi_connection/connectionS:0/
        {persistent_address,persistent_port,address,port,state}
    devices/platform/hostH/sessionS/targetH:0:0/H:0:0:L/{vendor,model,wwid,state,block/sdX}

with the class links `/sys/class/iscsi_{session,connection,host}`, `scsi_host`, `scsi_device`,
`scsi_generic` and `/sys/block/sdX`. The session states are the kernel's (LOGGED_IN, FAILED,
FREE); the dead session of open-iscsi issue #228 (`iscsiadm -m session -P 3`, in the shared
corpus) shows FREE with its host still running. SCSI hosts, sdX and sgN are numbered after the
SAS, FC and AHCI ones (scsi_numbers.py, the one numbering); session numbers start at 1 in spec
order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from pinchpoint.simulator.addresses import name_hash
from pinchpoint.simulator.discovery import KernelView
from pinchpoint.simulator.fc import FcView
from pinchpoint.simulator.naming import SG_MAJOR, hctl, padded, sd_devt, sd_name
from pinchpoint.simulator.scsi_numbers import after_ahci
from pinchpoint.simulator.smart import LunIdentity, lun_report
from pinchpoint.simulator.spec.host import HostSpec
from pinchpoint.simulator.spec.rest_of_host import IscsiSessionSpec
from pinchpoint.simulator.sysfs_tree import class_device, vpd_pg80
from pinchpoint.simulator.tree_writer import TreeWriter

SYS = "sys"
LIO_OUI = 0x001405  # LIO-ORG's NAA OUI
ISCSI_PROTOCOL = {"name": "iSCSI", "value": 5}


@dataclass(frozen=True)
class IscsiLunView:
    session: IscsiSessionSpec
    host_number: int
    lun: int
    identity: LunIdentity
    sd_index: int
    sg_index: int


def lun_identity(session: IscsiSessionSpec, lun: int) -> LunIdentity:
    """LUN `lun` of the session's array: the same LU (WWID) through every session to it."""
    high = name_hash("iscsi-lun", session.array, str(lun)) << 36
    bits = (high | name_hash("iscsi-lun2", session.array, str(lun))) & ((1 << 100) - 1)
    wwid = (0x6 << 124) | (LIO_OUI << 100) | bits
    return LunIdentity(
        vendor=session.vendor,
        product=session.product,
        revision=session.revision,
        wwid=wwid,
        serial=f"{bits & ((1 << 64) - 1):016x}",
        size_bytes=session.size_bytes,
    )


def _designator(code_set: int, association: int, kind: int, value: bytes) -> bytes:
    return bytes([code_set, (association << 4) | kind, 0, len(value)]) + value


def vpd_pg83_lio(wwid: int, serial: str, target: str, tpgt: int) -> bytes:
    """The Device Identification page (0x83) as a LIO target answers it: the LU's NAA IEEE
    Registered Extended name, its T10 vendor id (`LIO-ORG` and the unit serial), and the target
    port's SCSI name string (`<IQN>,t,0x0001`, padded to a multiple of 4)."""
    name = f"{target},t,0x{tpgt:04x}".encode() + b"\x00"
    name += b"\x00" * (-len(name) % 4)
    body = (
        _designator(1, 0, 3, wwid.to_bytes(16, "big"))
        + _designator(2, 0, 1, b"LIO-ORG " + serial.encode())
        + _designator(3, 1, 8, name)
    )
    return bytes([0, 0x83]) + len(body).to_bytes(2, "big") + body


def _write_lun(w: TreeWriter, session_dir: str, path: IscsiLunView) -> str:
    name = hctl(path.host_number, 0, path.lun)
    target = f"{session_dir}/target{path.host_number}:0:0"
    directory = f"{target}/{name}"
    lu = path.identity
    w.attrs(
        directory,
        {
            "vendor": padded(lu.vendor, 8),
            "model": padded(lu.product, 16),
            "rev": padded(lu.revision, 4),
            "type": "0",
            "scsi_level": "7",
            "wwid": f"naa.{lu.wwid:032x}",
            "queue_depth": "128",
            "state": "running" if path.session.state == "LOGGED_IN" else "blocked",
            "timeout": "30",
        },
    )
    w.write(f"{directory}/vpd_pg80", vpd_pg80(lu.serial))
    page = vpd_pg83_lio(lu.wwid, lu.serial, path.session.target, path.session.tpgt)
    w.write(f"{directory}/vpd_pg83", page)
    w.link(f"{SYS}/bus/scsi/devices/{name}", directory)
    class_device(w, directory, "scsi_device", name, {})
    sg = f"sg{path.sg_index}"
    class_device(w, directory, "scsi_generic", sg, {"dev": f"{SG_MAJOR}:{path.sg_index}"})
    major, minor = sd_devt(path.sd_index)
    sd = sd_name(path.sd_index)
    block = class_device(
        w, directory, "block", sd, {"dev": f"{major}:{minor}", "size": str(lu.size_bytes // 512)}
    )
    w.link(f"{SYS}/block/{sd}", block)
    w.attrs(
        f"{block}/queue",
        {
            "rotational": "0",
            "nr_requests": "256",
            "scheduler": "[mq-deadline] none",
            "logical_block_size": "512",
            "physical_block_size": "4096",
        },
    )
    return sd


def write_iscsi(w: TreeWriter, spec: HostSpec, view: KernelView, fc: FcView) -> None:
    """Every `[[iscsi_session]]` with its host, connection and LUNs, and smartctl's report of
    each LU's first path."""
    first = after_ahci(spec, view, fc)
    host_number, sd_index, sg_index = first.host, first.sd, first.sg
    reports: dict[int, str] = {}
    at = spec.host.captured_at
    for number, session in enumerate(spec.iscsi_session, start=1):
        host = f"host{host_number}"
        host_dir = f"{SYS}/devices/platform/{host}"
        class_device(
            w,
            host_dir,
            "scsi_host",
            host,
            {"proc_name": "iscsi_tcp", "can_queue": "128", "state": "running"},
        )
        class_device(
            w,
            host_dir,
            "iscsi_host",
            host,
            {
                "netdev": session.netdev or "(null)",
                "ipaddress": session.local_address or "(null)",
                "hwaddress": "(null)",
                "initiatorname": "(null)",
            },
        )
        name = f"session{number}"
        session_dir = f"{host_dir}/{name}"
        class_device(
            w,
            session_dir,
            "iscsi_session",
            name,
            {
                "targetname": session.target,
                "state": session.state,
                "tpgt": str(session.tpgt),
                "ifacename": session.iface,
                "initiatorname": session.initiator,
                "recovery_tmo": "5",
                "target_id": str(number - 1),
            },
        )
        connection = f"connection{number}:0"
        conn_dir = f"{session_dir}/{connection}"
        up = session.state == "LOGGED_IN"
        class_device(
            w,
            conn_dir,
            "iscsi_connection",
            connection,
            {
                "persistent_address": session.portal,
                "persistent_port": str(session.port),
                "address": session.portal,
                "port": str(session.port),
                "state": "up" if up else "failed",
            },
        )
        for lun in session.luns:
            path = IscsiLunView(
                session, host_number, lun, lun_identity(session, lun), sd_index, sg_index
            )
            sd = _write_lun(w, session_dir, path)
            if up:
                reports.setdefault(path.identity.wwid, sd)
            sd_index += 1
            sg_index += 1
        host_number += 1
    if reports:
        w.mkdir("commands/smartctl")
    for wwid, sd in reports.items():
        session = next(
            s for s in spec.iscsi_session for lun in s.luns if lun_identity(s, lun).wwid == wwid
        )
        lun = next(n for n in session.luns if lun_identity(session, n).wwid == wwid)
        report = lun_report(lun_identity(session, lun), sd, at)
        report["scsi_transport_protocol"] = ISCSI_PROTOCOL
        w.write(f"commands/smartctl/{sd}.json", (json.dumps(report, indent=2) + "\n").encode())
