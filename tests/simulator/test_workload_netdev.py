"""The simulator's `/proc/net/dev` samples: the kernel's format, consistent counters, bonds as
the sum of their members, links carrying at most what their negotiated speed allows."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pinchpoint.checks.parse.netdev import parse_net_dev
from pinchpoint.model.stats import NetDevCounters
from pinchpoint.simulator import SpecError, spec_from_data
from pinchpoint.simulator.workload_netdev import net_dev_texts

COUNTED = ("rx_bytes", "rx_packets", "rx_multicast", "tx_bytes", "tx_packets")


def parsed(text: str) -> dict[str, NetDevCounters]:
    interfaces, skipped = parse_net_dev(text)
    assert skipped.count == 0
    return {c.interface: c for c in interfaces}


def small_spec(**workload: Any) -> dict[str, Any]:
    """Three 1 GbE NICs (one whose switch port allows only 100 Mb/s) and a bond of two."""
    return {
        "nic": [
            {"name": "eno1", "pci_address": "0000:02:00.0", "driver": "igb", "bond": "bond0"},
            {"name": "eno2", "pci_address": "0000:02:00.1", "driver": "igb", "bond": "bond0"},
            {
                "name": "eno3",
                "pci_address": "0000:02:00.2",
                "driver": "igb",
                "partner_mbps": [10, 100],
            },
        ],
        "bond": [{"name": "bond0", "mode": "active-backup", "primary": "eno2"}],
        "workload": {"samples": 4, "interval_s": 5.0} | workload,
    }


def test_every_sample_in_the_kernels_format(scenario: Callable[[str], Path]) -> None:
    root = scenario("downgraded_nic")
    texts = [(root / f"samples/{n}/proc/net/dev").read_text() for n in range(7)]
    assert not (root / "samples/7").exists()
    assert (root / "proc/net/dev").read_text() == texts[-1]
    for text in texts:
        assert text.startswith("Inter-|   Receive")
        assert list(parsed(text)) == ["lo", "eno1", "enp2s0f0", "enp2s0f1", "enp2s0f2"]
    for before, after in itertools.pairwise(texts):
        old, new = parsed(before), parsed(after)
        for name, counters in new.items():
            assert all(getattr(counters, c) >= getattr(old[name], c) for c in COUNTED)


def test_the_downgraded_nic_carries_what_100_mbps_allows(scenario: Callable[[str], Path]) -> None:
    root = scenario("downgraded_nic")
    first = parsed((root / "samples/0/proc/net/dev").read_text())
    last = parsed((root / "samples/6/proc/net/dev").read_text())
    seconds = 60.0
    rx_mb_s = {n: (last[n].rx_bytes - first[n].rx_bytes) / seconds / 1e6 for n in last}
    assert 11.0 < rx_mb_s["eno1"] < 12.0  # 100 Mb/s × 0.94, plus the idle trickle
    for peer in ("enp2s0f0", "enp2s0f1", "enp2s0f2"):
        assert 28.0 < rx_mb_s[peer] < 42.0  # offered 35 MB/s: carried in full


def test_the_demo_bond_is_the_sum_of_its_members(demo_root: Path) -> None:
    for n in (0, 12):
        lines = parsed((demo_root / f"samples/{n}/proc/net/dev").read_text())
        assert list(lines) == ["lo", "eno1", "ens1f0", "ens1f1", "bond0"]
        for field in COUNTED:
            members = getattr(lines["ens1f0"], field) + getattr(lines["ens1f1"], field)
            assert getattr(lines["bond0"], field) == members


def test_active_backup_carries_everything_on_the_active_member() -> None:
    spec = spec_from_data(small_spec(network=[{"interface": "bond0", "rx_mb_s": 50.0}]))
    texts = net_dev_texts(spec, [100.0, 105.0, 110.0, 115.0])
    first, last = parsed(texts[0]), parsed(texts[-1])
    grew = {n: last[n].rx_bytes - first[n].rx_bytes for n in last}
    assert grew["eno2"] > 200_000_000  # the primary: ≈ 50 MB/s for 15 s
    assert grew["eno1"] < 100_000  # the backup: only the idle trickle
    assert grew["bond0"] == grew["eno1"] + grew["eno2"]


def test_a_link_never_carries_more_than_its_speed() -> None:
    spec = spec_from_data(small_spec(network=[{"interface": "eno3", "tx_mb_s": 500.0}]))
    texts = net_dev_texts(spec, [100.0, 105.0])
    first, last = parsed(texts[0]), parsed(texts[1])
    tx_bytes_s = (last["eno3"].tx_bytes - first["eno3"].tx_bytes) / 5.0
    assert tx_bytes_s <= 100e6 / 8 * 0.94 + 1_000 + 1


def test_a_nic_whose_link_is_down_stays_at_zero() -> None:
    data = small_spec(network=[{"interface": "eno1", "rx_mb_s": 10.0}])
    data["nic"][0]["operstate"] = "down"
    texts = net_dev_texts(spec_from_data(data), [100.0, 105.0])
    assert parsed(texts[1])["eno1"].rx_bytes == 0


@pytest.mark.parametrize(
    ("network", "message"),
    [
        ([{"interface": "eth9", "rx_mb_s": 1.0}], "workload.network[0].interface: unknown NIC"),
        ([{"interface": "eno1", "rx_mb_s": -1.0}], "workload.network[0].rx_mb_s"),
        ([{"interface": "eno1", "speed": 1.0}], "workload.network[0].speed"),
    ],
)
def test_bad_network_loads_are_refused(network: list[dict[str, Any]], message: str) -> None:
    with pytest.raises(SpecError, match=message.replace("[", r"\[").replace("]", r"\]")):
        spec_from_data(small_spec(network=network))
