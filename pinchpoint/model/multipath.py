"""dm-multipath maps: a LUN (WWID), its path groups and paths, and what each path runs through.

A map is read from two places and joined by WWID: sysfs (`/sys/block/dm-N/dm/uuid` = `mpath-<WWID>`,
`slaves/`) says the map and its member devices exist; `multipath -ll` adds the path groups and
each path's device-mapper, checker and SCSI states. Either may be missing; `from_sysfs` and
`from_multipath_ll` say which the map was seen in.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field, computed_field

DM_ACTIVE = "active"  # device-mapper uses the path
CHECKER_DOWN = frozenset({"faulty", "shaky"})  # path checker says the path does not work
DEVICE_DOWN = frozenset({"offline", "transport-offline", "blocked", "deleted", "cancel"})

_SPACES = re.compile(r"\s+")


def multipath_map_id(wwid: str) -> str:
    """`mpath:<WWID>`; white space inside a WWID (`1IET     00080001`) becomes one `_`."""
    return "mpath:" + _SPACES.sub("_", wwid.strip())


def multipath_path_id(map_id: str, hctl: str | None, device: str | None) -> str:
    """A path of a map: by its H:C:T:L (the path's place), else its device name."""
    return f"{map_id}/path:{hctl or device or 'unknown'}"


class MultipathPath(BaseModel):
    """One path (a SCSI device) of a map, as `multipath -ll` and sysfs describe it."""

    id: str
    hctl: str | None = None  # "3:0:1:4"; None when multipath prints "#:#:#:#" (device gone)
    device: str | None = None  # "sdk": a name of the moment, never an id
    dev_t: str | None = None  # "8:160"
    dm_state: str | None = None  # device-mapper: "active", "failed", "undef"
    checker_state: str | None = None  # path checker: "ready", "ghost", "faulty", "i/o pending"
    online_state: str | None = None  # the SCSI device state: "running", "offline", "blocked"
    group_index: int | None = None  # 1-based path group it belongs to (as multipath prints)
    in_slaves: bool | None = None  # listed in the map's sysfs `slaves/` (None: not read)
    device_present: bool | None = None  # its block device exists in sysfs (None: not read)
    # What the path runs through, for joining with the HBA inventories:
    scsi_host: str | None = None  # "host3", the H of H:C:T:L
    transport: str | None = None  # "fc", "sas", "iscsi", or None when none of those
    pci_address: str | None = None  # the adapter's PCI function, when the host has one
    fc_port_id: str | None = None  # the local FC port (`fc-port:<WWPN>`) for an FC host
    fc_port_name: str | None = None  # its WWPN

    @computed_field  # type: ignore[prop-decorator]
    @property
    def active(self) -> bool:
        """device-mapper sends I/O down it (its `dm_state` is "active")."""
        return self.dm_state == DM_ACTIVE

    @computed_field  # type: ignore[prop-decorator]
    @property
    def failed(self) -> bool:
        """device-mapper failed it, its checker says faulty/shaky, or the device is offline."""
        return (
            self.dm_state == "failed"
            or self.checker_state in CHECKER_DOWN
            or self.online_state in DEVICE_DOWN
        )


class MultipathPathGroup(BaseModel):
    """A priority group: the paths device-mapper balances I/O over together."""

    index: int  # 1-based, in the order multipath prints them
    policy: str | None = None  # path selector with its argument count: "round-robin 0"
    priority: int | None = None  # higher is preferred; None when not printed (old versions)
    status: str | None = None  # "active" (in use), "enabled" (standby), "disabled", "undef"
    paths: list[MultipathPath] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def selector(self) -> str | None:
        """The selector's name: "round-robin", "service-time", "queue-length"."""
        return self.policy.split()[0] if self.policy else None


class MultipathMap(BaseModel):
    """One multipath LUN: a dm device over several SCSI paths to the same WWID."""

    id: str  # `mpath:<WWID>`
    wwid: str  # as multipath prints it ("360060160ade32800f2e3baf47665e211"; NAA with a 3)
    name: str | None = None  # the map name: the alias ("mpathg", "L004") or the WWID itself
    dm_device: str | None = None  # "dm-9"
    vendor: str | None = None  # of the paths ("DGC", "DELL")
    product: str | None = None  # "RAID 5", "MD36xxi"
    size_text: str | None = None  # as multipath prints it: "54T", "2.0G"
    size_bytes: int | None = None  # exact from sysfs (size × 512), else `size_text` (rounded)
    features: str | None = None  # dm features with their count: "1 queue_if_no_path"
    hardware_handler: str | None = None  # "rdac", "emc", "alua"; None for "0" (none)
    access: str | None = None  # multipath's `wp=`: "rw", "ro"
    path_groups: list[MultipathPathGroup] = Field(default_factory=list)
    # Paths known from sysfs only (`slaves/`), when `multipath -ll` did not list the map.
    sysfs_paths: list[MultipathPath] = Field(default_factory=list)
    sysfs_slaves: list[str] = Field(default_factory=list)  # `slaves/` entry names, as read
    from_sysfs: bool = False
    from_multipath_ll: bool = False

    @computed_field  # type: ignore[prop-decorator]
    @property
    def queue_if_no_path(self) -> bool | None:
        """I/O waits (rather than fails) when every path is down."""
        return None if self.features is None else "queue_if_no_path" in self.features.split()

    @property
    def paths(self) -> list[MultipathPath]:
        """Every path: those of the path groups, else those sysfs lists."""
        grouped = [p for g in self.path_groups for p in g.paths]
        return grouped or list(self.sysfs_paths)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def path_count(self) -> int:
        return len(self.paths)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def paths_active(self) -> int:
        """Paths device-mapper uses (dm state "active"); 0 when only sysfs was read."""
        return sum(1 for p in self.paths if p.active)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def paths_failed(self) -> int:
        return sum(1 for p in self.paths if p.failed)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def scsi_hosts(self) -> list[str]:
        """The SCSI hosts (adapters' kernel names) its paths use, sorted."""
        return sorted({p.scsi_host for p in self.paths if p.scsi_host}, key=_host_order)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def pci_addresses(self) -> list[str]:
        """The adapters (PCI functions) its paths use."""
        return sorted({p.pci_address for p in self.paths if p.pci_address})

    @computed_field  # type: ignore[prop-decorator]
    @property
    def fc_port_ids(self) -> list[str]:
        """The local FC ports its paths use."""
        return sorted({p.fc_port_id for p in self.paths if p.fc_port_id})


def _host_order(name: str) -> tuple[int, str]:
    digits = name.removeprefix("host")
    return (int(digits), name) if digits.isdigit() else (1 << 30, name)


class MultipathInventory(BaseModel):
    """Every dm-multipath map of a host; empty when it has none."""

    maps: list[MultipathMap] = Field(default_factory=list)
    multipath_ll_read: bool = False  # `multipath -ll` output was read and parsed
    multipath_ll_reason: str | None = None  # why not, when it was not (also in the problems)
