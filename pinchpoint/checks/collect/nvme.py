"""NVMe subsystems, their controllers, namespaces and paths with ANA state, from sysfs.

    /sys/class/nvme-subsystem/nvme-subsysN/{subsysnqn,model,serial,firmware_rev,iopolicy}
    /sys/class/nvme-subsystem/nvme-subsysN/nvmeX -> the controller (one link per controller)
    /sys/class/nvme-subsystem/nvme-subsysN/nvmeXnY/{nsid,wwid,size}   a multipath head
    /sys/class/nvme/nvmeX/{transport,address,state,cntlid,numa_node}
    /sys/class/nvme/nvmeX/nvmeXcYnZ/{nsid,wwid,ana_state,ana_grpid}    a path of a head
    /sys/class/nvme/nvmeX/nvmeXnY/{nsid,wwid,size}                     a namespace with no head
    /sys/class/nvme-fabrics/ctl                                        fabrics support loaded

Both layouts are real and may sit side by side (libnvme's sysfs capture of an IBM POWER host,
tests/fixtures/nvme: a single-controller PM1743 whose nvme0n1 hangs below its controller, and
a dual-ported PM1735a reached through two controllers with a head nvme1n1 and paths nvme1c1n1,
nvme1c2n1). Nothing here runs a tool: `capture` records what these reads touch.
"""

from __future__ import annotations

import re

from pinchpoint.checks.collect.collector import Collector, Progress
from pinchpoint.checks.parse.nvme_address import parse_nvme_address
from pinchpoint.checks.parse.sysfs_values import pci_address_above
from pinchpoint.checks.source import Source
from pinchpoint.checks.source.sysfs import ProblemLog, SysfsReader
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.nvme import (
    NvmeController,
    NvmeInventory,
    NvmeNamespace,
    NvmePath,
    NvmeSubsystem,
    nvme_namespace_id,
    nvme_subsystem_id,
)
from pinchpoint.model.problems import ProblemKind
from pinchpoint.plurals import plural

__all__ = ["collect_nvme"]

PART = "nvme"
SUBSYSTEMS = "/sys/class/nvme-subsystem"
CONTROLLERS = "/sys/class/nvme"  # listed only to tell an older snapshot
MAX_TEXT = 256

_SUBSYS = re.compile(r"^nvme-subsys(\d+)$")
_CONTROLLER = re.compile(r"^nvme(\d+)$")
_NAMESPACE = re.compile(r"^nvme(\d+)n(\d+)$")  # a head, or a namespace without one
_PATH = re.compile(r"^nvme(\d+)c(\d+)n(\d+)$")


def _number(name: str) -> tuple[int, ...]:
    return tuple(int(n) for n in re.findall(r"\d+", name))


def _printable(text: str | None) -> str | None:
    """Host text kept only as printable characters, cut to a sane length."""
    if text is None:
        return None
    kept = "".join(c for c in text if c.isprintable()).strip()
    return kept[:MAX_TEXT] or None


