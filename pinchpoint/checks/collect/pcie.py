"""PCIe functions read from sysfs: class, ids, driver, NUMA node, link, and place in the tree.

A function's directory is `/sys/bus/pci/devices/<address>`, a link into the device tree:
`/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0`. The PCI addresses in that path are the
bridges the function hangs from (root port first), and `pci0000:00` is its root complex, so the
place needs no reads beyond the link. Each bridge's own link is read once and shared by every
function below it.

A snapshot may hold only part of the tree (the real capture in tests does): a function missing
from `/sys/bus/pci/devices` is looked for in the device tree, a dangling link is reported, and
a dangling `driver` link still names the driver (its target is all that is needed).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable

from pinchpoint.checks.collect.collector import Collector, Progress
from pinchpoint.checks.source import Source, SourceError
from pinchpoint.checks.source.sysfs import ProblemLog, SysfsReader
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.pcie import (
    PcieInventory,
    PcieLink,
    PciFunction,
    PciKind,
    pci_card_address,
    pci_function_id,
)
from pinchpoint.model.problems import ProblemKind

__all__ = [
    "COLLECTED_KINDS",
    "PcieParseError",
    "collect_pcie",
    "kind_of_class",
    "parse_class_code",
    "parse_link_speed",
    "pci_function",
    "place_in_tree",
]

PART = "pcie"
BUS_DEVICES = "/sys/bus/pci/devices"
DEVICES = "/sys/devices"
CLASS_NVME = "/sys/class/nvme"
# The kinds `collect_pcie` lists when not given addresses: the I/O path's adapters and drives.
COLLECTED_KINDS = frozenset({PciKind.STORAGE, PciKind.NVME, PciKind.NETWORK, PciKind.FIBRE_CHANNEL})

# A PCI function directory name: "0000:03:00.0"; VMD domains have 5 hex digits ("10000:01:00.0").
PCI_ADDRESS = re.compile(r"^[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
# The short form lspci prints without -D: "03:00.0" (domain 0000 implied).
_SHORT_ADDRESS = re.compile(r"^[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
# A root complex (host bridge) directory: "pci0000:00", "pci10000:00" behind a VMD.
_ROOT_BUS = re.compile(r"^pci[0-9a-f]{4,8}:[0-9a-f]{2}$")
# `current_link_speed`: "8.0 GT/s PCIe" (4.13+), "8 GT/s", "2.5 GT/s"; captures the number.
_SPEED = re.compile(r"^([0-9]+(?:\.[0-9]+)?) ?GT/s(?: PCIe)?$")
# `class`, `vendor`, `device`: "0x010700", "0x1000".
_HEX = re.compile(r"^0x([0-9a-fA-F]+)$")

_UNKNOWN_SPEED = "Unknown"  # what the kernel prints for a link it cannot (or need not) decode


class PcieParseError(ValueError):
    """A PCI attribute does not read as the kernel writes it; the message says what was found."""


def parse_link_speed(text: str) -> float | None:
    """`8.0 GT/s PCIe` -> 8.0; `Unknown` -> None; anything else raises `PcieParseError`."""
    value = text.strip()
    if value == _UNKNOWN_SPEED:
        return None
    match = _SPEED.match(value)
    if match is None:
        raise PcieParseError(
            f"expected a link speed like '8.0 GT/s PCIe' or 'Unknown', found {value!r}"
        )
    return float(match.group(1))


def parse_class_code(text: str) -> str:
    """`0x010700` -> `0x010700` (six hex digits, lower case); raises `PcieParseError`."""
    value = text.strip()
    match = _HEX.match(value)
    if match is None or len(match.group(1)) > 6:
        raise PcieParseError(f"expected a class code like '0x010700', found {value!r}")
    return f"0x{int(match.group(1), 16):06x}"


def kind_of_class(class_code: str | None) -> PciKind:
    """The kind of function a normalised class code (`0x010802`) names."""
    if class_code is None:
        return PciKind.OTHER
    code = int(class_code, 16)
    base, sub = code >> 16, (code >> 8) & 0xFF
    if base == 0x01:
        return PciKind.NVME if sub == 0x08 else PciKind.STORAGE
    if base == 0x02:
        return PciKind.NETWORK
    if base == 0x0C and sub == 0x04:
        return PciKind.FIBRE_CHANNEL
    if base == 0x06 and sub == 0x04:
        return PciKind.BRIDGE
    return PciKind.OTHER


def place_in_tree(device_path: str) -> tuple[str | None, list[str]]:
    """(root complex, bridges root port first) of the function at `device_path`.

    `/sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0` -> (`pci0000:00`, [`0000:00:03.0`]).
    Behind a VMD the nearest root complex counts (`pci10000:00`).
    """
    parts = [p for p in device_path.split("/") if p]
    root: str | None = None
    bridges: list[str] = []
    for part in parts[:-1]:
        if _ROOT_BUS.match(part):
            root, bridges = part, []
        elif root is not None and PCI_ADDRESS.match(part):
            bridges.append(part)
    return root, bridges


def normalise_address(text: str) -> str | None:
    """`0000:03:00.0` or lspci's `03:00.0` -> `0000:03:00.0`; None when it is neither."""
    value = text.strip().lower()
    if PCI_ADDRESS.match(value):
        return value
    if _SHORT_ADDRESS.match(value):
        return "0000:" + value
    return None


