"""The dead session of open-iscsi issue #228 (`iscsiadm -m session -P 3`, a partial paste) is
what the simulated `iscsi_single_session.toml` host holds: the collector reads back the portal,
portal group, iface, initiator and session state iscsiadm printed from the same sysfs files."""

from __future__ import annotations

import re
from pathlib import Path

from fixture_paths import FIXTURES, ROOT

from pinchpoint.checks.collect.iscsi import collect_iscsi
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.checks.source.sysfs import ProblemLog
from pinchpoint.simulator import load_spec, write_snapshot

CAPTURE = (
    FIXTURES
    / "iscsi"
    / "open-iscsi_issue228__iscsiadm_-m_session_-P_3_TRANSPORT_WAIT_FREE_REOPEN_partial.txt"
)
SPEC = ROOT / "pinchpoint" / "simulator" / "specs" / "iscsi_single_session.toml"


def printed(key: str) -> str:
    match = re.search(rf"^\s*{re.escape(key)}: (.*)$", CAPTURE.read_text(), re.M)
    assert match, key
    return match.group(1).strip()


def test_the_simulated_dead_session_is_the_captured_one(tmp_path: Path) -> None:
    write_snapshot(load_spec(SPEC), tmp_path / "s")
    dead = collect_iscsi(SnapshotSource(tmp_path / "s"), ProblemLog()).sessions[0]
    portal, tpgt = printed("Current Portal").split(",")
    assert (dead.portal, dead.tpgt) == (portal, int(tpgt))  # 10.8.100.6:3260, 1
    assert dead.state == printed("iSCSI Session State")  # FREE
    assert dead.iface == printed("Iface Name")  # default
    assert dead.initiator == printed("Iface Initiatorname")
    assert printed("Iface Netdev") == "<empty>" and dead.netdev is None
    assert printed("Iface IPaddress") == "<empty>" and dead.local_address is None
    assert printed("Host Number").startswith("14") and dead.scsi_host == "host0"  # renumbered
