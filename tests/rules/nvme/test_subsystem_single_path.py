"""`nvme.subsystem.single_path` on libnvme's real sysfs tree of a dual-ported drive, the procfs
fixture's NVMe-oF controllers, and simulated NVMe/TCP hosts (nvme-cli's captures as specs)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from fixture_paths import FIXTURES, ROOT, SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.findings import Finding, Severity
from pinchpoint.rules import nvme
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.config import Config, parse_config
from pinchpoint.rules.engine import evaluate
from pinchpoint.simulator import load_spec, spec_from_data, write_snapshot

RULE = "nvme.subsystem.single_path"
DUALPORT = FIXTURES / "nvme" / "pcie-dualport"
PROCFS = FIXTURES / "snapshots" / "procfs-mpt3sas"
SINGLE_PATH = ROOT / "pinchpoint" / "simulator" / "specs" / "nvme_tcp_single_path.toml"


def judged(root: Path, config: Config | None = None) -> tuple[list[Finding], list[str]]:
    context = RuleContext(inventory=collect_inventory(SnapshotSource(root)))
    found, skipped, _ = evaluate(context, nvme.RULES, config)
    assert not [s for s in skipped if s.reason.startswith("rule failed")], skipped
    return [f for f in found if f.rule == RULE], [s.reason for s in skipped if s.rule == RULE]


def simulated(tmp_path: Path, spec: Path | dict[str, Any]) -> Path:
    out = tmp_path / "snapshot"
    write_snapshot(load_spec(spec) if isinstance(spec, Path) else spec_from_data(spec), out)
    return out


def facts(finding: Finding) -> dict[str, object]:
    return {f.name: f.value for f in finding.evidence[0].facts if f.name != "path"}


def target(paths: list[dict[str, Any]], namespaces: int = 2) -> dict[str, Any]:
    return {
        "host": {"hostname": "nvme-client"},
        "nvme": [{}],
        "nvme_target": [
            {"nqn": "nqn.2010-06.com.example:array", "model": "Array", "namespaces": namespaces}
            | {"path": paths}
        ],
    }


def test_the_real_dual_ported_drive_with_both_controllers_live_is_quiet() -> None:
    assert judged(DUALPORT) == ([], [])


def test_the_real_dual_ported_drive_with_a_dead_controller(tmp_path: Path) -> None:
    root = tmp_path / "dualport"
    shutil.copytree(DUALPORT, root, symlinks=True)
    (root / "sys/devices/pci058e:78/058e:78:00.0/nvme/nvme2/state").write_text("dead\n")
    (finding,) = judged(root)[0]
    assert finding.entity.name == "namespace 1 of 3.2TB NVMe Gen4 U.2 SSD III (nvme1n1)"
    assert finding.entity.id == "nvme-ns:eui.36525430529000570025384500000001"
    assert finding.title == f"{finding.entity.name} has 1 live path"
    assert finding.severity is Severity.WARNING
    assert facts(finding) == {
        "paths": 2,
        "live paths": 1,
        "live paths expected": 2,
        "adapters of live paths": 1,
    }
    assert "down: nvme1c2n1 via nvme2 (pcie to 058e:78:00.0): dead" in finding.evidence[0].summary
    assert "second controller" in (finding.remediation or "")


def test_the_procfs_fixture_fabrics_controllers() -> None:
    """NetApp ONTAP over TCP with its RDMA controller `connecting`: one live path; the
    PowerStore over FC with one of three controllers `dead`: a path down beside two live."""
    found = {f.entity.name: f for f in judged(PROCFS)[0]}
    assert sorted(found) == ["Dell PowerStore (nvme-subsys0)", "NetApp ONTAP (nvme-subsys1)"]
    netapp = found["NetApp ONTAP (nvme-subsys1)"]
    assert netapp.title == "NetApp ONTAP (nvme-subsys1) has 1 live path"
    assert "nvme4 (rdma to 10.0.0.2:4420): connecting" in netapp.evidence[0].summary
    powerstore = found["Dell PowerStore (nvme-subsys0)"]
    assert powerstore.title == "1 of 3 paths of Dell PowerStore (nvme-subsys0) down"
    assert facts(powerstore)["live paths"] == 2


def test_simulated_powerstore_with_a_path_connecting(tmp_path: Path) -> None:
    found, _ = judged(simulated(tmp_path, SINGLE_PATH))
    assert [f.entity.name for f in found] == [
        "namespace 1 of PowerStore (nvme1n1)",
        "namespace 2 of PowerStore (nvme1n2)",
    ]  # the local Micron SSD, one controller by design, is not among them
    summary = found[0].evidence[0].summary
    assert "1 of 2 paths live where 2 are expected" in summary
    assert (
        "nvme1c1n1 via nvme1 (tcp to 10.162.198.42:4420 from interface ens1f0): "
        "connecting non-optimized" in summary
    )


def test_the_four_path_show_topology_host_is_quiet(tmp_path: Path) -> None:
    """One optimized and three non-optimized paths per namespace: asymmetric by design."""
    assert judged(simulated(tmp_path, SPECS / "nvme_tcp_four_paths.toml")) == ([], [])


def test_local_ssds_alone_are_quiet(tmp_path: Path) -> None:
    assert judged(simulated(tmp_path, SPECS / "nvme_ssds.toml")) == ([], [])


def test_all_paths_through_one_interface(tmp_path: Path) -> None:
    spec = target(
        [
            {"traddr": "10.1.0.10", "host_iface": "ens1f0"},
            {"traddr": "10.2.0.10", "host_iface": "ens1f0", "optimized": []},
        ]
    )
    found, _ = judged(simulated(tmp_path, spec))
    assert [f.title for f in found] == [
        "all 2 paths of namespace 1 of Array (nvme1n1) leave through one adapter",
        "all 2 paths of namespace 2 of Array (nvme1n2) leave through one adapter",
    ]
    assert "every live path leaves through interface ens1f0" in found[0].evidence[0].summary


def test_paths_without_a_known_local_end_are_not_judged_by_adapter(tmp_path: Path) -> None:
    spec = target([{"traddr": "10.1.0.10"}, {"traddr": "10.2.0.10", "optimized": []}])
    assert judged(simulated(tmp_path, spec)) == ([], [])


def test_an_inaccessible_path_leaves_one_live(tmp_path: Path) -> None:
    spec = target(
        [
            {"traddr": "10.1.0.10", "src_addr": "10.1.0.2", "optimized": [1]},
            {
                "traddr": "10.2.0.10",
                "src_addr": "10.2.0.2",
                "optimized": [2],
                "ana_state": "inaccessible",
            },
        ]
    )
    (finding,) = judged(simulated(tmp_path, spec))[0]
    assert finding.entity.name == "namespace 1 of Array (nvme1n1)"
    assert finding.title == "namespace 1 of Array (nvme1n1) has 1 live path"
    down = "nvme1c2n1 via nvme2 (tcp to 10.2.0.10:4420 from local address 10.2.0.2): live"
    assert f"{down} inaccessible" in finding.evidence[0].summary


def test_no_optimized_path_where_the_other_namespaces_have_one(tmp_path: Path) -> None:
    spec = target(
        [
            {"traddr": "10.1.0.10", "src_addr": "10.1.0.2", "optimized": [1]},
            {"traddr": "10.2.0.10", "src_addr": "10.2.0.2", "optimized": [1]},
        ]
    )
    (finding,) = judged(simulated(tmp_path, spec))[0]
    assert finding.title == "namespace 2 of Array (nvme1n2) has no optimized path"
    assert facts(finding)["live paths"] == 2


def test_the_threshold_lowers_what_is_expected(tmp_path: Path) -> None:
    """One live path is enough by the config: what is left to say is the path down."""
    config = parse_config({"rules": {RULE: {"min_live_paths": 1}}}, nvme.RULES, "t.toml")
    found, _ = judged(simulated(tmp_path, SINGLE_PATH), config)
    assert [f.title for f in found] == [
        "1 of 2 paths of namespace 1 of PowerStore (nvme1n1) down",
        "1 of 2 paths of namespace 2 of PowerStore (nvme1n2) down",
    ]
    assert facts(found[0])["live paths expected"] == 1


def test_skipped_with_the_reason(tmp_path: Path) -> None:
    assert judged(simulated(tmp_path, SPECS / "iscsi_two_sessions.toml")) == (
        [],
        ["no NVMe subsystems on this host"],
    )
    older = tmp_path / "older"
    shutil.copytree(DUALPORT, older, symlinks=True)
    shutil.rmtree(older / "sys/class/nvme-subsystem")
    found, reasons = judged(older)
    assert found == [] and len(reasons) == 1
    assert reasons[0].startswith("nvme not collected: /sys/class/nvme-subsystem is absent")
    assert reasons[0].count("not collected") == 1


@pytest.mark.parametrize("state", ["resetting", "deleting"])
def test_a_controller_not_live_is_a_path_down(tmp_path: Path, state: str) -> None:
    spec = target(
        [
            {"traddr": "10.1.0.10", "host_iface": "a"},
            {"traddr": "10.2.0.10", "host_iface": "b", "state": state},
            {"traddr": "10.3.0.10", "host_iface": "c"},
        ],
        namespaces=1,
    )
    (finding,) = judged(simulated(tmp_path, spec))[0]
    assert finding.title == "1 of 3 paths of namespace 1 of Array (nvme1n1) down"


def test_two_ports_of_one_nic_card_are_one_adapter(tmp_path: Path) -> None:
    spec = target(
        [
            {"traddr": "10.1.0.10", "host_iface": "ens1f0"},
            {"traddr": "10.2.0.10", "host_iface": "ens1f1", "optimized": []},
        ],
        namespaces=1,
    )
    spec["nic"] = [
        {"name": "ens1f0", "pci_address": "0000:3b:00.0"},
        {"name": "ens1f1", "pci_address": "0000:3b:00.1"},
    ]
    (finding,) = judged(simulated(tmp_path, spec))[0]
    assert (
        finding.title == "all 2 paths of namespace 1 of Array (nvme1n1) leave through one adapter"
    )
    assert "every live path leaves through NIC card 0000:3b:00" in (finding.evidence[0].summary)
    spec["nic"][1] = {"name": "ens1f1", "pci_address": "0000:5e:00.0"}  # a second card
    assert judged(simulated(tmp_path / "two-cards", spec)) == ([], [])


def test_nvme_fc_paths_through_two_ports_of_one_fc_card(tmp_path: Path) -> None:
    """NVMe/FC: host_traddr names the local FC port; both ports sit on one dual-port card."""
    wwpns = ["0x10000090fa000001", "0x10000090fa000002"]
    paths = [
        {
            "traddr": f"nn-0x200400a0986b432{n}:pn-0x210400a0986b432{n}",
            "host_traddr": f"nn-0x20000090fa00000{n}:pn-{wwpns[n - 1]}",
        }
        | ({"optimized": []} if n == 2 else {})
        for n in (1, 2)
    ]
    spec = target(paths, namespaces=1)
    spec["nvme_target"][0]["transport"] = "fc"
    spec["fc_port"] = [
        {"name": f"fc{n}", "pci_address": f"0000:04:00.{n}", "wwpn": wwpns[n], "luns": 0}
        for n in (0, 1)
    ]
    (finding,) = judged(simulated(tmp_path, spec))[0]
    assert "every live path leaves through FC card 0000:04:00" in (finding.evidence[0].summary)