def _hex_id(text: str | None) -> str | None:
    """`0x1000` -> `0x1000`; anything not hex is kept as read (it is only shown)."""
    if text is None:
        return None
    match = _HEX.match(text)
    return f"0x{match.group(1).lower()}" if match else text


class PcieWalker:
    """Finds PCI functions in one source and reads what the inventory keeps of them."""

    def __init__(self, source: Source, log: ProblemLog) -> None:
        self.source = source
        self.log = log
        self.read = SysfsReader(source, PART, log)
        self._links: dict[str, PcieLink] = {}  # device path -> link, one read per bridge
        self._tree: dict[str, str] | None = None  # address -> device path, walked on demand

    # -- finding functions ---------------------------------------------------------------

    def device_path(self, address: str) -> str | None:
        """The device directory of `address`, through the bus link, else the device tree."""
        bus_entry = f"{BUS_DEVICES}/{address}"
        if self.source.is_link(bus_entry) or self.source.exists(bus_entry):
            return self._resolved(bus_entry)
        return self.tree().get(address)

    def _resolved(self, entry: str) -> str | None:
        """Where a `/sys/bus/pci/devices` entry leads; None (and a problem) if nowhere."""
        try:
            path = self.source.resolve(entry)
        except SourceError as err:
            self.log.add(PART, entry, err.kind, f"not collected: {err.reason}")
            return None
        if not self.source.is_dir(path):
            why = (
                f"dangling symlink to {path} (the function's directory is missing: "
                "a partial capture, or the device was removed)"
                if self.source.is_link(entry)
                else "not a directory nor a link to one"
            )
            self.log.add(PART, entry, ProblemKind.UNREADABLE, f"not collected: {why}")
            return None
        return path

    def bus_functions(self) -> dict[str, str | None]:
        """Every function `/sys/bus/pci/devices` lists, with its device path."""
        found: dict[str, str | None] = {}
        for name in self.read.entries(BUS_DEVICES):
            address = normalise_address(name)
            if address is not None:
                found[address] = self._resolved(f"{BUS_DEVICES}/{name}")
        return found

    def tree(self) -> dict[str, str]:
        """Every function below `/sys/devices/pci*`, found by walking PCI directories only."""
        if self._tree is not None:
            return self._tree
        found: dict[str, str] = {}
        todo = [f"{DEVICES}/{name}" for name in self.read.entries(DEVICES) if _ROOT_BUS.match(name)]
        while todo:
            directory = todo.pop()
            for name in self.read.entries(directory):
                if PCI_ADDRESS.match(name):
                    found[name] = f"{directory}/{name}"
                    todo.append(f"{directory}/{name}")
                elif _ROOT_BUS.match(name):  # a VMD domain nested below its endpoint
                    todo.append(f"{directory}/{name}")
        self._tree = found
        return found

    def nvme_functions(self) -> dict[str, str | None]:
        """The PCI functions of NVMe controllers (`/sys/class/nvme/nvmeX/device`)."""
        found: dict[str, str | None] = {}
        for name in self.read.entries(CLASS_NVME):
            link = f"{CLASS_NVME}/{name}/device"
            if not self.source.is_link(link):
                continue  # not captured, or not a device link
            address = normalise_address(self.read.link_name(link) or "")
            if address is not None:  # NVMe over fabrics controllers lead to no PCI function
                found[address] = self._resolved(link)
        return found

    # -- reading one function ------------------------------------------------------------

    def class_code(self, path: str) -> str | None:
        text = self.read.value(f"{path}/class")
        if text is None:
            return None
        try:
            return parse_class_code(text)
        except PcieParseError as err:
            self.log.add(PART, f"{path}/class", ProblemKind.GARBLED, f"kind not known: {err}")
            return None

    def function(self, address: str, path: str | None, class_code: str | None) -> PciFunction:
        """The facts of one function; `class_code` as already read by the caller."""
        found = PciFunction(
            id=pci_function_id(address),
            pci_address=address,
            card_address=pci_card_address(address),
            device_path=path,
        )
        if path is None:
            return found
        read = self.read
        found.class_code = class_code
        found.kind = kind_of_class(class_code)
        found.vendor_id = _hex_id(read.value(f"{path}/vendor"))
        found.device_id = _hex_id(read.value(f"{path}/device"))
        found.subsystem_vendor_id = _hex_id(read.value(f"{path}/subsystem_vendor"))
        found.subsystem_device_id = _hex_id(read.value(f"{path}/subsystem_device"))
        found.driver = read.link_name(f"{path}/driver")  # absent when no driver is bound
        numa = read.integer(f"{path}/numa_node")
        found.numa_node = numa if numa is not None and numa >= 0 else None
        found.virtual_function = self.source.is_link(f"{path}/physfn")
        found.link = self.link(path)
        found.root_complex, found.bridges = place_in_tree(path)
        if found.bridges:
            found.root_port = found.bridges[0]
            found.upstream_port = found.bridges[-1]
            upstream_link = self.link(posixpath.dirname(path))
            found.upstream_link = None if upstream_link.is_empty() else upstream_link
        return found

    def link(self, path: str) -> PcieLink:
        """The link attributes of the function (or bridge) at `path`, read once per path."""
        cached = self._links.get(path)
        if cached is not None:
            return cached
        current = self.read.value(f"{path}/current_link_speed")
        maximum = self.read.value(f"{path}/max_link_speed")
        link = PcieLink(
            current_speed_gts=self._speed(f"{path}/current_link_speed", current),
            max_speed_gts=self._speed(f"{path}/max_link_speed", maximum),
            current_width=self.read.integer(f"{path}/current_link_width"),
            max_width=self.read.integer(f"{path}/max_link_width"),
            current_speed_text=current,
            max_speed_text=maximum,
        )
        self._links[path] = link
        return link

    def _speed(self, attribute: str, text: str | None) -> float | None:
        if text is None:
            return None
        try:
            return parse_link_speed(text)
        except PcieParseError as err:
            self.log.add(PART, attribute, ProblemKind.GARBLED, f"link speed not collected: {err}")
            return None


