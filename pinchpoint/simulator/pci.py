"""PCI functions in sysfs: the device directory below its root port, ids, link, driver links.

Every PCI function of a simulated host (SAS HBAs, NICs, FC ports) is written the same way:
`sys/devices/pci<domain>:<bus>/<root port>/<function>` with `vendor`, `device`, `class`,
`numa_node` and the PCIe link attributes, a `driver` link into `sys/bus/pci/drivers/<driver>`
and an entry in `sys/bus/pci/devices`. The root port above gets the same link attributes once.
"""

from __future__ import annotations

from dataclasses import dataclass

from pinchpoint.simulator.naming import pci_host_bridge, pcie_speed_text
from pinchpoint.simulator.spec.values import PcieSpec
from pinchpoint.simulator.tree_writer import TreeWriter

SYS = "sys"
ROOT_PORT_IDS = ("0x8086", "0x2f08")
CLASS_SAS = "0x010700"
CLASS_ETHERNET = "0x020000"
CLASS_FIBRE_CHANNEL = "0x0c0400"


def pci_device_path(address: str, root_port: str) -> str:
    """The function's directory below `sys/`: `devices/pci0000:00/0000:00:03.0/0000:03:00.0`."""
    return f"devices/{pci_host_bridge(root_port)}/{root_port}/{address}"


@dataclass(frozen=True)
class PciIds:
    """What identifies a function: vendor/device, subsystem ids, class code."""

    vendor: str
    device: str
    subsystem_vendor: str
    subsystem_device: str
    class_code: str
    revision: str = "0x01"


class PciWriter:
    """Writes PCI functions, each root port once."""

    def __init__(self, w: TreeWriter) -> None:
        self.w = w
        self.root_ports: set[str] = set()

    def function(
        self,
        address: str,
        root_port: str,
        ids: PciIds,
        driver: str,
        pcie: PcieSpec,
        numa_node: int,
    ) -> str:
        """Write one function and its root port; returns its directory (below the root)."""
        w = self.w
        pci = f"{SYS}/{pci_device_path(address, root_port)}"
        root = pci.rpartition("/")[0]
        link_values = {
            "current_link_speed": pcie_speed_text(pcie.current_gts),
            "current_link_width": str(pcie.current_width),
            "max_link_speed": pcie_speed_text(pcie.max_gts),
            "max_link_width": str(pcie.max_width),
            "numa_node": str(numa_node),
        }
        w.attrs(
            pci,
            {
                "vendor": ids.vendor,
                "device": ids.device,
                "subsystem_vendor": ids.subsystem_vendor,
                "subsystem_device": ids.subsystem_device,
                "class": ids.class_code,
                "revision": ids.revision,
                "enable": "1",
                **link_values,
            },
        )
        w.link(f"{pci}/driver", f"{SYS}/bus/pci/drivers/{driver}")
        w.link(f"{pci}/subsystem", f"{SYS}/bus/pci")
        w.link(f"{SYS}/bus/pci/drivers/{driver}/{address}", pci)
        w.link(f"{SYS}/bus/pci/devices/{address}", pci)
        if root not in self.root_ports:
            self.root_ports.add(root)
            w.attrs(
                root,
                {
                    "vendor": ROOT_PORT_IDS[0],
                    "device": ROOT_PORT_IDS[1],
                    "class": "0x060400",
                    **link_values,
                },
            )
            w.link(f"{root}/subsystem", f"{SYS}/bus/pci")
            w.link(f"{SYS}/bus/pci/devices/{root_port}", root)
        return pci
