"""Stable entity ids derived from hardware identity (WWNs, SAS addresses, PCI addresses).

Never from kernel names such as `sdX` or `host11`, which change across reboots. The ids are a
contract: reports, mutes and history key on them.
"""

from __future__ import annotations


def normalise_sas_address(value: str) -> str:
    """`0x5000CCAB0200947E` or `5000ccab0200947e` -> `0x5000ccab0200947e`."""
    text = value.strip().lower()
    if not text.startswith("0x"):
        text = "0x" + text
    return text


def hba_id(pci_address: str) -> str:
    return f"hba:{pci_address}"


def hba_port_id(pci_address: str, connector: int) -> str:
    return f"hba:{pci_address}/connector:{connector}"


def phy_id(sas_address: str, phy_identifier: int) -> str:
    return f"phy:{normalise_sas_address(sas_address)}:{phy_identifier}"


def expander_id(sas_address: str) -> str:
    return f"expander:{normalise_sas_address(sas_address)}"


def enclosure_id(logical_id: str) -> str:
    return f"enclosure:{normalise_sas_address(logical_id)}"


def slot_id(enclosure: str, slot: int) -> str:
    return f"{enclosure}/slot:{slot}"


def chain_id(port: str) -> str:
    return f"chain:{port}"


def disk_id(identity: str) -> str:
    """`identity` is the LU name (`naa.5000c500…`), else a serial, else a port SAS address."""
    return f"disk:{identity.strip().lower()}"


def path_id(hba_pci_address: str, target_sas_address: str) -> str:
    return f"path:{hba_pci_address}:{normalise_sas_address(target_sas_address)}"


def ses_device_id(sas_address: str) -> str:
    return f"ses:{normalise_sas_address(sas_address)}"
