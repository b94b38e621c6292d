"""The simulator's error counters (`counters` of `[[nic]]` and `[[fc_port]]`): what it writes
reads back through the collectors, and a bad value names its field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fixture_paths import ROOT

from pinchpoint.checks.collect.inventory import collect_inventory
from pinchpoint.checks.source import SnapshotSource
from pinchpoint.simulator import SpecError, load_spec, spec_from_data, write_snapshot

EXAMPLES = ROOT / "pinchpoint" / "simulator" / "specs"


def test_nic_and_fc_counters_read_back(tmp_path: Path) -> None:
    write_snapshot(load_spec(EXAMPLES / "counters_rising_2.toml"), tmp_path)
    inventory = collect_inventory(SnapshotSource(tmp_path))
    assert inventory.problems == []
    nics = {n.name: n for n in inventory.network.nics}
    flapping = nics["ens2f0"].counters
    assert flapping is not None
    assert flapping.statistics["rx_crc_errors"] == 460
    assert flapping.statistics["tx_errors"] == 0
    assert flapping.statistics["rx_packets"] > 0  # the link is up and carried traffic
    assert (flapping.carrier_changes, flapping.carrier_up_count) == (8, 4)
    assert flapping.carrier_down_count == 4
    assert flapping.driver["port.rx_crc_errors"] == 460  # ethtool -S only
    assert "port.rx_crc_errors" not in flapping.statistics
    quiet = nics["eno1"].counters
    assert quiet is not None and quiet.carrier_changes == 2 and quiet.driver["rx_errors"] == 0
    ports = {p.scsi_host: p.statistics for p in inventory.fc.ports}
    assert ports["host0"].link_failure_count == 4
    assert ports["host0"].invalid_crc_count == 57
    assert ports["host1"].invalid_crc_count == 0
    assert (tmp_path / "sys/class/fc_host/host0/statistics/invalid_crc_count").read_text() == (
        "0x39\n"
    )
    assert inventory.host.captured_at is not None
    assert inventory.host.captured_at.isoformat() == "2025-01-01T00:15:00+00:00"


def test_a_nic_that_is_down_counts_one_carrier_change(tmp_path: Path) -> None:
    spec = spec_from_data({"nic": [{"name": "eth0", "operstate": "down"}]})
    write_snapshot(spec, tmp_path)
    (nic,) = collect_inventory(SnapshotSource(tmp_path)).network.nics
    assert nic.counters is not None
    assert (nic.counters.carrier_changes, nic.counters.carrier_up_count) == (1, 0)
    assert nic.counters.statistics["rx_packets"] == 0


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"nic": [{"name": "eth0", "counters": {"rx_errors": -1}}]},
            "nic[0].counters: rx_errors: a counter is never negative, not -1",
        ),
        (
            {"nic": [{"name": "eth0", "counters": {"rx errors": 1}}]},
            "nic[0].counters: 'rx errors' is not a counter name",
        ),
        (
            {"fc_port": [{"name": "a", "counters": {"..": 1}}]},
            "fc_port[0].counters: '..' is not a counter name",
        ),
        (
            {"fc_port": [{"name": "a", "counters": {"../x": 1}}]},
            "fc_port[0].counters: '../x' is not a counter name",
        ),
    ],
)
def test_a_bad_counter_names_its_field(data: dict[str, Any], message: str) -> None:
    """Counter names become file names: never a path."""
    with pytest.raises(SpecError) as caught:
        spec_from_data(data)
    assert message in str(caught.value)
