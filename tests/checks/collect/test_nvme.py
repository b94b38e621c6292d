"""NVMe subsystems, controllers, namespaces and paths: from libnvme's real sysfs capture, the
procfs fixture, simulated NVMe-oF hosts, and damaged trees that must not stop the collection."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fixture_paths import FIXTURES, ROOT, SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.collect.nvme import collect_nvme
from pinchpoint.checks.source import RecordingSource, SnapshotSource
from pinchpoint.checks.source.sysfs import ProblemLog
from pinchpoint.model.nvme import NvmeInventory
from pinchpoint.model.problems import ProblemKind
from pinchpoint.simulator import load_spec, write_snapshot

DUALPORT = FIXTURES / "nvme" / "pcie-dualport"
PROCFS = FIXTURES / "snapshots" / "procfs-mpt3sas"
SUBSYS1 = "sys/devices/virtual/nvme-subsystem/nvme-subsys1"
NVME2 = "sys/devices/pci058e:78/058e:78:00.0/nvme/nvme2"


def collect(root: Path) -> tuple[NvmeInventory, list[str]]:
    log = ProblemLog()
    return collect_nvme(SnapshotSource(root), log), [p.line() for p in log.problems()]


@pytest.fixture
def dualport(tmp_path: Path) -> Path:
    target = tmp_path / "dualport"
    shutil.copytree(DUALPORT, target, symlinks=True)
    return target


def simulated(tmp_path: Path, spec: Path) -> Path:
    out = tmp_path / spec.stem
    write_snapshot(load_spec(spec), out)
    return out


def test_the_real_dual_ported_drive_has_one_namespace_through_two_controllers() -> None:
    nvme, problems = collect(DUALPORT)
    assert problems == []
    single, dual = nvme.subsystems
    assert single.name == "nvme-subsys0" and single.model == "3.2TB NVMe Gen4 U.2 SSD V"
    assert [(c.name, c.transport, c.state) for c in single.controllers] == [
        ("nvme0", "pcie", "live")
    ]
    (ns0,) = single.namespaces
    assert ns0.head is None and [p.name for p in ns0.paths] == ["nvme0n1"]  # no head
    assert dual.nqn == "nqn.1994-11.com.samsung:nvme:PM1735a:2.5-inch:S6RTNE0R900057"
    assert [(c.name, c.pci_address, c.numa_node, c.cntlid) for c in dual.controllers] == [
        ("nvme1", "052e:78:00.0", 0, 66),
        ("nvme2", "058e:78:00.0", 2, 65),
    ]
    (ns,) = dual.namespaces
    assert (ns.nsid, ns.head, ns.wwid) == (1, "nvme1n1", "eui.36525430529000570025384500000001")
    assert [(p.name, p.controller, p.ana_state) for p in ns.paths] == [
        ("nvme1c1n1", "nvme1", None),  # a PCIe drive without ANA
        ("nvme1c2n1", "nvme2", None),
    ]
    assert not dual.fabrics and dual.transports == ["pcie"]


def test_the_procfs_fixture_has_fabrics_controllers_without_namespaces() -> None:
    nvme, problems = collect(PROCFS)
    assert problems == []
    fc, tcp = nvme.subsystems
    assert [(c.transport, c.state, c.target_address) for c in fc.controllers] == [
        ("fc", "live", "nn-0x200400a0986b4321:pn-0x210400a0986b4321"),
        ("fc", "live", "nn-0x200400a0986b4322:pn-0x210400a0986b4322"),
        ("fc", "dead", "nn-0x200400a0986b4323:pn-0x210400a0986b4323"),
    ]
    assert [(c.transport, c.state, c.target_address, c.target_port) for c in tcp.controllers] == [
        ("tcp", "live", "10.0.0.1", "4420"),
        ("rdma", "connecting", "10.0.0.2", "4420"),
    ]
    assert fc.fabrics and tcp.transports == ["rdma", "tcp"] and not tcp.namespaces


def test_simulated_show_topology_host_reads_back(tmp_path: Path) -> None:
    """nvme-cli PR 1693's host as a spec: four TCP controllers, four namespaces, each optimized
    on one controller; the local SSD beside it is a subsystem of its own."""
    nvme, problems = collect(simulated(tmp_path, SPECS / "nvme_tcp_four_paths.toml"))
    assert problems == []
    local, target = nvme.subsystems
    assert [c.transport for c in local.controllers] == ["pcie"]
    assert target.nqn == "nvmet-test" and len(target.controllers) == 4
    ports = [(c.name, c.target_address, c.target_port) for c in target.controllers]
    assert ports == [
        ("nvme1", "192.168.154.10", "4421"),
        ("nvme2", "192.168.154.10", "4420"),
        ("nvme3", "192.168.154.10", "4422"),
        ("nvme4", "192.168.154.10", "4423"),
    ]
    optimized = {
        ns.nsid: [p.controller for p in ns.paths if p.ana_state == "optimized"]
        for ns in target.namespaces
    }
    assert optimized == {1: ["nvme2"], 2: ["nvme1"], 3: ["nvme3"], 4: ["nvme4"]}
    assert all(len(ns.paths) == 4 and ns.head for ns in target.namespaces)


def test_simulated_single_path_host_says_which_interface(tmp_path: Path) -> None:
    spec = ROOT / "pinchpoint" / "simulator" / "specs" / "nvme_tcp_single_path.toml"
    nvme, _ = collect(simulated(tmp_path, spec))
    target = nvme.subsystems[1]
    assert [(c.state, c.adapter) for c in target.controllers] == [
        ("connecting", "interface ens1f0"),
        ("live", "interface ens1f1"),
    ]


def test_capture_records_what_the_collector_read(tmp_path: Path) -> None:
    """`capture` on the real tree: the snapshot it writes reads back the same subsystems."""
    out = tmp_path / "capture"
    live = collect_nvme(RecordingSource(out, root=str(DUALPORT)), ProblemLog())
    (out / "manifest.json").write_text('{"format": "pinchpoint-snapshot", "version": 1}\n')
    again, problems = collect(out)
    assert problems == [] and again == live


def test_an_older_snapshot_without_subsystems_says_so(dualport: Path) -> None:
    shutil.rmtree(dualport / "sys/class/nvme-subsystem")
    nvme, problems = collect(dualport)
    assert nvme.subsystems == []
    assert len(problems) == 1 and "nvme-subsystem is absent although 3 NVMe" in problems[0]
    inventory = collect_inventory(SnapshotSource(dualport))
    assert any(p.part == "nvme" and p.kind is ProblemKind.MISSING for p in inventory.problems)


def test_a_host_without_nvme_is_quiet(tmp_path: Path) -> None:
    (tmp_path / "sys/class").mkdir(parents=True)
    assert collect(tmp_path) == (NvmeInventory(), [])


def test_garbled_binary_and_unreadable_attributes_leave_the_rest(dualport: Path) -> None:
    ctrl = dualport / NVME2
    (ctrl / "address").write_bytes(b"\x00\xff\x1b[2Jgarbage")
    (ctrl / "state").write_bytes(b"li\x1b[31mve\x00")
    (dualport / SUBSYS1 / "model").unlink()
    (dualport / SUBSYS1 / "model").mkdir()  # reading it fails as an I/O error would
    nvme, problems = collect(dualport)
    dual = nvme.subsystems[1]
    nvme2 = dual.controller("nvme2")
    assert nvme2 is not None
    assert nvme2.state == "li[31mve"  # control characters dropped: never raw terminal text
    assert nvme2.target_address == nvme2.pci_address == "058e:78:00.0"  # from the tree
    assert dual.model is None and dual.namespaces[0].paths[1].controller == "nvme2"
    assert any("address not understood" in p for p in problems)
    assert any("model" in p for p in problems)


def test_a_dangling_controller_link_and_a_subsystem_without_nqn(dualport: Path) -> None:
    shutil.rmtree(dualport / NVME2)  # the link nvme-subsys1/nvme2 now leads nowhere
    (dualport / "sys/devices/virtual/nvme-subsystem/nvme-subsys0/subsysnqn").unlink()
    nvme, problems = collect(dualport)
    (dual,) = nvme.subsystems  # nvme-subsys0 skipped
    assert [c.name for c in dual.controllers] == ["nvme1", "nvme2"]
    assert dual.controllers[1].state is None  # known by name only
    assert [p.name for p in dual.namespaces[0].paths] == ["nvme1c1n1"]
    assert any("nvme-subsys0 has no subsysnqn" in p for p in problems)
    assert any("nvme2" in p for p in problems)


def test_empty_and_truncated_files(dualport: Path) -> None:
    (dualport / NVME2 / "address").write_text("")
    (dualport / NVME2 / "nvme1c2n1" / "nsid").write_text("1x")
    nvme, problems = collect(dualport)
    dual = nvme.subsystems[1]
    assert dual.controllers[1].target_address is not None  # pcie: the PCI function above it
    paths = [p for ns in dual.namespaces for p in ns.paths]
    assert sorted(p.name for p in paths) == ["nvme1c1n1", "nvme1c2n1"]  # joined by WWID
    assert any("expected a number" in p for p in problems)
