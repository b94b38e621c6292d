"""`iscsi.target.single_path` on simulated iSCSI hosts: the dead session of open-iscsi issue
#228 (`iscsiadm -m session -P 3`: session FREE) beside a live one, a healthy host with one
session per port and interface, and sessions that all leave through one interface."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fixture_paths import ROOT, SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.findings import Finding, Severity
from pinchpoint.rules import iscsi
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.engine import evaluate
from pinchpoint.simulator import load_spec, spec_from_data, write_snapshot

RULE = "iscsi.target.single_path"
SINGLE = ROOT / "pinchpoint" / "simulator" / "specs" / "iscsi_single_session.toml"
A, B = "iqn.2003-01.org.linux-iscsi.array1:port-a", "iqn.2003-01.org.linux-iscsi.array1:port-b"


def judged(root: Path) -> tuple[list[Finding], list[str]]:
    context = RuleContext(inventory=collect_inventory(SnapshotSource(root)))
    found, skipped, _ = evaluate(context, iscsi.RULES, None)
    assert not [s for s in skipped if s.reason.startswith("rule failed")], skipped
    return [f for f in found if f.rule == RULE], [s.reason for s in skipped if s.rule == RULE]


def simulated(tmp_path: Path, spec: Path | dict[str, Any]) -> Path:
    out = tmp_path / "snapshot"
    write_snapshot(load_spec(spec) if isinstance(spec, Path) else spec_from_data(spec), out)
    return out


def facts(finding: Finding) -> dict[str, object]:
    return {f.name: f.value for f in finding.evidence[0].facts if f.name != "session"}


def sessions(*extra: dict[str, Any]) -> dict[str, Any]:
    return {"host": {"hostname": "db-3"}, "iscsi_session": list(extra)}


def test_the_dead_session_leaves_each_lun_one(tmp_path: Path) -> None:
    found, _ = judged(simulated(tmp_path, SINGLE))
    assert len(found) == 2  # LUN 0 and LUN 1, each by its WWID across both target IQNs
    (first,) = [f for f in found if f.entity.name.endswith(f"(LUN 0 of {A}, {B})")]
    assert first.entity.id.startswith("iscsi-lun:naa.6001405")
    assert first.title == f"{first.entity.name} has 1 live session"
    assert first.severity is Severity.WARNING
    assert facts(first) == {
        "sessions": 2,
        "live sessions": 1,
        "live sessions expected": 2,
        "interfaces of live sessions": 1,
        "targets": 2,
    }
    assert "down: session1 (sda, 0:0:0:0) to 10.8.100.6:3260: FREE blocked" in (
        first.evidence[0].summary
    )
    assert "iscsiadm -m session -P 3" in (first.remediation or "")


def test_one_session_per_port_and_interface_is_quiet(tmp_path: Path) -> None:
    assert judged(simulated(tmp_path, SPECS / "iscsi_two_sessions.toml")) == ([], [])


def test_two_sessions_through_one_interface(tmp_path: Path) -> None:
    spec = sessions(
        {"target": A, "portal": "10.8.100.6", "netdev": "ens2f0", "luns": [3]},
        {"target": B, "portal": "10.8.101.6", "netdev": "ens2f0", "luns": [3]},
    )
    (finding,) = judged(simulated(tmp_path, spec))[0]
    assert finding.title == f"all 2 sessions of {finding.entity.name} leave through one interface"
    assert "every live session leaves through interface ens2f0" in finding.evidence[0].summary


def test_one_session_alone(tmp_path: Path) -> None:
    spec = sessions({"target": A, "portal": "10.8.100.6", "local_address": "10.8.100.20"})
    (finding,) = judged(simulated(tmp_path, spec))[0]
    assert finding.entity.name.endswith(f"(LUN 0 of {A})")
    assert facts(finding)["sessions"] == 1 and "losing it" in finding.evidence[0].summary


def test_luns_of_two_arrays_are_not_one(tmp_path: Path) -> None:
    spec = sessions(
        {"target": A, "portal": "10.8.100.6", "netdev": "a", "array": "x", "luns": [0]},
        {"target": B, "portal": "10.8.101.6", "netdev": "b", "array": "y", "luns": [0]},
    )
    found, _ = judged(simulated(tmp_path, spec))
    assert len(found) == 2  # LUN 0 of two arrays: two LUs with one session each


def test_sessions_without_a_known_interface_are_not_judged_by_it(tmp_path: Path) -> None:
    spec = sessions(
        {"target": A, "portal": "10.8.100.6", "luns": [0]},
        {"target": B, "portal": "10.8.101.6", "luns": [0]},
    )
    assert judged(simulated(tmp_path, spec)) == ([], [])


def test_skipped_with_the_reason(tmp_path: Path) -> None:
    assert judged(simulated(tmp_path, SPECS / "nvme_ssds.toml")) == (
        [],
        ["no iSCSI sessions on this host"],
    )
