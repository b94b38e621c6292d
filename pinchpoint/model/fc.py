"""Fibre Channel as an expert draws it: adapter (PCI function) → port (WWPN) → remote port → LUN.

Every entity has a stable id from its hardware identity: a local port by its WWPN, a remote
port by the pair of WWPNs it joins, an adapter by its PCI address. Kernel names (`host3`,
`rport-3:0-0`, `sdb`) are kept beside them for people, never used as ids where a WWPN exists.
Rates are Gbit/s as the FC transport class prints them ("16 Gbit").
"""

from __future__ import annotations

from pydantic import BaseModel, Field, computed_field

from pinchpoint.model import ids
from pinchpoint.model.pcie import pci_card_address

ONLINE = "Online"  # the fc_host / fc_remote_port `port_state` of a working port
FCP_TARGET = "FCP Target"  # the remote port role of a storage array port


def normalise_wwn(value: str) -> str:
    """`0x1000E0071BCE95F2`, `10:00:e0:07:1b:ce:95:f2`, `1000e0071bce95f2` -> `0x1000e0…`."""
    text = value.strip().lower().replace(":", "").replace("-", "")
    if text.startswith("0x"):
        text = text[2:]
    return "0x" + text


def fc_port_id(wwpn: str) -> str:
    return f"fc-port:{normalise_wwn(wwpn)}"


def fc_port_fallback_id(scsi_host: str, pci_address: str | None) -> str:
    """For a port that reports no WWPN: its PCI function and kernel host name (not stable)."""
    return f"fc-port:{pci_address or 'unknown'}/{scsi_host}"


def fc_remote_port_id(local_port_id: str, remote_wwpn: str | None, rport_name: str) -> str:
    """A remote port as seen from one local port: the same array port seen twice is two paths."""
    remote = normalise_wwn(remote_wwpn) if remote_wwpn else rport_name
    return f"{local_port_id}/rport:{remote}"


def fc_lun_id(local_port_id: str, target: str, lun: int) -> str:
    """One LUN through one local port and one target: `target` is its WWPN, else `C:T`."""
    return f"{local_port_id}/target:{target}/lun:{lun}"


def fc_adapter_id(pci_address: str) -> str:
    """An FC HBA is a PCI function, like a SAS HBA: the same id space (`hba:<pci>`)."""
    return ids.hba_id(pci_address)


def pci_card_id(pci_address: str) -> str:
    return f"card:{pci_card_address(pci_address)}"


class FcPortStatistics(BaseModel):
    """`fc_host/hostN/statistics/*`: counters since `seconds_since_last_reset`.

    None means the driver does not keep the counter (it prints -1 / 0xffffffffffffffff, listed
    in `unsupported`), or the file was absent or unreadable (then a problem says so).
    """

    seconds_since_last_reset: int | None = None
    tx_frames: int | None = None
    rx_frames: int | None = None
    tx_words: int | None = None  # FC words are 4 bytes
    rx_words: int | None = None
    lip_count: int | None = None  # loop initialisations (arbitrated loop only)
    nos_count: int | None = None  # Not_Operational primitive sequences received
    error_frames: int | None = None
    dumped_frames: int | None = None
    link_failure_count: int | None = None
    loss_of_sync_count: int | None = None
    loss_of_signal_count: int | None = None
    prim_seq_protocol_err_count: int | None = None
    invalid_tx_word_count: int | None = None
    invalid_crc_count: int | None = None
    fcp_input_requests: int | None = None
    fcp_output_requests: int | None = None
    fcp_control_requests: int | None = None
    fcp_input_megabytes: int | None = None
    fcp_output_megabytes: int | None = None
    fcp_packet_alloc_failures: int | None = None
    fcp_packet_aborts: int | None = None
    fcp_frame_alloc_failures: int | None = None
    # Counters the kernel adds over time (fc_no_free_exch, fpin_*, cn_sig_*): name -> value.
    other: dict[str, int | None] = Field(default_factory=dict)
    unsupported: list[str] = Field(default_factory=list)  # counters the driver reports as -1


