"""FC collection on real data: the Emulex fc_host capture, fcoeadm text, the SAN host fixture."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from fixture_paths import FIXTURES as ALL_FIXTURES

from pinchpoint.checks.collect.fc import (
    FcParseError,
    collect_fc,
    parse_fc_counter,
    parse_fc_speed,
    parse_supported_speeds,
    parse_symbolic_name,
)
from pinchpoint.checks.parse.sysfs_values import pci_address_above
from pinchpoint.checks.source import LiveSource, RecordingSource, SnapshotSource
from pinchpoint.checks.source.sysfs import ProblemLog
from pinchpoint.model.fc import FcInventory, fc_hosts_for_scsi, normalise_wwn

FIXTURES = ALL_FIXTURES / "fc"
SAN_HOST = FIXTURES / "ucs-qla2432-clariion"
FCOEADM = FIXTURES / "insights-core_fcoeadm_i_bcm57810_speed_unknown.txt"
LSPCI = FIXTURES / "insights-core_lspci_k_cisco_ucs_sas_fc_10gbe.txt"


def collect(root: Path) -> tuple[FcInventory, ProblemLog]:
    log = ProblemLog()
    return collect_fc(SnapshotSource(root), log), log


# -- the real Emulex capture (prometheus/procfs) -------------------------------------------


def test_the_real_emulex_port_is_read_field_by_field(procfs_snapshot: Path) -> None:
    fc, _ = collect(procfs_snapshot)
    port = fc.ports[0]
    assert port.id == "fc-port:0x1000e0071bce95f2"
    assert port.scsi_host == "host0"
    assert port.host_number == 0
    assert port.port_name == "0x1000e0071bce95f2"
    assert port.node_name == "0x2000e0071bce95f2"
    assert port.port_id == "0x000002"
    assert port.port_state == "Online"
    assert port.online
    assert port.port_type == "Point-To-Point (direct nport connection)"
    assert port.fabric_name == "0x0"
    assert port.speed_text == "16 Gbit"
    assert port.speed_gbps == 16.0
    assert port.supported_speeds_text == "4 Gbit, 8 Gbit, 16 Gbit"
    assert port.supported_speeds_gbps == [4.0, 8.0, 16.0]
    assert port.max_supported_gbps == 16.0
    assert port.supported_classes == "Class 3"
    assert port.dev_loss_tmo_s == 30
    assert port.symbolic_name is not None
    assert port.symbolic_name.raw == "Emulex SN1100E2P FV12.4.270.3 DV12.4.0.0. HN:gotest. OS:Linux"
    assert port.symbolic_name.vendor == "Emulex"
    assert port.symbolic_name.model == "SN1100E2P"
    assert port.symbolic_name.firmware_version == "12.4.270.3"
    assert port.symbolic_name.driver_version == "12.4.0.0"
    assert port.symbolic_name.host_name == "gotest"


def test_the_real_emulex_counters_are_hex_and_minus_one_is_unsupported(
    procfs_snapshot: Path,
) -> None:
    fc, _ = collect(procfs_snapshot)
    stats = fc.ports[0].statistics
    assert stats.dumped_frames is None  # 0xffffffffffffffff
    assert stats.unsupported == ["dumped_frames"]
    assert stats.error_frames == 0
    assert stats.fcp_packet_aborts == 0x13
    assert stats.invalid_crc_count == 2
    assert stats.invalid_tx_word_count == 8
    assert stats.link_failure_count == 9
    assert stats.loss_of_signal_count == 0x11
    assert stats.loss_of_sync_count == 0x10
    assert stats.nos_count == 0x12
    assert stats.rx_frames == 3
    assert stats.rx_words == 4
    assert stats.seconds_since_last_reset == 7
    assert stats.tx_frames == 5
    assert stats.tx_words == 6
    assert stats.lip_count is None and "lip_count" not in stats.unsupported  # not in the capture
    second = fc.ports[1].statistics
    assert second.error_frames is None and second.unsupported == ["error_frames"]
    assert second.link_failure_count == 0x90


def test_a_port_without_wwpn_or_pci_device_is_kept_and_the_gaps_are_named(
    procfs_snapshot: Path,
) -> None:
    """The procfs capture copies fc_host as plain directories: no device path, host1 no WWPN."""
    fc, log = collect(procfs_snapshot)
    assert [p.scsi_host for p in fc.ports] == ["host0", "host1"]
    host1 = fc.ports[1]
    assert host1.id == "fc-port:unknown/host1"
    assert host1.port_name is None and host1.port_state == "Online"
    assert fc.adapters == [] and fc.adapter_count == 0 and fc.card_count == 0
    assert fc.ports_online == 2
    lines = [p.line() for p in log.problems()]
    assert sum("is not below a PCI device" in line for line in lines) == 2
    assert any("host1 reports no port_name" in line for line in lines)


def test_the_real_fcoe_symbolic_name_and_unknown_speed() -> None:
    """`fcoeadm -i` prints the fc_host attributes; its BCM57810 ports run at speed Unknown."""
    text = FCOEADM.read_text()
    names = re.findall(r"Symbolic Name:\s+(.*)", text)
    speeds = re.findall(r"^\s+Speed:\s+(.*)$", text, re.MULTILINE)
    supported = re.findall(r"Supported Speed:\s+(.*)", text)
    found = parse_symbolic_name(names[0])
    assert found.driver == "bnx2fc"
    assert found.vendor == "QLogic"
    assert found.model == "BCM57810"
    assert found.driver_version == "2.9.6"
    assert found.interface == "eth8.0-fcoe"
    assert found.firmware_version is None
    assert parse_symbolic_name(names[1]).interface == "eth6.0-fcoe"
    assert speeds == ["Unknown", "Unknown"]
    assert parse_fc_speed(speeds[0]) is None
    assert parse_supported_speeds(supported[0]) == [1.0, 10.0]


@pytest.mark.parametrize(
    ("text", "vendor", "model", "firmware", "driver_version"),
    [
        ("QLE2562 FW:v8.03.00 DVR:v8.07.00.26-k", None, "QLE2562", "8.03.00", "8.07.00.26-k"),
        ("Emulex LPe12002 FV2.00A4 DV8.3.5.86.1p", "Emulex", "LPe12002", "2.00A4", "8.3.5.86.1p"),
        ("something else entirely", None, "something else entirely", None, None),
    ],
)
def test_symbolic_names_of_other_drivers(
    text: str, vendor: str | None, model: str, firmware: str | None, driver_version: str | None
) -> None:
    found = parse_symbolic_name(text)
    assert (found.raw, found.vendor, found.model) == (text, vendor, model)
    assert (found.firmware_version, found.driver_version) == (firmware, driver_version)


def test_attribute_parsers() -> None:
    assert parse_fc_speed("16 Gbit") == 16.0
    assert parse_fc_speed("unknown") is None
    assert parse_fc_speed("Not Negotiated") is None
    with pytest.raises(FcParseError, match="expected a speed like '16 Gbit'"):
        parse_fc_speed("fast")
    assert parse_supported_speeds("1 Gbit, 2 Gbit, 4 Gbit") == [1.0, 2.0, 4.0]
    assert parse_supported_speeds("unknown") == []
    assert parse_fc_counter("0x1f\n") == 31
    assert parse_fc_counter("-1") is None
    assert parse_fc_counter("0xffffffffffffffff") is None
    assert parse_fc_counter("12") == 12
    with pytest.raises(FcParseError, match="expected a counter like '0x1f', found 'lots'"):
        parse_fc_counter("lots")
    assert normalise_wwn("10:00:E0:07:1B:CE:95:F2") == "0x1000e0071bce95f2"
    assert normalise_wwn("0x1000E0071BCE95F2") == "0x1000e0071bce95f2"


def test_the_pci_function_is_the_nearest_address_above_the_host() -> None:
    path = "/sys/devices/pci0000:00/0000:00:07.0/0000:04:00.1/host5/fc_host/host5"
    assert pci_address_above(path, "host5") == "0000:04:00.1"
    npiv = "/sys/devices/pci0000:00/0000:00:07.0/0000:04:00.0/host3/vport-3:0-0/host7/fc_host/host7"
    assert pci_address_above(npiv, "host7") == "0000:04:00.0"
    assert pci_address_above("/sys/devices/virtual/net/eth2/host9/fc_host/host9", "host9") is None


# -- the SAN host fixture: adapters, remote ports, LUNs ------------------------------------


def test_two_qlogic_functions_are_two_adapters_on_one_card() -> None:
    fc, log = collect(SAN_HOST)
    assert log.problems() == []
    assert fc.adapter_count == 2
    assert fc.card_count == 1
    assert fc.ports_online == 2
    first, second = fc.adapters
    assert first.id == "hba:0000:04:00.0" and second.id == "hba:0000:04:00.1"
    assert first.card_id == second.card_id == "card:0000:04:00"
    assert first.card_address == "0000:04:00"
    assert first.driver == "qla2xxx" and first.model == "QLE2462"
    assert first.firmware_version == "5.03.02"
    assert first.port_ids == ["fc-port:0x2100001b3280a1b2"]
    # the same functions as the Cisco UCS lspci the fixture is modelled on
    lspci = LSPCI.read_text()
    for adapter in fc.adapters:
        assert f"{adapter.pci_address[5:]} Fibre Channel: QLogic Corp. ISP2432" in lspci


def test_ports_carry_driver_limits_and_the_downgraded_speed() -> None:
    fc, _ = collect(SAN_HOST)
    host3, host5 = fc.ports
    assert (host3.scsi_host, host3.pci_address, host3.speed_gbps) == ("host3", "0000:04:00.0", 4.0)
    assert (host5.scsi_host, host5.pci_address, host5.speed_gbps) == ("host5", "0000:04:00.1", 2.0)
    assert host5.max_supported_gbps == 4.0
    assert host5.port_type == "NPort (fabric via point-to-point)"
    assert host5.fabric_name == "0x100000051e0a1b2c"
    assert (host3.driver, host3.can_queue, host3.cmd_per_lun) == ("qla2xxx", 2048, 3)
    assert host3.lun_queue_depth is None  # an lpfc attribute
    assert host3.statistics.tx_words is None
    assert host3.statistics.unsupported == ["rx_words", "tx_words"]
    assert host3.statistics.invalid_tx_word_count == 0x3A
    assert host3.statistics.fcp_input_megabytes == 0x9B21
    assert fc.driver_settings.ql2xmaxqdepth == 32
    assert fc.driver_settings.lpfc_lun_queue_depth is None


def test_remote_ports_and_the_luns_behind_them() -> None:
    fc, _ = collect(SAN_HOST)
    host3, host5 = fc.ports
    assert [r.name for r in host3.remote_ports] == ["rport-3:0-0", "rport-3:0-1"]
    spa0 = host3.remote_ports[0]
    assert spa0.id == "fc-port:0x2100001b3280a1b2/rport:0x5006016044603569"
    assert spa0.port_name == "0x5006016044603569"
    assert spa0.node_name == "0x50060160c4603569"
    assert spa0.roles == ["FCP Target"] and spa0.fcp_target
    assert (spa0.channel, spa0.scsi_target_id, spa0.port_state) == (0, 0, "Online")
    initiator = host5.remote_ports[2]
    assert initiator.roles == ["FCP Initiator"]
    assert initiator.scsi_target_id is None and not initiator.fcp_target
    assert len(host3.luns) == 16 and len(host5.luns) == 16
    lun = next(u for u in host3.luns if u.hctl == "3:0:1:4")
    assert lun.id == "fc-port:0x2100001b3280a1b2/target:0x5006016844603569/lun:4"
    assert lun.remote_port_id == host3.remote_ports[1].id
    assert lun.target_port_name == "0x5006016844603569"
    assert (lun.lun, lun.block_device, lun.queue_depth, lun.state) == (4, "sdk", 32, "running")
    assert lun.wwid == "naa.60060160ade32800f2e3baf47665e211"
    assert (lun.vendor, lun.model, lun.revision, lun.scsi_type) == ("DGC", "RAID 5", "0430", 0)
    # the PERC boot disk (host0) is SCSI but not FC: it is nowhere
    assert all(not u.hctl.startswith("0:") for p in fc.ports for u in p.luns)


def test_the_helper_joins_a_lun_path_to_its_fc_port() -> None:
    fc, _ = collect(SAN_HOST)
    by_host = fc_hosts_for_scsi(fc)
    assert sorted(by_host) == [3, 5]
    assert by_host[5].port_name == "0x2101001b32a0a1b2"
    port = fc.port_for_hctl("5:0:1:4")
    assert port is not None and port.scsi_host == "host5"
    assert fc.port_for_hctl("host3") == by_host[3]
    assert fc.port_for_hctl("0:2:0:0") is None
    assert fc.port_for_hctl("garbage") is None


def test_a_capture_of_the_live_tree_reads_back_the_same(tmp_path: Path) -> None:
    """Everything collect_fc reads is recorded: the snapshot it leaves answers the same."""
    out = tmp_path / "capture"
    live_log = ProblemLog()
    live = collect_fc(RecordingSource(out, root=str(SAN_HOST)), live_log)
    replayed, log = collect(out)
    assert replayed == live
    assert log.problems() == live_log.problems() == []


def test_the_live_collector_reads_a_fake_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    shutil.copytree(SAN_HOST, root, symlinks=True)
    fc = collect_fc(LiveSource(root=str(root)), ProblemLog())
    assert [p.port_name for p in fc.ports] == ["0x2100001b3280a1b2", "0x2101001b32a0a1b2"]
