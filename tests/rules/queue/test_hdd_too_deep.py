"""`queue.hdd.too_deep` on field case 4 (`tests/fixtures/specs/queue_too_deep.toml`) and random
writes behind a deep queue, not on streaming I/O (a sequential stream, the healthy host and the
demo after recabling) nor on a queue a missing path built."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_paths import SPECS

from pinchpoint.model.breakdown import GroupLevel
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.config import parse_config
from pinchpoint.rules.derived.breakdown import group_figures
from pinchpoint.rules.queue import RULES
from pinchpoint.simulator import DEMO_SPEC_PATH, HostSpec, load_spec, spec_from_data
from tests.rules.queue.conftest import (
    changed,
    findings,
    simulated,
    with_queue_depth,
)


def test_field_case_4_hdds_holding_32_ios_with_a_long_tail(deep: RuleContext) -> None:
    found = findings(deep)
    assert [f.entity.name for f in found] == ["JBOD-Q"]
    facts = {f.name: f.value for f in found[0].evidence[0].facts}
    assert facts["queue_depth"] == 32
    assert facts["zfs_vdev_sync_read_max_active"] == 35
    assert facts["I/Os allowed per disk"] == 32
    assert facts["HDDs affected"] == 12
    assert facts["recommended"] == 2
    assert facts["I/Os judged"] == "read"  # random 64 KiB reads: each one a seek
    assert facts["mean read size"] == 64.0
    assert facts["latency from"] == "disk_wait/read histograms"  # time on the device
    p90 = facts["p90 latency"]
    assert isinstance(p90, float) and 100 < p90 < 300  # the field saw 148 ms
    assert "read p90" in found[0].title
    assert "zfs_vdev_*_max_active" in found[0].remediation


def test_a_tail_limit_above_the_p90_silences_it(deep: RuleContext) -> None:
    config = parse_config(
        {"rules": {"queue.hdd.too_deep": {"tail_p90_ms": 1e7}}}, RULES, "test.toml"
    )
    assert findings(deep, config) == []


def test_ssds_are_not_judged(deep: RuleContext) -> None:
    inventory = deep.inventory.model_copy(deep=True)
    for disk in inventory.sas.disks:
        disk.rotational = False
    assert findings(changed(deep, inventory)) == []


def test_queue_within_the_allowance_of_two_is_fine(deep: RuleContext) -> None:
    context = with_queue_depth(deep, 2)
    context.inventory.zfs.vdev_queue_parameters = {"zfs_vdev_sync_read_max_active": 2}
    assert findings(context) == []


def test_queues_built_by_a_missing_path_are_not_blamed_on_the_setting(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The demo's single-pathed JBODs hold 8 of ZFS's 10 I/Os; their peers with the same
    setting hold 3: the topology is the cause (latency.group.outlier), not the queue."""
    assert findings(simulated(tmp_path_factory, DEMO_SPEC_PATH)) == []


def host_spec(load: dict[str, object], zfs: bool = False) -> HostSpec:
    """One HBA and a 12-bay JBOD of HDDs at queue depth 32 given `load` (no ZFS: every I/O
    goes straight to the block layer, so the queue holds what the bursts bring)."""
    data: dict[str, object] = {
        "host": {"hostname": "deep-queue-no-zfs"},
        "hba": [{"name": "hba1"}],
        "enclosure": [{"name": "JBOD-Q", "bays": 12, "io_modules": 1, "disk": {"queue_depth": 32}}],
        "chain": [{"hba": "hba1", "io_module": "A", "enclosures": ["JBOD-Q"]}],
        "workload": {
            "samples": 5,
            "interval_s": 10.0,
            "seed": 4,
            "load": [{"enclosures": ["JBOD-Q"], **load}],
        },
    }
    return spec_from_data(data, "test")


def test_random_small_writes_behind_a_deep_queue_are_field_case_4_too(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """8 KiB random writes in bursts of 64, no ZFS and no histograms: judged on their mean
    wait (w_await)."""
    load = {"read_share": 0.0, "io_kib": 8, "iops": 150.0, "pattern": "random", "burst": 64}
    context = simulated(tmp_path_factory, host_spec(load))
    (finding,) = findings(context)
    facts = {f.name: f.value for f in finding.evidence[0].facts}
    assert facts["I/Os judged"] == "write"
    assert facts["p90 latency"] is None and str(facts["latency from"]).startswith("diskstats")
    wait = facts["mean wait"]
    assert isinstance(wait, float) and wait > 50
    assert "write mean wait" in finding.title


def test_a_sequential_stream_behind_the_same_queue_is_not(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The same disks holding as many 1 MiB sequential reads: the wait is the transfer time
    of the reads ahead, which a queue of 2 would not shorten."""
    load = {"read_share": 1.0, "io_kib": 1024, "iops": 150.0, "pattern": "sequential", "burst": 64}
    context = simulated(tmp_path_factory, host_spec(load))
    disks = group_figures(context, GroupLevel.DISK)
    assert min(g.queue_per_member or 0.0 for g in disks) > 16  # the queue is deep and full
    assert min(g.await_ms or 0.0 for g in disks) > 50  # … and the wait long
    assert findings(context) == []


@pytest.mark.parametrize(
    "spec",
    [SPECS / "field_case_1_recabled.toml", SPECS / "healthy_host.toml"],
    ids=["demo after recabling", "healthy host"],
)
def test_a_streaming_write_is_not_field_case_4(
    tmp_path_factory: pytest.TempPathFactory, spec: Path
) -> None:
    """The demo after recabling (its streaming write: 1 MiB I/Os in txg bursts of 16) holds
    8–9 of ZFS's 10 async writes per disk with a p90 of seconds; the healthy host under the
    same heavy write too. Neither is a queue setting to lower: no finding."""
    host = load_spec(spec)
    assert host.workload is not None
    heavy = host.workload.load[0].model_copy(update={"mbps": 40.0, "burst": 16})
    host = host.model_copy(update={"workload": host.workload.model_copy(update={"load": [heavy]})})
    context = simulated(tmp_path_factory, host)
    queues = [g.queue_per_member or 0.0 for g in group_figures(context, GroupLevel.DISK)]
    assert max(queues) > 4  # deeper than an HDD should hold: the rule has to look
    assert findings(context) == []