def pci_function(source: Source, pci_address: str, log: ProblemLog) -> PciFunction:
    """The function at `pci_address` ("0000:03:00.0"); a problem says why if it is not found."""
    return _function_at(PcieWalker(source, log), pci_address)


def _function_at(walker: PcieWalker, pci_address: str) -> PciFunction:
    """`pci_function` with a walker that may be shared (bridge links are then read once)."""
    source, log = walker.source, walker.log
    address = normalise_address(pci_address)
    if address is None:
        log.add(
            PART,
            pci_address,
            ProblemKind.GARBLED,
            f"not collected: expected a PCI address like '0000:03:00.0', found {pci_address!r}",
        )
        return PciFunction(
            id=pci_function_id(pci_address), pci_address=pci_address, card_address=pci_address
        )
    path = walker.device_path(address)
    bus_entry = f"{BUS_DEVICES}/{address}"
    if path is None and not (source.is_link(bus_entry) or source.exists(bus_entry)):
        log.add(
            PART,
            bus_entry,
            ProblemKind.MISSING,
            "not collected: no such PCI function on this host (removed, or not captured)",
        )
    return walker.function(address, path, walker.class_code(path) if path else None)


def collect_pcie(
    source: Source, log: ProblemLog, addresses: Iterable[str] | None = None
) -> PcieInventory:
    """The given functions, or every storage, NVMe, network and FC function of the host.

    Without `addresses`, SR-IOV virtual functions are left out: they share their physical
    function's link, which is listed.
    """
    walker = PcieWalker(source, log)
    if addresses is not None:
        return PcieInventory(functions=[_function_at(walker, a) for a in addresses])
    candidates = walker.bus_functions()
    for address, path in (walker.tree() | walker.nvme_functions()).items():
        candidates.setdefault(address, path)  # a partial capture's bus list lacks some
    functions = []
    for address in sorted(candidates):
        path = candidates[address]
        if path is None:
            continue  # already reported: a dangling bus link
        class_code = walker.class_code(path)
        if kind_of_class(class_code) not in COLLECTED_KINDS:
            continue
        if source.is_link(f"{path}/physfn"):
            continue
        functions.append(walker.function(address, path, class_code))
    return PcieInventory(functions=functions)


def read_pcie(source: Source, problems: ProblemLog, inventory: Inventory, say: Progress) -> None:
    """The PCIe part of the inventory: every storage, NVMe, network and FC function's link."""
    inventory.pcie = collect_pcie(source, problems)


COLLECTOR = Collector(part=PART, says="reading PCIe links", read=read_pcie)
