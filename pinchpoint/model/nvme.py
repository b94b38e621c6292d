"""NVMe subsystems as the kernel's native multipath sees them: controllers, namespaces, paths.

    /sys/class/nvme-subsystem/nvme-subsysN/{subsysnqn,model,serial,firmware_rev,iopolicy}
    /sys/class/nvme-subsystem/nvme-subsysN/nvmeX          a link to each controller present
    /sys/class/nvme-subsystem/nvme-subsysN/nvmeXnY        the multipath head (one per namespace)
    /sys/class/nvme/nvmeX/{transport,address,state,cntlid,numa_node}
    /sys/class/nvme/nvmeX/nvmeXcYnZ/{nsid,wwid,ana_state}  a path: a namespace via a controller
    /sys/class/nvme/nvmeX/nvmeXnY                         a namespace without a head (one path)

A namespace is counted by its WWID (else subsystem and NSID) across the controllers that reach
it; a path is live when its controller is `live` and its ANA state (where the controller reports
one) lets I/O through.
"""

from __future__ import annotations

from pydantic import BaseModel, Field, computed_field

FABRICS = frozenset({"tcp", "rdma", "fc"})  # transports that cross a network
ANA_USABLE = frozenset({"optimized", "non-optimized"})  # states that carry I/O
ANA_OPTIMIZED = "optimized"
CONTROLLER_LIVE = "live"


def nvme_subsystem_id(nqn: str) -> str:
    """`nvme-subsys:<NQN>`: the NQN names the subsystem on every host, the number does not."""
    return "nvme-subsys:" + nqn.strip()


def nvme_namespace_id(subsystem_id: str, nsid: int | None, wwid: str | None) -> str:
    """A namespace: by its WWID where it has one, else by its subsystem and NSID."""
    return f"nvme-ns:{wwid}" if wwid else f"{subsystem_id}/ns:{nsid}"


class NvmeController(BaseModel):
    """One controller `nvmeX`: a connection from this host to the subsystem."""

    name: str  # "nvme2": a name of the moment
    transport: str | None = None  # "pcie", "tcp", "rdma", "fc", "loop"
    address: str | None = None  # as the kernel writes it: "traddr=…,trsvcid=4420" or a PCI address
    state: str | None = None  # "live", "connecting", "resetting", "deleting", "dead"
    cntlid: int | None = None
    numa_node: int | None = None
    target_address: str | None = None  # traddr (a fabrics controller), else the PCI address
    target_port: str | None = None  # trsvcid
    host_interface: str | None = None  # host_iface: the local NIC the connection is bound to
    host_address: str | None = None  # host_traddr or src_addr: the local end
    pci_address: str | None = None  # the PCI function of a PCIe controller

    @computed_field  # type: ignore[prop-decorator]
    @property
    def fabrics(self) -> bool:
        return self.transport in FABRICS

    @computed_field  # type: ignore[prop-decorator]
    @property
    def adapter(self) -> str | None:
        """What this controller's connection leaves the host through: its PCI function, else
        the interface it is bound to, else its local address; None when the kernel says none."""
        if self.pci_address:
            return self.pci_address
        if self.host_interface:
            return f"interface {self.host_interface}"
        if self.host_address:
            return f"local address {self.host_address}"
        return None


class NvmePath(BaseModel):
    """A namespace reached through one controller (`nvmeXcYnZ`, or `nvmeXnY` without a head)."""

    name: str  # "nvme2c2n1"
    controller: str  # "nvme2"
    ana_state: str | None = None  # None: the controller reports no ANA (most PCIe drives)
    ana_group: int | None = None


class NvmeNamespace(BaseModel):
    """A namespace of a subsystem and the paths this host has to it."""

    id: str
    nsid: int | None = None
    wwid: str | None = None  # "eui.…", "uuid.…", "nvme.…"
    head: str | None = None  # the multipath block device "nvme1n1"; None without native multipath
    size_bytes: int | None = None
    paths: list[NvmePath] = Field(default_factory=list)


class NvmeSubsystem(BaseModel):
    """One NVMe subsystem (a drive, or an array's NVMe target) and what this host reaches of it."""

    id: str  # nvme-subsys:<NQN>
    name: str  # "nvme-subsys1"
    nqn: str
    model: str | None = None
    serial: str | None = None
    firmware: str | None = None
    iopolicy: str | None = None  # "numa", "round-robin", "queue-depth"
    controllers: list[NvmeController] = Field(default_factory=list)
    namespaces: list[NvmeNamespace] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def transports(self) -> list[str]:
        return sorted({c.transport for c in self.controllers if c.transport})

    @computed_field  # type: ignore[prop-decorator]
    @property
    def fabrics(self) -> bool:
        """Reached over a network (TCP, RDMA, FC): a path there can fail without the drive."""
        return any(c.fabrics for c in self.controllers)

    def controller(self, name: str) -> NvmeController | None:
        return next((c for c in self.controllers if c.name == name), None)


class NvmeInventory(BaseModel):
    """Every NVMe subsystem of a host; empty when it has none."""

    subsystems: list[NvmeSubsystem] = Field(default_factory=list)
