"""The real `nvme list-subsys` and `nvme show-topology` captures (nvme-cli PRs 1540 and 1693)
reproduced by simulated hosts, path for path: what nvme-cli printed, the collector reads back,
and the rule says nothing of these healthy hosts (one optimized path beside non-optimized ones
is asymmetric access by design)."""

from __future__ import annotations

import re
from pathlib import Path

from fixture_paths import FIXTURES, SPECS

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.model.inventory import Inventory
from pinchpoint.rules import nvme
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.engine import evaluate
from pinchpoint.simulator import load_spec, spec_from_data, write_snapshot

NVME = FIXTURES / "nvme"
LIST_SUBSYS = (
    NVME / "nvme-cli_pr1540__nvme_list-subsys_dell_powerstore_tcp_optimized_non-optimized.txt"
)
SHOW_TOPOLOGY = (
    NVME / "nvme-cli_pr1693__nvme_show-topology_tcp_4_paths_per_ns_mixed_ana_plus_pcie.txt"
)
# ` +- nvme2 tcp traddr=192.168.154.10,trsvcid=4421 live non-optimized`
_PATH = re.compile(r"^\s*\+- (nvme\d+) (\w+) traddr=([^,\s]+),trsvcid=(\d+) (\w+)(?: (\S+))?$")
_NS = re.compile(r"^\s*\+- ns id (\d+)$")
_NQN = re.compile(r"^(nvme-subsys\d+) - NQN=(\S+)")

Row = tuple[
    str, str, str, str, str, str | None
]  # controller, transport, traddr, trsvcid, state, ANA


def printed(path: Path, nqn: str) -> dict[int, list[Row]]:
    """Per namespace (0 where the listing names none), the paths nvme-cli printed."""
    found: dict[int, list[Row]] = {}
    current, nsid = None, 0
    for line in path.read_text().splitlines():
        if match := _NQN.match(line):
            current = match.group(2)
        elif current == nqn and (match := _NS.match(line)):
            nsid = int(match.group(1))
        elif current == nqn and (match := _PATH.match(line)):
            found.setdefault(nsid, []).append(match.groups())  # type: ignore[arg-type]
    return found


def read_back(inventory: Inventory, nqn: str) -> dict[int, list[Row]]:
    (subsystem,) = [s for s in inventory.nvme.subsystems if s.nqn == nqn]
    found: dict[int, list[Row]] = {}
    for ns in subsystem.namespaces:
        rows = []
        for path in ns.paths:
            c = subsystem.controller(path.controller)
            assert c is not None and c.target_address and c.target_port and c.transport
            rows.append(
                (
                    c.name,
                    c.transport,
                    c.target_address,
                    c.target_port,
                    c.state or "",
                    path.ana_state,
                )
            )
        found[ns.nsid or 0] = rows
    return found


def checked(tmp_path: Path, spec_data: dict[str, object]) -> Inventory:
    write_snapshot(spec_from_data(spec_data), tmp_path / "s")
    inventory = collect_inventory(SnapshotSource(tmp_path / "s"))
    found, _, _ = evaluate(RuleContext(inventory=inventory), nvme.RULES, None)
    assert found == []
    return inventory


def test_show_topology_host_path_for_path(tmp_path: Path) -> None:
    spec = load_spec(SPECS / "nvme_tcp_four_paths.toml").model_dump(exclude_defaults=True)
    inventory = checked(tmp_path, spec)
    want = printed(SHOW_TOPOLOGY, "nvmet-test")
    got = read_back(inventory, "nvmet-test")
    renumbered = {"nvme1": "nvme2", "nvme2": "nvme3", "nvme3": "nvme4", "nvme4": "nvme5"}
    got = {ns: sorted((renumbered[r[0]], *r[1:]) for r in rows) for ns, rows in got.items()}
    assert got == {ns: sorted(rows) for ns, rows in want.items()}
    assert len(want) == 4 and all(len(rows) == 4 for rows in want.values())


def test_list_subsys_powerstore_path_for_path(tmp_path: Path) -> None:
    """The PowerStore as nvme-cli printed it: both controllers live, nvme1 non-optimized and
    nvme2 optimized (list-subsys shows the first namespace's paths only); its `nvme-subsys1`
    says another subsystem came first: a local SSD, `nvme0`."""
    nqn = "nqn.1988-11.com.dell:powerstore:00:f03028e73ef7D032D81E"
    spec = {
        "host": {"hostname": "powerstore-client"},
        "nvme": [{}],
        "nvme_target": [
            {
                "nqn": nqn,
                "model": "PowerStore",
                "path": [
                    {"traddr": "10.162.198.42", "optimized": []},
                    {"traddr": "10.162.198.45"},
                ],
            }
        ],
    }
    inventory = checked(tmp_path, spec)
    assert read_back(inventory, nqn)[1] == printed(LIST_SUBSYS, nqn)[0]
