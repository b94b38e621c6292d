"""NVMe SSDs in simulated snapshots: pcie, block and health read back the spec."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.pcie import PciKind
from pinchpoint.simulator import SpecError, spec_from_data


@pytest.fixture(scope="module")
def nvme_inventory(scenario: Callable[[str], Path]) -> Inventory:
    return collect_inventory(SnapshotSource(scenario("nvme_ssds")))


def test_no_problem_collecting(nvme_inventory: Inventory) -> None:
    assert [p.line() for p in nvme_inventory.problems] == []


def test_pcie_finds_the_nvme_functions_and_their_links(nvme_inventory: Inventory) -> None:
    nvme = {f.pci_address: f for f in nvme_inventory.pcie.functions if f.kind is PciKind.NVME}
    assert sorted(nvme) == ["0000:61:00.0", "0000:62:00.0"]
    healthy, narrow = nvme["0000:61:00.0"], nvme["0000:62:00.0"]
    assert healthy.driver == "nvme" and healthy.class_code == "0x010802"
    assert healthy.link is not None and narrow.link is not None
    assert (healthy.link.current_width, healthy.link.max_width) == (4, 4)
    assert (narrow.link.current_width, narrow.link.max_width) == (2, 4)
    assert narrow.link.current_speed_gts == 8.0 and narrow.numa_node == 1


def test_block_finds_the_namespaces(nvme_inventory: Inventory) -> None:
    found = {d.name: d for d in nvme_inventory.block.devices if d.name.startswith("nvme")}
    assert sorted(found) == ["nvme0n1", "nvme1n1"]
    for device in found.values():
        assert device.wwid is not None and device.wwid.startswith("eui.")
        assert device.rotational is False and device.scheduler == "none"
        assert device.size_bytes == 1600321314816
        assert device.device_path is not None and "/nvme/nvme" in device.device_path


def test_health_reads_the_controllers(nvme_inventory: Inventory) -> None:
    health = {h.device: h for h in nvme_inventory.health.disks if h.device.startswith("nvme")}
    assert sorted(health) == ["nvme0", "nvme1"]
    good, bad = health["nvme0"], health["nvme1"]
    assert good.collected and good.smart_passed is True
    assert good.nvme is not None and good.nvme.critical_warning == 0
    assert bad.smart_passed is False and bad.nvme is not None
    assert bad.nvme.critical_warning == 4
    assert [w.value for w in bad.nvme.critical_warnings] == ["reliability_degraded"]
    blocks = {d.name: d.wwid for d in nvme_inventory.block.devices}
    for name, disk in health.items():
        assert disk.nvme is not None
        assert disk.nvme.namespaces[0].eui64 == blocks[f"{name}n1"]


def test_nvme_address_clash_is_refused() -> None:
    data = {
        "nic": [{"name": "eno1", "pci_address": "0000:61:00.0"}],
        "nvme": [{"pci_address": "0000:61:00.0"}],
    }
    with pytest.raises(SpecError, match="used twice"):
        spec_from_data(data)