class SymbolicName(BaseModel):
    """What the driver packs into `symbolic_name`; `raw` keeps the text as it was.

    Emulex: `Emulex SN1100E2P FV12.4.270.3 DV12.4.0.0. HN:gotest. OS:Linux`;
    QLogic: `QLE2562 FW:v8.03.00 DVR:v8.07.00.26-k`;
    FCoE: `bnx2fc (QLogic BCM57810) v2.9.6 over eth8.0-fcoe`.
    """

    raw: str
    vendor: str | None = None  # "Emulex", "QLogic" when the text names it
    model: str | None = None  # "SN1100E2P", "QLE2562", "BCM57810"
    firmware_version: str | None = None  # FV… / FW:v…
    driver_version: str | None = None  # DV… / DVR:v… / v… (FCoE)
    driver: str | None = None  # "bnx2fc", "fcoe" where the text starts with the driver
    interface: str | None = None  # FCoE: the Ethernet interface it runs "over"
    host_name: str | None = None  # lpfc: the HN: field (the host's name as the fabric sees it)


class FcRemotePort(BaseModel):
    """A port at the far side of the fabric (`/sys/class/fc_remote_ports/rport-H:C-N`)."""

    id: str
    name: str  # kernel name, "rport-3:0-0"
    local_port_id: str
    port_name: str | None = None  # remote WWPN
    node_name: str | None = None  # remote WWNN
    port_id: str | None = None  # 24-bit fabric address, "0x010200"
    port_state: str | None = None  # "Online", "Blocked", "Not Present", "Marginal"
    roles: list[str] = Field(default_factory=list)  # "FCP Target", "FCP Initiator", "NVMe Target"
    channel: int | None = None  # C of rport-H:C-N
    scsi_target_id: int | None = None  # T of the LUNs behind it; None when not a SCSI target

    @computed_field  # type: ignore[prop-decorator]
    @property
    def fcp_target(self) -> bool:
        """A storage port that offers SCSI LUNs."""
        return FCP_TARGET in self.roles


class FcLun(BaseModel):
    """A SCSI logical unit reached through one FC port: one path to a LUN."""

    id: str
    hctl: str  # "3:0:1:4": H is the fc_host's host number
    local_port_id: str
    remote_port_id: str | None = None  # the rport whose scsi_target_id is T
    target_port_name: str | None = None  # the array port's WWPN
    lun: int
    block_device: str | None = None  # "sdk": a name of the moment, never an id
    wwid: str | None = None  # the LU's identity ("naa.6006…"); the same on every path
    vendor: str | None = None
    model: str | None = None
    revision: str | None = None
    scsi_type: int | None = None  # 0 disk, 12 array controller, 13 enclosure …
    queue_depth: int | None = None  # `device/queue_depth`: I/Os the kernel keeps in flight
    state: str | None = None  # "running", "offline", "blocked"