class _Reader:
    def __init__(self, source: Source, log: ProblemLog) -> None:
        self.source = source
        self.log = log
        self.read = SysfsReader(source, PART, log)

    def controller(self, name: str, entry: str) -> tuple[NvmeController, str | None]:
        """The controller `name` (its `entry` in the subsystem's directory, a link to the
        controller's device) and that directory (None when it leads nowhere)."""
        path = self.read.directory(entry, "the controller's directory {path} is not there")
        if path is None:
            return NvmeController(name=name), None
        transport = _printable(self.read.value(f"{path}/transport"))
        raw = self.read.value(f"{path}/address") or ""
        address = parse_nvme_address(raw)
        if address.garbled:
            self.log.add(
                PART,
                f"{path}/address",
                ProblemKind.GARBLED,
                f"parts of {name}'s address not understood: {', '.join(address.garbled)!r}",
            )
        pci = address.pci_address
        if transport == "pcie" and pci is None:
            pci = pci_address_above(path, name)
        found = NvmeController(
            name=name,
            transport=transport,
            address=_printable(raw),
            state=_printable(self.read.value(f"{path}/state")),
            cntlid=self.read.integer(f"{path}/cntlid"),
            numa_node=self.read.integer(f"{path}/numa_node"),
            target_address=address.traddr or pci,
            target_port=address.trsvcid,
            host_interface=address.host_iface,
            host_address=address.host_traddr or address.src_addr,
            pci_address=pci if transport == "pcie" else None,
        )
        return found, path

    def namespace_facts(self, path: str) -> tuple[int | None, str | None, int | None]:
        """nsid, wwid and size in bytes of a namespace, head or path device."""
        sectors = self.read.integer(f"{path}/size")
        return (
            self.read.integer(f"{path}/nsid"),
            _printable(self.read.value(f"{path}/wwid")),
            sectors * 512 if sectors is not None else None,
        )

    def subsystem(self, name: str) -> NvmeSubsystem | None:
        path = self.read.directory(f"{SUBSYSTEMS}/{name}", "{path} is not there")
        if path is None:
            return None
        nqn = _printable(self.read.value(f"{path}/subsysnqn"))
        if nqn is None:
            self.log.add(
                PART, f"{path}/subsysnqn", ProblemKind.MISSING, f"{name} has no subsysnqn: skipped"
            )
            return None
        found = NvmeSubsystem(
            id=nvme_subsystem_id(nqn),
            name=name,
            nqn=nqn,
            model=_printable(self.read.value(f"{path}/model")),
            serial=_printable(self.read.value(f"{path}/serial")),
            firmware=_printable(self.read.value(f"{path}/firmware_rev")),
            iopolicy=_printable(self.read.value(f"{path}/iopolicy")),
        )
        entries = self.read.entries(path)
        namespaces: dict[str, NvmeNamespace] = {}

        def namespace(nsid: int | None, wwid: str | None) -> NvmeNamespace:
            key = wwid or f"nsid {nsid}"
            if key not in namespaces:
                namespaces[key] = NvmeNamespace(
                    id=nvme_namespace_id(found.id, nsid, wwid), nsid=nsid, wwid=wwid
                )
            return namespaces[key]

        for head in sorted((e for e in entries if _NAMESPACE.match(e)), key=_number):
            nsid, wwid, size = self.namespace_facts(f"{path}/{head}")
            ns = namespace(nsid, wwid)
            ns.head, ns.size_bytes = head, size
        for ctrl_name in sorted((e for e in entries if _CONTROLLER.match(e)), key=_number):
            controller, ctrl_dir = self.controller(ctrl_name, f"{path}/{ctrl_name}")
            found.controllers.append(controller)
            if ctrl_dir is None:
                continue
            for entry in sorted(self.read.entries(ctrl_dir), key=_number):
                if _PATH.match(entry):
                    nsid, wwid, _ = self.namespace_facts(f"{ctrl_dir}/{entry}")
                    ana = _printable(self.read.value(f"{ctrl_dir}/{entry}/ana_state"))
                    group = self.read.integer(f"{ctrl_dir}/{entry}/ana_grpid")
                    namespace(nsid, wwid).paths.append(
                        NvmePath(name=entry, controller=ctrl_name, ana_state=ana, ana_group=group)
                    )
                elif _NAMESPACE.match(entry):  # no head: the namespace is this one path
                    nsid, wwid, size = self.namespace_facts(f"{ctrl_dir}/{entry}")
                    ns = namespace(nsid, wwid)
                    ns.size_bytes = ns.size_bytes or size
                    ns.paths.append(NvmePath(name=entry, controller=ctrl_name))
        found.namespaces = sorted(
            namespaces.values(), key=lambda n: (n.nsid is None, n.nsid or 0, n.id)
        )
        return found


def _collect(source: Source, log: ProblemLog) -> NvmeInventory:
    reader = _Reader(source, log)
    names = sorted((n for n in reader.read.entries(SUBSYSTEMS) if _SUBSYS.match(n)), key=_number)
    if not names and not source.exists(SUBSYSTEMS):
        controllers = [n for n in reader.read.entries(CONTROLLERS) if _CONTROLLER.match(n)]
        if controllers:
            log.add(
                PART,
                SUBSYSTEMS,
                ProblemKind.MISSING,
                f"not collected: {SUBSYSTEMS} is absent although "
                f"{plural(len(controllers), 'NVMe controller')} "
                f"{'is' if len(controllers) == 1 else 'are'} listed (a snapshot captured before "
                "pinchpoint read NVMe subsystems, or a kernel older than 4.15)",
            )
        return NvmeInventory()
    subsystems = [s for n in names if (s := reader.subsystem(n)) is not None]
    return NvmeInventory(subsystems=subsystems)


def collect_nvme(source: Source, log: ProblemLog) -> NvmeInventory:
    """Every NVMe subsystem with its controllers, namespaces and paths; empty, silently, on a
    host without NVMe. Never raises: failures are problems in `log`, the rest stands."""
    try:
        return _collect(source, log)
    except Exception as err:  # the safety net: a collector bug must not lose the report
        log.add(PART, "nvme", ProblemKind.FAILED, f"not collected: {err!r}")
        return NvmeInventory()


def read_nvme(source: Source, problems: ProblemLog, inventory: Inventory, say: Progress) -> None:
    inventory.nvme = collect_nvme(source, problems)


COLLECTOR = Collector(part=PART, says="reading NVMe subsystems and paths", read=read_nvme)
