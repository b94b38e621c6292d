"""The storage networks page's view model (`api/views/networks.py`): on a simulated client of
NVMe/TCP, iSCSI and FC (tests/fixtures/specs/storage_networks.toml), on two sweeps of the
counters_rising host (the rise since the previous sweep), on the real captures the corpus
holds (libnvme's dual-ported PCIe drive, the procfs capture's FC statistics and NIC), and on
a host without any of these (no section at all)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_paths import FIXTURES, SPECS

from pinchpoint.api.views.networks import has_networks, networks_view
from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.inventory import Inventory
from pinchpoint.model.multipath import MultipathMap
from pinchpoint.rules.config import Config
from pinchpoint.service.checkup import Checkup, check_source
from pinchpoint.simulator import DEMO_SPEC_PATH, load_spec, write_snapshot

SHIPPED = DEMO_SPEC_PATH.parent


def checkup(spec: Path, out: Path, previous: Inventory | None = None) -> Checkup:
    write_snapshot(load_spec(spec), out)
    return check_source(
        SnapshotSource(out), kind=None, live=False, config=Config(), previous=previous
    )


@pytest.fixture(scope="module")
def networks(tmp_path_factory: pytest.TempPathFactory) -> Checkup:
    return checkup(SPECS / "storage_networks.toml", tmp_path_factory.mktemp("nets") / "s")


def test_every_section_of_a_client_of_three_storage_networks(networks: Checkup) -> None:
    view = networks_view(networks.inventory, networks.report.findings, 7)
    assert (view.host, view.report_id) == ("san-client", 7)
    assert view.sections == ["nvme", "iscsi", "nics", "fc"]
    assert has_networks(networks.inventory)
    local, array = view.nvme
    assert (local.fabrics, local.worst, local.transports) == (False, None, ["pcie"])
    assert (array.name, array.fabrics, array.worst) == (
        "PowerStore (nvme-subsys1)",
        True,
        "warning",
    )
    assert array.nqn == "nqn.1988-11.com.dell:powerstore:00:f03028e73ef7D032D81E"
    assert [(c.name, c.transport, c.address, c.state, c.live) for c in array.controllers] == [
        ("nvme1", "tcp", "10.162.198.42:4420", "connecting", False),
        ("nvme2", "tcp", "10.162.198.45:4420", "live", True),
    ]
    for namespace in array.namespaces:
        assert namespace.live_paths == 1 and namespace.worst == "warning"
        assert [f.rule for f in namespace.findings] == ["nvme.subsystem.single_path"]
        down, up = namespace.paths
        assert (down.controller, down.live, down.flagged) == ("nvme1", False, True)
        assert (up.controller, up.live, up.flagged) == ("nvme2", True, False)
        assert up.ana_state == "optimized" and up.optimized is True


def test_iscsi_sessions_carry_their_luns_by_the_wwid_of_their_vpd_page(
    networks: Checkup,
) -> None:
    view = networks_view(networks.inventory, networks.report.findings)
    dead, live = view.iscsi
    assert (dead.target, dead.portal, dead.state, dead.connection_state, dead.logged_in) == (
        "iqn.2003-01.org.linux-iscsi.array1:port-a",
        "10.8.100.6:3260",
        "FREE",
        "failed",
        False,
    )
    assert (live.state, live.interface) == ("LOGGED_IN", "local address 10.8.101.20")
    assert [lun.wwid for lun in dead.luns] == [lun.wwid for lun in live.luns]  # one LU each
    for lun in [*dead.luns, *live.luns]:
        assert lun.wwid_from == "vpd_pg83" and lun.wwid and lun.wwid.startswith("naa.6001405")
        assert lun.sessions == 2 and lun.worst == "warning"
        assert [f.rule for f in lun.findings] == ["iscsi.target.single_path"]
    assert [(lun.up, lun.state) for lun in dead.luns] == [(False, "blocked")] * 2
    assert dead.worst == live.worst == "warning"


def test_an_iscsi_lun_joins_its_multipath_map_by_wwid(networks: Checkup) -> None:
    inventory = networks.inventory.model_copy(deep=True)
    wwid = inventory.iscsi.sessions[0].devices[0].wwid
    assert wwid is not None
    multipath_wwid = "3" + wwid.removeprefix("naa.")  # as multipath prints it
    inventory.multipath.maps.append(
        MultipathMap(id=f"mpath:{multipath_wwid}", wwid=multipath_wwid, name="mpathd")
    )
    view = networks_view(inventory, [])
    assert [lun.multipath for s in view.iscsi for lun in s.luns] == [
        f"mpathd ({multipath_wwid})",
        None,
    ] * 2


def test_counters_without_a_previous_sweep_have_no_rise(networks: Checkup) -> None:
    view = networks_view(networks.inventory, networks.report.findings)
    fc0, fc1 = view.fc_ports
    assert fc0.name.startswith("host") and fc0.wwpn and fc0.id == f"fc-port:{fc0.wwpn}"
    assert {c.label: c.value for c in fc0.counters} == {
        "link failures": 1,
        "loss of sync": 2,
        "loss of signal": 0,
        "invalid CRC": 0,
        "invalid tx words": 0,
        "error frames": 0,
    }
    assert {c.label: c.value for c in fc1.counters}["invalid CRC"] == 7
    nic = next(n for n in view.nics if n.name == "ens1f0")
    assert {c.label: (c.value, c.rise) for c in nic.counters} == {
        "rx errors": (3, None),
        "tx errors": (0, None),
        "CRC errors": (3, None),
        "rx dropped": (0, None),
        "tx dropped": (0, None),
        "carrier changes": (4, None),
    }


def test_the_rise_since_the_previous_sweep_comes_from_the_findings(tmp_path: Path) -> None:
    first = checkup(SHIPPED / "counters_rising_1.toml", tmp_path / "one")
    second = checkup(SHIPPED / "counters_rising_2.toml", tmp_path / "two", first.inventory)
    view = networks_view(second.inventory, second.report.findings)
    nics = {n.name: n for n in view.nics}
    ens2f0 = nics["ens2f0"]
    assert ens2f0.worst == "warning" and [f.rule for f in ens2f0.findings] == ["net.link.errors"]
    rises = {c.label: (c.value, c.rise) for c in ens2f0.counters}
    assert rises["CRC errors"] == (460, 457) and rises["carrier changes"] == (8, 4)
    assert rises["rx errors"] == (460, 457) and rises["tx errors"][1] is None
    assert {c.label: c.rise for c in ens2f0.driver_errors}["port.rx crc errors (ethtool -S)"] == 457
    assert nics["ens2f1"].worst is None  # reset 25 -> 0: no finding, no rise
    assert all(c.rise is None for c in nics["ens2f1"].counters)
    fc = {p.name.split()[0]: p for p in view.fc_ports}
    judged = next(p for p in fc.values() if p.worst)
    assert {c.label: (c.value, c.rise) for c in judged.counters if c.rise} == {
        "link failures": (4, 3),
        "loss of sync": (9, 7),
        "invalid CRC": (57, 57),
    }
    assert sum(1 for p in fc.values() if p.worst) == 1


def test_the_real_dual_ported_nvme_drive_of_libnvme() -> None:
    """Two PCIe controllers to one namespace, no ANA: both paths live, nothing flagged."""
    inventory = collect_inventory(SnapshotSource(FIXTURES / "nvme" / "pcie-dualport"))
    view = networks_view(inventory, [])
    assert view.sections == ["nvme"]
    single, dual = view.nvme
    assert [c.name for c in dual.controllers] == ["nvme1", "nvme2"]
    assert all(c.transport == "pcie" and c.live for c in dual.controllers)
    (namespace,) = dual.namespaces
    assert [(p.name, p.live, p.ana_state, p.optimized, p.flagged) for p in namespace.paths] == [
        ("nvme1c1n1", True, None, None, False),
        ("nvme1c2n1", True, None, None, False),
    ]
    assert len(single.controllers) == 1 and single.worst is None


def test_the_real_procfs_capture_fc_statistics_and_nic(procfs_snapshot: Path) -> None:
    inventory = collect_inventory(SnapshotSource(procfs_snapshot))
    view = networks_view(inventory, [])
    assert "fc" in view.sections and "nics" in view.sections
    host0 = next(p for p in view.fc_ports if p.scsi_host == "host0")
    assert {c.label: c.value for c in host0.counters} == {
        "link failures": 9,
        "loss of sync": 16,
        "loss of signal": 17,
        "invalid CRC": 2,
        "invalid tx words": 8,
        "error frames": 0,
    }
    assert [n.name for n in view.nics] == ["eth0"]


def test_a_host_without_such_devices_has_no_section(tmp_path: Path) -> None:
    write_snapshot(load_spec(SPECS / "three_chains_of_two.toml"), tmp_path / "sas")
    inventory = collect_inventory(SnapshotSource(tmp_path / "sas"))
    view = networks_view(inventory, [])
    assert view.sections == [] and not has_networks(inventory)
    assert (view.nvme, view.iscsi, view.nics, view.fc_ports) == ([], [], [], [])
