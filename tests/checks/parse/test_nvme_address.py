"""An NVMe controller's `address`, as the real captures print it."""

from __future__ import annotations

from pinchpoint.checks.parse.nvme_address import NvmeAddress, parse_nvme_address


def test_tcp_address_of_nvme_cli_list_subsys() -> None:
    """nvme-cli PR 1540's PowerStore: `nvme1 tcp traddr=10.162.198.42,trsvcid=4420`."""
    found = parse_nvme_address("traddr=10.162.198.42,trsvcid=4420\n")
    assert (found.traddr, found.trsvcid, found.garbled) == ("10.162.198.42", "4420", ())
    assert found.host_iface is None and found.pci_address is None


def test_local_end_host_iface_and_src_addr() -> None:
    text = "traddr=192.168.154.10,trsvcid=4421,host_traddr=192.168.154.1,host_iface=ens1f0"
    found = parse_nvme_address(text + ",src_addr=192.168.154.1")
    assert found.host_traddr == "192.168.154.1" and found.host_iface == "ens1f0"
    assert found.src_addr == "192.168.154.1"


def test_pcie_address_of_the_real_power_host() -> None:
    """libnvme's capture: the PCIe controller's address is its PCI function."""
    assert parse_nvme_address("052e:78:00.0\n") == NvmeAddress(pci_address="052e:78:00.0")
    assert parse_nvme_address("0000:3D:00.0").pci_address == "0000:3d:00.0"


def test_fc_addresses_with_and_without_keys() -> None:
    keyed = parse_nvme_address(
        "traddr=nn-0x200400a0986b4321:pn-0x210400a0986b4321,"
        "host_traddr=nn-0x20000090fa0c1a2b:pn-0x10000090fa0c1a2b"
    )
    assert keyed.traddr == "nn-0x200400a0986b4321:pn-0x210400a0986b4321"
    assert keyed.host_traddr == "nn-0x20000090fa0c1a2b:pn-0x10000090fa0c1a2b"
    bare = parse_nvme_address("nn-0x200400a0986b4322:pn-0x210400a0986b4322")  # procfs fixture
    assert bare.traddr == "nn-0x200400a0986b4322:pn-0x210400a0986b4322"


def test_empty_gives_nothing() -> None:
    assert parse_nvme_address("") == NvmeAddress()
    assert parse_nvme_address(" \n") == NvmeAddress()


def test_truncated_keeps_what_is_whole() -> None:
    found = parse_nvme_address("traddr=10.0.0.1,trsv")
    assert found.traddr == "10.0.0.1" and found.trsvcid is None
    assert found.garbled == ("trsv",)


def test_garbled_and_binary_are_dropped_not_kept() -> None:
    found = parse_nvme_address("traddr=10.0.0.1 ; rm -rf /,trsvcid=\x1b[31m4420,=x,host_iface=")
    assert found.traddr is None and found.trsvcid is None and found.host_iface is None
    assert len(found.garbled) == 4
    binary = parse_nvme_address("\x00\xff\x10garbage")
    assert binary.pci_address is None and binary.traddr is None and binary.garbled
    assert parse_nvme_address("traddr=" + "1" * 300).traddr is None  # too long for an address


def test_a_repeated_key_keeps_the_first() -> None:
    assert parse_nvme_address("traddr=10.0.0.1,traddr=10.0.0.2").traddr == "10.0.0.1"
