"""Faults the simulator writes as the kernel shows them: a wide port's lane down, phy error
counters, partitions (specs `degraded_sas_port`, `phy_errors_sweep1`/`2` and
`misaligned_partition` in tests/fixtures/specs), each compared with the real mpt3sas and
NVMe trees of `tests/fixtures/snapshots/procfs-mpt3sas` and read back by the collectors."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from fixture_paths import FIXTURES

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.inventory import Inventory

REFERENCE = FIXTURES / "snapshots" / "procfs-mpt3sas"
REAL_HBA_PHY = REFERENCE / "sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0/host11/phy-11:10"
REAL_PARTITION = (
    REFERENCE / "sys/devices/pci0000:00/0000:00:02.1/0000:01:00.0/nvme/nvme0/nvme0n1/nvme0n1p1"
)
# What the simulator leaves out (no reader needs it) or adds (the kernel has it, the partial
# capture does not): never a name the kernel would not have.
LEFT_OUT = {"uevent", "subsystem", "power", "trace", "stat", "inflight"}
LEFT_OUT |= {"alignment_offset", "discard_alignment"}


def names(directory: Path) -> set[str]:
    return set(os.listdir(directory)) - LEFT_OUT


def text(path: Path) -> str:
    return path.read_text().strip()


def host_dir(root: Path, host: int) -> Path:
    return (root / "sys/class/scsi_host" / f"host{host}" / "device").resolve()


def inventory_of(root: Path) -> Inventory:
    return collect_inventory(SnapshotSource(root))


# -- a lane down ---------------------------------------------------------------------------


def test_a_lane_found_without_link_is_left_out_of_its_port(
    scenario: Callable[[str], Path],
) -> None:
    """hba1 (host0) phy 2: the port of connector 0 holds phys 0, 1 and 3 and says so in
    `num_phys`; phy 2 keeps its directory and attributes but no `port` link, "Unknown"."""
    root = scenario("degraded_sas_port")
    host = host_dir(root, 0)
    port = host / "port-0:0"
    assert sorted(e for e in os.listdir(port) if e.startswith("phy-")) == [
        "phy-0:0",
        "phy-0:1",
        "phy-0:3",
    ]
    assert text(port / "sas_port/port-0:0/num_phys") == "3"
    lost = host / "phy-0:2"
    assert names(lost) == names(REAL_HBA_PHY) - {"port"}
    assert names(lost / "sas_phy/phy-0:2") == names(REAL_HBA_PHY / "sas_phy/phy-11:10")
    assert text(lost / "sas_phy/phy-0:2/negotiated_linkrate") == "Unknown"
    assert text(lost / "sas_phy/phy-0:2/enable") == "1"
    assert (host / "phy-0:1/port").resolve() == port.resolve()
    far_end = port / "expander-0:0/phy-0:0:2/sas_phy/phy-0:0:2/negotiated_linkrate"
    assert text(far_end) == "Unknown"  # the expander's end of that lane has no link either


def test_a_lane_switched_off_while_running_stays_in_its_port(
    scenario: Callable[[str], Path],
) -> None:
    """hba2 (host1) phy 5: still one of the 4 phys of connector 1's port, "Phy disabled",
    `enable` 0."""
    root = scenario("degraded_sas_port")
    host = host_dir(root, 1)
    port = host / "port-1:1"
    assert len([e for e in os.listdir(port) if e.startswith("phy-")]) == 4
    assert text(port / "sas_port/port-1:1/num_phys") == "4"
    disabled = host / "phy-1:5"
    assert (disabled / "port").resolve() == port.resolve()
    assert text(disabled / "sas_phy/phy-1:5/negotiated_linkrate") == "Phy disabled"
    assert text(disabled / "sas_phy/phy-1:5/enable") == "0"


def test_the_inventory_reads_both_shapes(scenario: Callable[[str], Path]) -> None:
    inventory = inventory_of(scenario("degraded_sas_port"))
    assert not [p for p in inventory.problems if p.part == "sas"]
    ports = {(h.pci_address, p.connector): (h, p) for h in inventory.sas.hbas for p in h.ports}
    hba1, narrow = ports[("0000:03:00.0", 0)]
    assert (narrow.width, narrow.phys_up) == (3, 3)
    idle = {p.phy_identifier: p for p in hba1.idle_phys}
    assert idle[2].negotiated_text == "Unknown" and not idle[2].link_up
    _, wide = ports[("0000:81:00.0", 1)]
    assert (wide.width, wide.phys_up) == (4, 3)
    disabled = next(p for p in wide.phys if p.phy_identifier == 5)
    assert (disabled.negotiated_text, disabled.enabled) == ("Phy disabled", False)
    assert all(d.hba_ports == 2 for d in inventory.sas.disks)  # 3 lanes still carry them


# -- phy error counters ----------------------------------------------------------------------


def test_phy_error_counters_are_written_where_the_spec_says(
    scenario: Callable[[str], Path],
) -> None:
    root = scenario("phy_errors_sweep2")
    phy = host_dir(root, 0) / "phy-0:1/sas_phy/phy-0:1"
    counters = {
        name: text(phy / name)
        for name in (
            "invalid_dword_count",
            "running_disparity_error_count",
            "loss_of_dword_sync_count",
            "phy_reset_problem_count",
        )
    }
    assert counters == {
        "invalid_dword_count": "412",
        "running_disparity_error_count": "377",
        "loss_of_dword_sync_count": "6",
        "phy_reset_problem_count": "0",
    }
    expander = host_dir(root, 0) / "port-0:0/expander-0:0/phy-0:0:9/sas_phy/phy-0:0:9"
    assert text(expander / "invalid_dword_count") == "3"
    assert text(host_dir(root, 0) / "phy-0:2/sas_phy/phy-0:2/invalid_dword_count") == "0"


def test_the_inventory_reads_the_counters_of_both_sweeps(scenario: Callable[[str], Path]) -> None:
    def errors(root: Path) -> dict[str, int | None]:
        inventory = inventory_of(root)
        hba = next(h for h in inventory.sas.hbas if h.pci_address == "0000:03:00.0")
        phy = next(p for port in hba.ports for p in port.phys if p.phy_identifier == 1)
        return phy.errors.model_dump()

    assert errors(scenario("phy_errors_sweep1"))["invalid_dword_count"] == 12
    assert errors(scenario("phy_errors_sweep2"))["invalid_dword_count"] == 412


# -- partitions ------------------------------------------------------------------------------


def test_partitions_are_laid_out_as_the_kernel_shows_them(
    scenario: Callable[[str], Path],
) -> None:
    """misaligned_partition: sda1 at sector 63 (bay 0), sdd1 and sdd2 (bay 3)."""
    root = scenario("misaligned_partition")
    sda1 = root / "sys/block/sda/sda1"
    assert names(sda1) - {"holders"} <= names(REAL_PARTITION)
    assert (text(sda1 / "partition"), text(sda1 / "start")) == ("1", "63")
    sectors = int(text(root / "sys/block/sda/size"))
    assert int(text(sda1 / "size")) == sectors - 63 - 34  # up to the GPT backup
    assert text(sda1 / "dev") == "8:1"
    assert (root / "sys/class/block/sda1").resolve() == sda1.resolve()
    sdd = root / "sys/block/sdd"
    assert [text(sdd / p / "start") for p in ("sdd1", "sdd2")] == ["2048", "1050624"]
    assert text(sdd / "sdd1/size") == "1048576"


def test_the_inventory_reads_the_partition_starts(scenario: Callable[[str], Path]) -> None:
    inventory = inventory_of(scenario("misaligned_partition"))
    starts = {p.name: p.start_sectors for d in inventory.block.devices for p in d.partitions}
    assert starts == {"sda1": 63, "sdb1": 2048, "sdc1": 128, "sdd1": 2048, "sdd2": 1050624}
