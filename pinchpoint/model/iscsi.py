"""iSCSI sessions, their connections and hosts, and the LUNs (by WWID) each session presents.

    /sys/class/iscsi_session/sessionN/{targetname,state,tpgt,ifacename,initiatorname}
    /sys/class/iscsi_connection/connectionN:0/{persistent_address,persistent_port,address,port}
    /sys/class/iscsi_host/hostH/{netdev,ipaddress,hwaddress}   the session's SCSI host
    …/sessionN/targetH:C:T/H:C:T:L/{vpd_pg83,wwid,state,vendor,model,block/sdX}   its SCSI devices

A LUN is one WWID across every session and target IQN that presents it (some arrays give each
port its own IQN).
"""

from __future__ import annotations

from pydantic import BaseModel, Field, computed_field

SESSION_LOGGED_IN = "LOGGED_IN"  # the kernel's names: LOGGED_IN, FAILED, FREE
DEVICE_UP = frozenset({"running"})


def iscsi_lun_id(wwid: str) -> str:
    """`iscsi-lun:<WWID>` (white space in a WWID becomes `_`)."""
    return "iscsi-lun:" + "_".join(wwid.split())


class IscsiDevice(BaseModel):
    """A SCSI device (one LUN through one session)."""

    hctl: str  # "14:0:0:1"
    lun: int | None = None
    wwid: str | None = None  # as `device/wwid` reads ("naa.600a0980…")
    wwid_from: str | None = None  # "vpd_pg83" (the page itself) or "wwid" (the kernel's reading)
    state: str | None = None  # SCSI device state: "running", "offline", "blocked"
    vendor: str | None = None
    model: str | None = None
    block_device: str | None = None  # "sdc": a name of the moment


class IscsiSession(BaseModel):
    """One iSCSI session `sessionN`: a login from an interface to a target portal."""

    name: str  # "session806"
    target: str | None = None  # the target IQN
    state: str | None = None  # LOGGED_IN, FAILED, FREE
    tpgt: int | None = None
    iface: str | None = None  # the open-iscsi iface name ("default", "iface0")
    initiator: str | None = None
    portal_address: str | None = None  # persistent_address of its connection
    portal_port: int | None = None
    connection_state: str | None = None  # newer kernels: "up", "down", "failed", "bound"
    scsi_host: str | None = None  # "host14"
    netdev: str | None = None  # the interface its host is bound to, where set
    local_address: str | None = None  # the host's ipaddress (the session's local end)
    devices: list[IscsiDevice] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def logged_in(self) -> bool:
        return self.state == SESSION_LOGGED_IN

    @computed_field  # type: ignore[prop-decorator]
    @property
    def interface(self) -> str | None:
        """What the session leaves the host through: its bound interface, else its local
        address; None when neither is known."""
        if self.netdev:
            return f"interface {self.netdev}"
        if self.local_address:
            return f"local address {self.local_address}"
        return None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def portal(self) -> str | None:
        """`10.8.100.6:3260`."""
        if not self.portal_address:
            return None
        return (
            f"{self.portal_address}:{self.portal_port}" if self.portal_port else self.portal_address
        )


class IscsiInventory(BaseModel):
    """Every iSCSI session of a host; empty when it has none."""

    sessions: list[IscsiSession] = Field(default_factory=list)
