"""The simulated tree has the shape of the real one: the mpt3sas capture in tests/fixtures.

`snapshots/procfs-mpt3sas` is a real Broadcom HBA 9400-8i8e (mpt3sas) sysfs tree (see
tests/fixtures/SOURCES.md). Attribute names of each kind of directory, value formats and link
shapes are compared; the simulator may leave out what no reader needs, never add what the
kernel does not have. The simulated host is field case 1's balanced twin
(`three_chains_of_two_loaded.toml`: the demo's pool and workload on 24-bay shelves with one
expander per I/O module, disks on the expander the HBA reaches, as in the capture); the demo's
H4060-J shelves hang their disks off sub-expanders (tests/simulator/test_demo_h4060j.py).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from fixture_paths import FIXTURES

REFERENCE = FIXTURES / "snapshots" / "procfs-mpt3sas"
REAL_HOST = REFERENCE / "sys/devices/pci0000:00/0000:00:03.0/0000:03:00.0/host11"
REAL_EXPANDER = REAL_HOST / "port-11:0/expander-11:0"
REAL_SAS_DISK = REAL_EXPANDER / "port-11:0:1/end_device-11:0:1"
REAL_SDEV = REAL_SAS_DISK / "target11:0:8/11:0:8:0"
NOT_SIMULATED = {"uevent", "subsystem", "power", "bsg"}

pytestmark = pytest.mark.skipif(not REAL_HOST.is_dir(), reason="real capture fixture missing")


@pytest.fixture(scope="module")
def sim_root(scenario: Callable[[str], Path]) -> Path:
    """The simulated host compared with the capture (see the module's docstring)."""
    return scenario("three_chains_of_two_loaded")


def names(directory: Path) -> set[str]:
    return set(os.listdir(directory)) - NOT_SIMULATED


def value(path: Path) -> str:
    return path.read_text()


def sim_host(root: Path) -> Path:
    return (root / "sys" / "class" / "scsi_host" / "host1" / "device").resolve()


def sim_expander(root: Path) -> Path:
    (expander,) = sim_host(root).glob("port-1:0/expander-1:0")
    return expander


def sim_disk(root: Path) -> Path:
    return sim_expander(root) / "port-1:0:1" / "end_device-1:0:1"


def test_sas_phy_attribute_names(sim_root: Path) -> None:
    real_hba_phy = names(REAL_HOST / "phy-11:10/sas_phy/phy-11:10")
    real_expander_phy = names(REAL_EXPANDER / "phy-11:0:2/sas_phy/phy-11:0:2")
    assert names(sim_host(sim_root) / "phy-1:0/sas_phy/phy-1:0") == real_hba_phy
    expander = sim_expander(sim_root)
    assert names(expander / "phy-1:0:8/sas_phy/phy-1:0:8") == real_expander_phy
    assert names(sim_host(sim_root) / "phy-1:0") == names(REAL_HOST / "phy-11:10")


def test_sas_device_and_expander_attribute_names(sim_root: Path) -> None:
    expander = sim_expander(sim_root)
    disk = sim_disk(sim_root)
    assert names(expander / "sas_device/expander-1:0") == names(
        REAL_EXPANDER / "sas_device/expander-11:0"
    )
    assert names(expander / "sas_expander/expander-1:0") == names(
        REAL_EXPANDER / "sas_expander/expander-11:0"
    )
    assert names(disk / "sas_device/end_device-1:0:1") == names(
        REAL_SAS_DISK / "sas_device/end_device-11:0:1"
    )
    assert names(disk / "sas_end_device/end_device-1:0:1") <= names(
        REAL_SAS_DISK / "sas_end_device/end_device-11:0:1"
    )
    assert names(expander / "port-1:0:1/sas_port/port-1:0:1") == names(
        REAL_EXPANDER / "port-11:0:1/sas_port/port-11:0:1"
    )
    assert names(disk) == names(REAL_SAS_DISK) - {"target11:0:8"} | {"target1:0:0"}


def test_scsi_host_and_device_attribute_names(sim_root: Path) -> None:
    real_host = names(REAL_HOST / "scsi_host/host11")
    simulated = names(sim_host(sim_root) / "scsi_host/host1")
    essentials = {
        "proc_name",
        "board_name",
        "version_fw",
        "version_bios",
        "version_product",
        "host_sas_address",
        "can_queue",
        "state",
    }
    assert essentials <= simulated <= real_host
    sdev = sim_disk(sim_root) / "target1:0:0/1:0:0:0"
    real_sdev = {n for n in names(REAL_SDEV) if not n.startswith("enclosure_device:")}
    simulated_sdev = {n for n in names(sdev) if not n.startswith("enclosure_device:")}
    assert simulated_sdev <= real_sdev
    (block,) = (sdev / "block").iterdir()
    real_block = REAL_SDEV / "block" / "sdw"
    partitions = {n for n in names(block) if (block / n / "partition").exists()}
    assert partitions == {f"{block.name}1", f"{block.name}9"}  # the ZFS pool partitions
    assert names(block) - {"queue"} - partitions <= names(real_block)
    assert names(block / "queue") <= names(REFERENCE / "sys/block/sda/queue")
    assert {"size", "dev", "device"} <= names(block)
    assert {"rotational", "nr_requests", "logical_block_size", "scheduler"} <= names(
        block / "queue"
    )


@pytest.mark.parametrize(
    ("relative", "pattern"),
    [
        ("phy-{h}:{p}/sas_phy/phy-{h}:{p}/sas_address", r"0x[0-9a-f]{16}\n"),
        ("phy-{h}:{p}/sas_phy/phy-{h}:{p}/negotiated_linkrate", r"(\d+\.\d Gbit|Unknown)\n"),
        ("phy-{h}:{p}/sas_phy/phy-{h}:{p}/minimum_linkrate_hw", r"1\.5 Gbit\n"),
        ("phy-{h}:{p}/sas_phy/phy-{h}:{p}/minimum_linkrate", r"3\.0 Gbit\n"),
        ("phy-{h}:{p}/sas_phy/phy-{h}:{p}/maximum_linkrate_hw", r"12\.0 Gbit\n"),
        ("phy-{h}:{p}/sas_phy/phy-{h}:{p}/initiator_port_protocols", r"smp, stp, ssp\n"),
        ("phy-{h}:{p}/sas_phy/phy-{h}:{p}/target_port_protocols", r"none\n"),
        ("phy-{h}:{p}/sas_phy/phy-{h}:{p}/device_type", r"end device\n"),
        ("phy-{h}:{p}/sas_phy/phy-{h}:{p}/phy_identifier", r"\d+\n"),
        ("phy-{h}:{p}/sas_phy/phy-{h}:{p}/invalid_dword_count", r"\d+\n"),
        ("phy-{h}:{p}/sas_phy/phy-{h}:{p}/enable", r"1\n"),
        ("scsi_host/host{h}/host_sas_address", r"0x[0-9a-f]{16}\n"),
        ("scsi_host/host{h}/proc_name", r"mpt3sas\n"),
        ("scsi_host/host{h}/can_queue", r"\d+\n"),
        ("scsi_host/host{h}/state", r"running\n"),
        ("scsi_host/host{h}/version_fw", r"\d\d\.\d\d\.\d\d\.\d\d\n"),
    ],
)
def test_host_value_formats(sim_root: Path, relative: str, pattern: str) -> None:
    real = value(REAL_HOST / relative.format(h=11, p=10))
    simulated = value(sim_host(sim_root) / relative.format(h=1, p=0))
    assert re.fullmatch(pattern, real), real
    assert re.fullmatch(pattern, simulated), simulated


@pytest.mark.parametrize(
    ("relative", "pattern"),
    [
        ("sas_device/expander-{h}:0/sas_address", r"0x[0-9a-f]{16}\n"),
        ("sas_device/expander-{h}:0/device_type", r"edge expander\n"),
        ("sas_device/expander-{h}:0/enclosure_identifier", r""),
        ("sas_device/expander-{h}:0/bay_identifier", r""),
        ("sas_device/expander-{h}:0/scsi_target_id", r"0\n"),
        ("sas_device/expander-{h}:0/target_port_protocols", r"smp\n"),
        ("sas_expander/expander-{h}:0/vendor_id", r"HGST {4}\n"),
        ("sas_expander/expander-{h}:0/product_id", r".{16}\n"),
        ("sas_expander/expander-{h}:0/product_rev", r"\w{4}\n"),
        ("sas_expander/expander-{h}:0/component_vendor_id", r".{8}\n"),
        ("sas_expander/expander-{h}:0/component_id", r"\d+\n"),
        ("sas_expander/expander-{h}:0/level", r"1\n"),
        ("phy-{h}:0:{p}/sas_phy/phy-{h}:0:{p}/device_type", r"edge expander\n"),
        ("phy-{h}:0:{p}/sas_phy/phy-{h}:0:{p}/initiator_port_protocols", r"smp\n"),
        ("phy-{h}:0:{p}/sas_phy/phy-{h}:0:{p}/minimum_linkrate", r"1\.5 Gbit\n"),
        ("port-{h}:0:1/sas_port/port-{h}:0:1/num_phys", r"1\n"),
        (
            "port-{h}:0:1/end_device-{h}:0:1/sas_device/end_device-{h}:0:1/sas_address",
            r"0x[0-9a-f]{16}\n",
        ),
        (
            "port-{h}:0:1/end_device-{h}:0:1/sas_device/end_device-{h}:0:1/enclosure_identifier",
            r"0x[0-9a-f]+\n",
        ),
        ("port-{h}:0:1/end_device-{h}:0:1/sas_device/end_device-{h}:0:1/bay_identifier", r"\d+\n"),
        (
            "port-{h}:0:1/end_device-{h}:0:1/sas_device/end_device-{h}:0:1/device_type",
            r"end device\n",
        ),
        (
            "port-{h}:0:1/end_device-{h}:0:1/sas_device/end_device-{h}:0:1/initiator_port_protocols",
            r"none\n",
        ),
        (
            "port-{h}:0:1/end_device-{h}:0:1/sas_device/end_device-{h}:0:1/target_port_protocols",
            r"ssp\n",
        ),
    ],
)
def test_expander_value_formats(sim_root: Path, relative: str, pattern: str) -> None:
    real = value(REAL_EXPANDER / relative.format(h=11, p=4))
    simulated = value(sim_expander(sim_root) / relative.format(h=1, p=8))
    assert re.fullmatch(pattern, real), real
    assert re.fullmatch(pattern, simulated), simulated


@pytest.mark.parametrize(
    ("name", "pattern"),
    [
        ("vendor", r".{8}\n"),
        ("model", r".{16}\n"),
        ("rev", r".{4}\n"),
        ("type", r"0\n"),
        ("wwid", r"naa\.[0-9a-f]{16}\n"),
        ("sas_address", r"0x[0-9a-f]{16}\n"),
        ("queue_depth", r"\d+\n"),
        ("state", r"running\n"),
        ("timeout", r"30\n"),
        ("scsi_level", r"7\n"),
    ],
)
def test_scsi_device_value_formats(sim_root: Path, name: str, pattern: str) -> None:
    assert re.fullmatch(pattern, value(REAL_SDEV / name))
    assert re.fullmatch(pattern, value(sim_disk(sim_root) / "target1:0:0/1:0:0:0" / name))


def test_link_shapes(sim_root: Path) -> None:
    host, expander = sim_host(sim_root), sim_expander(sim_root)
    sdev = sim_disk(sim_root) / "target1:0:0/1:0:0:0"
    pairs = [
        (REAL_HOST / "phy-11:10/port", host / "phy-1:0/port", r"\.\./port-\d+:\d+"),
        (REAL_HOST / "port-11:0/phy-11:10", host / "port-1:0/phy-1:0", r"\.\./phy-\d+:\d+"),
        (
            REAL_EXPANDER / "phy-11:0:4/port",
            expander / "phy-1:0:9/port",
            r"\.\./port-\d+:\d+:\d+",
        ),
        (
            REAL_HOST / "phy-11:10/sas_phy/phy-11:10/device",
            host / "phy-1:0/sas_phy/phy-1:0/device",
            r"\.\./\.\./\.\./phy-\d+:\d+",
        ),
        (REAL_SDEV / "generic", sdev / "generic", r"scsi_generic/sg\d+"),
        (
            REFERENCE / "sys/class/sas_host/host11",
            sim_root / "sys/class/sas_host/host1",
            r"\.\./\.\./devices/pci0000:00/0000:00:03\.0/0000:03:00\.0/host\d+/sas_host/host\d+",
        ),
    ]
    for real, simulated, pattern in pairs:
        assert re.fullmatch(pattern, os.readlink(real)), (real, os.readlink(real))
        assert re.fullmatch(pattern, os.readlink(simulated)), (simulated, os.readlink(simulated))


def test_every_attribute_ends_with_a_newline(sim_root: Path) -> None:
    unterminated = []
    for current, _, files in os.walk(sim_root / "sys"):
        for name in files:
            path = os.path.join(current, name)
            if os.path.islink(path) or name == "vpd_pg80":
                continue
            with open(path, "rb") as handle:
                data = handle.read()
            if not data.endswith(b"\n"):
                unterminated.append(os.path.relpath(path, sim_root))
    assert unterminated
    assert all(re.search(r"/expander-[\d:]+/(enclosure|bay)_identifier$", p) for p in unterminated)
