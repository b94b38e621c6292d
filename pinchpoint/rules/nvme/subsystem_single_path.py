"""`nvme.subsystem.single_path`: a namespace of a fabrics-attached or multi-controller NVMe
subsystem reached through fewer than two live paths, all through one adapter, with a path down
beside working ones, or with no optimized path where the subsystem's other namespaces have one."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from pinchpoint.model.fc import normalise_wwn
from pinchpoint.model.findings import EntityRef, Evidence, Fact, Severity
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.nvme import (
    ANA_OPTIMIZED,
    ANA_USABLE,
    CONTROLLER_LIVE,
    NvmeController,
    NvmeSubsystem,
)
from pinchpoint.model.pcie import pci_card_address
from pinchpoint.naming import nvme_namespace_ref, nvme_subsystem_ref
from pinchpoint.rules.base import Hit, Input, Limits, Rule, RuleContext, Threshold

_WWPN = re.compile(r"pn-(0x[0-9a-f]{16})", re.I)


def adapter_of(controller: NvmeController, inventory: Inventory) -> str | None:
    """What a controller's connection leaves the host through, as a card where the inventory
    knows it: the two ports of one dual-port NIC or FC card are one point of failure.

    A PCIe controller: its own PCI function (a dual-ported drive's two ports are two). Bound to
    an interface (`host_iface`): that NIC's card. An FC host port (`host_traddr=nn-…:pn-…`):
    that FC port's card. Else its local address; None when the kernel says nothing of it."""
    if controller.pci_address:
        return controller.pci_address
    if controller.host_interface:
        nic = next((n for n in inventory.network.nics if n.name == controller.host_interface), None)
        if nic is not None and nic.pci_address:
            return f"NIC card {pci_card_address(nic.pci_address)}"
        return f"interface {controller.host_interface}"
    if controller.host_address:
        wwpn = _WWPN.search(controller.host_address)
        if wwpn:
            wanted = normalise_wwn(wwpn.group(1))
            for port in inventory.fc.ports:
                if port.port_name and normalise_wwn(port.port_name) == wanted and port.pci_address:
                    return f"FC card {pci_card_address(port.pci_address)}"
        return f"local address {controller.host_address}"
    return None


@dataclass(frozen=True)
class _Path:
    name: str  # nvme2c2n1, or the controller's name where no namespace is seen
    controller: NvmeController
    ana_state: str | None

    @property
    def live(self) -> bool:
        """I/O can go down it: its controller is live and its ANA state (if any) lets I/O in."""
        return self.controller.state == CONTROLLER_LIVE and (
            self.ana_state is None or self.ana_state in ANA_USABLE
        )

    @property
    def optimized(self) -> bool:
        return self.live and self.ana_state == ANA_OPTIMIZED

    def words(self) -> str:
        """`nvme2c2n1 via nvme2 (tcp to 192.168.154.10:4421 from interface eth1): live
        optimized`."""
        c = self.controller
        target = c.target_address or "?"
        if c.target_port:
            target += f":{c.target_port}"
        route = f"{c.transport or '?'} to {target}"
        if c.adapter and c.adapter != c.target_address:
            route += f" from {c.adapter}"
        states = " ".join(s for s in (c.state or "state unknown", self.ana_state) if s)
        head = self.name if self.name == c.name else f"{self.name} via {c.name}"
        return f"{head} ({route}): {states}"


def in_scope(subsystem: NvmeSubsystem) -> bool:
    """A subsystem whose paths can fail apart from the drive: reached over a fabric, or through
    more than one controller. A local SSD with one controller is not."""
    return subsystem.fabrics or len(subsystem.controllers) >= 2


def _units(subsystem: NvmeSubsystem) -> Iterator[tuple[EntityRef, list[_Path], bool]]:
    """Each namespace with its paths (and whether it has one optimized), or the subsystem
    itself with its controllers as paths when no namespace is seen."""
    if not subsystem.namespaces:
        paths = [_Path(c.name, c, None) for c in subsystem.controllers]
        yield nvme_subsystem_ref(subsystem), paths, False
        return
    for namespace in subsystem.namespaces:
        paths = []
        for path in namespace.paths:
            controller = subsystem.controller(path.controller)
            if controller is not None:
                paths.append(_Path(path.name, controller, path.ana_state))
        yield nvme_namespace_ref(namespace, subsystem), paths, True


def _judge_unit(
    ref: EntityRef,
    paths: list[_Path],
    peers_optimized: bool,
    limits: Limits,
    inventory: Inventory,
) -> Hit | None:
    live = [p for p in paths if p.live]
    down = [p for p in paths if not p.live]
    adapters = {adapter_of(p.controller, inventory) for p in live}
    minimum = limits.number("min_live_paths", ref.id)
    reasons: list[str] = []
    titles: list[str] = []
    if len(live) < minimum:
        count = f"{len(live)} live path{'' if len(live) == 1 else 's'}" if live else "no live path"
        titles.append(f"{ref.name} has {count}")
        reasons.append(
            f"{len(live)} of {len(paths)} paths live where {minimum:g} are expected: "
            + ("losing that one path stops its I/O" if live else "its I/O fails or waits")
        )
    elif len(live) >= 2 and None not in adapters and len(adapters) == 1:
        (adapter,) = adapters
        titles.append(f"all {len(live)} paths of {ref.name} leave through one adapter")
        reasons.append(
            f"every live path leaves through {adapter}: one failure there cuts all "
            f"({', '.join(p.words() for p in live)})"
        )
    if down and live:
        titles.append(f"{len(down)} of {len(paths)} paths of {ref.name} down")
        reasons.append("down: " + "; ".join(p.words() for p in down))
    elif down:
        reasons.append("down: " + "; ".join(p.words() for p in down))
    has_ana = any(p.ana_state for p in paths)
    if has_ana and live and peers_optimized and not any(p.optimized for p in live):
        titles.append(f"{ref.name} has no optimized path")
        reasons.append(
            "no live path is ANA optimized while the subsystem's other namespaces have one: "
            "its I/O takes the slower, non-owning route"
        )
    if not titles:
        return None
    facts = [
        Fact(name="paths", value=len(paths)),
        Fact(name="live paths", value=len(live)),
        Fact(name="live paths expected", value=minimum),
        Fact(name="adapters of live paths", value=len({a for a in adapters if a})),
    ]
    facts += [Fact(name="path", value=p.words()) for p in paths]
    return Hit(
        entity=ref,
        title=titles[0],
        severity=Severity.WARNING,
        evidence=[Evidence(summary=f"{ref.name}: " + "; ".join(reasons), facts=facts)],
    )


def judge(context: RuleContext, limits: Limits) -> Iterator[Hit]:
    """Namespaces of fabrics-attached or multi-controller subsystems with too few live paths,
    all through one adapter, a path down, or no optimized path where their peers have one."""
    for subsystem in context.inventory.nvme.subsystems:
        if not in_scope(subsystem):
            continue
        units = list(_units(subsystem))
        optimized = [any(p.optimized for p in paths) for _, paths, _ in units]
        for index, (ref, paths, is_namespace) in enumerate(units):
            peers = is_namespace and any(o for i, o in enumerate(optimized) if i != index)
            hit = _judge_unit(ref, paths, peers, limits, context.inventory)
            if hit is not None:
                yield hit


RULE = Rule(
    id="nvme.subsystem.single_path",
    title="NVMe namespace with a single path",
    severity=Severity.WARNING,
    needs=(Input.NVME,),
    remediation=(
        "`nvme list-subsys` shows each controller of the subsystem with its state and ANA state. "
        "For NVMe over TCP or RDMA: connect a second path through another interface and target "
        "port (`nvme connect -t tcp -a <portal> -s 4420 -n <NQN> --host-iface <second NIC>`, "
        "and the same in /etc/nvme/discovery.conf so it returns after a reboot); for NVMe/FC: "
        "zone a second HBA port to the array. A controller `connecting` or `dead`: check the "
        "network or fabric path and the array port behind it. No optimized path: check on the "
        "array which controller owns the namespace and that this host reaches it. A dual-ported "
        "PCIe drive: check both ports are cabled to the backplane and the second controller "
        "shows in `nvme list-subsys`."
    ),
    judge=judge,
    doc=(
        "The kernel's native NVMe multipath sends a namespace's I/O down every live path of its "
        "subsystem (`/sys/class/nvme-subsystem`); a path is live when its controller is `live` "
        "and its ANA state, where the subsystem reports one, is optimized or non-optimized. "
        "The rule judges subsystems reached over a fabric (TCP, RDMA, FC) or through more than "
        "one controller: a namespace with fewer than two live paths, with all live paths "
        "leaving through one adapter (a PCIe controller's PCI function; the card of the NIC "
        "given as host_iface or of the FC port given as host_traddr, so two ports of one "
        "dual-port card are one adapter; else the local address), with a path down beside "
        "working ones, or with no optimized path "
        "while the subsystem's other namespaces have one. Non-optimized paths beside an "
        "optimized one are asymmetric access by design and stay quiet, as does a local SSD "
        "with one controller. A subsystem whose namespaces are not seen is judged by its "
        "controllers."
    ),
    thresholds={
        "min_live_paths": Threshold(2, "Live paths a namespace should have.", "paths"),
    },
)