class FcPort(BaseModel):
    """A local FC port: one `/sys/class/fc_host/hostN` (an NPIV port is one too)."""

    id: str
    scsi_host: str  # kernel name, "host3"
    host_number: int  # the H of H:C:T:L of every LUN behind it
    port_name: str | None = None  # WWPN, "0x1000e0071bce95f2"
    node_name: str | None = None  # WWNN
    port_id: str | None = None  # 24-bit fabric address, "0x000002"
    port_state: str | None = None  # "Online", "Linkdown", "Offline", "Bypassed", "Marginal" …
    port_type: str | None = None  # "NPort (fabric via point-to-point)", "NPIV VPORT" …
    fabric_name: str | None = None  # the switch fabric's WWN; "0x0" when none (direct)
    speed_text: str | None = None  # as the kernel says: "16 Gbit", "unknown", "Not Negotiated"
    speed_gbps: float | None = None  # None when not negotiated / unknown
    supported_speeds_text: str | None = None  # "4 Gbit, 8 Gbit, 16 Gbit"
    supported_speeds_gbps: list[float] = Field(default_factory=list)
    supported_classes: str | None = None  # "Class 3"
    dev_loss_tmo_s: int | None = None  # seconds a lost remote port is kept before removal
    symbolic_name: SymbolicName | None = None
    driver: str | None = None  # scsi_host proc_name: "lpfc", "qla2xxx", "bnx2fc"
    can_queue: int | None = None  # scsi_host can_queue: commands the host accepts in all
    cmd_per_lun: int | None = None  # scsi_host cmd_per_lun: the default LUN queue depth
    lun_queue_depth: int | None = None  # lpfc per-host `lpfc_lun_queue_depth`
    hba_queue_depth: int | None = None  # lpfc per-host `lpfc_hba_queue_depth`
    pci_address: str | None = None  # the PCI function it belongs to ("0000:04:00.1")
    adapter_id: str | None = None  # `hba:<pci_address>`
    card_id: str | None = None  # `card:<pci address without the function>`
    statistics: FcPortStatistics = Field(default_factory=FcPortStatistics)
    remote_ports: list[FcRemotePort] = Field(default_factory=list)
    luns: list[FcLun] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def online(self) -> bool:
        return self.port_state == ONLINE

    @computed_field  # type: ignore[prop-decorator]
    @property
    def max_supported_gbps(self) -> float | None:
        """The fastest rate the port supports; compare with `speed_gbps` for a downgrade."""
        return max(self.supported_speeds_gbps, default=None)


class FcAdapter(BaseModel):
    """An FC HBA as a PCI function; a dual-port card is two functions, so two adapters."""

    id: str  # `hba:<pci_address>`
    pci_address: str
    card_address: str  # "0000:04:00": the PCI device (card) the function belongs to
    card_id: str  # `card:<card_address>`
    driver: str | None = None
    model: str | None = None  # from the ports' symbolic names
    firmware_version: str | None = None
    port_ids: list[str] = Field(default_factory=list)  # the physical port first, then NPIV ports


class FcDriverSettings(BaseModel):
    """LUN and HBA queue depth module parameters (`/sys/module/*/parameters/*`).

    None when the driver is not loaded or the parameter does not exist in its version.
    """

    lpfc_lun_queue_depth: int | None = None  # Emulex: I/Os queued per LUN (default 30 or 64)
    lpfc_hba_queue_depth: int | None = None  # Emulex: I/Os queued per HBA
    ql2xmaxqdepth: int | None = None  # QLogic: I/Os queued per LUN (default 32 or 64)


class FcInventory(BaseModel):
    """Every FC port of a host, its adapters and queue depth settings; empty without FC."""

    ports: list[FcPort] = Field(default_factory=list)
    adapters: list[FcAdapter] = Field(default_factory=list)
    driver_settings: FcDriverSettings = Field(default_factory=FcDriverSettings)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def adapter_count(self) -> int:
        """Distinct PCI functions carrying FC ports (ports whose PCI function is unknown
        are not counted)."""
        return len(self.adapters)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def card_count(self) -> int:
        """Distinct PCI devices (cards): a dual-port card counts once."""
        return len({a.card_id for a in self.adapters})

    @computed_field  # type: ignore[prop-decorator]
    @property
    def ports_online(self) -> int:
        return sum(1 for p in self.ports if p.online)

    def port_for_hctl(self, hctl: str) -> FcPort | None:
        """The local port a SCSI device `H:C:T:L` (or a host name `hostH`) hangs off."""
        head = hctl.removeprefix("host").split(":", 1)[0]
        if not head.isdigit():
            return None
        return fc_hosts_for_scsi(self).get(int(head))


def fc_hosts_for_scsi(fc: FcInventory) -> dict[int, FcPort]:
    """SCSI host number -> FC port: the H of a LUN path's H:C:T:L is its fc_host's number.

    Use it to join multipath paths, SCSI disks or `/proc/diskstats` devices to FC ports:
    `fc_hosts_for_scsi(fc).get(int(hctl.split(":")[0]))`.
    """
    return {p.host_number: p for p in fc.ports}
