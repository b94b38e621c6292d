"""`queue.hdd.too_deep` on field case 4 (`tests/fixtures/specs/queue_too_deep.toml`) and random
writes behind a deep queue, not on streaming I/O (a sequential stream, the healthy host and the
demo after recabling) nor on a queue a missing path built."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_paths import SPECS

from pinchpoint.model.breakdown import GroupLevel
from pinchpoint.model.zfs import Pool, Vdev, VdevKind
from pinchpoint.rules.base import RuleContext
from pinchpoint.rules.config import parse_config
from pinchpoint.rules.derived.breakdown import group_figures
from pinchpoint.rules.engine import evaluate
from pinchpoint.rules.queue import RULES
from pinchpoint.simulator import DEMO_SPEC_PATH, HostSpec, load_spec, spec_from_data
from pinchpoint.simulator.spec.rest_of_host import MdSpec
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


# -- disks off the SAS fabric (issue 15): pinchpoint/simulator/specs/ahci_deep_queue.toml ----


def test_sata_hdds_on_an_ahci_controller_at_ncq_32(ahci_deep: RuleContext) -> None:
    """Field case 4 on a chipset AHCI controller: the finding names the controller, the
    setting (queue_depth 32, nr_requests 64) and the disk's own file in the fix."""
    (found,) = findings(ahci_deep)
    assert found.entity.kind.value == "controller"
    assert found.entity.name == "AHCI 0000:00:17.0"
    facts = {f.name: f.value for f in found.evidence[0].facts}
    assert facts["queue_depth"] == 32 and facts["nr_requests"] == 64
    assert facts["I/Os allowed per disk"] == 32
    affected = facts["HDDs affected"]
    assert isinstance(affected, int) and affected >= 3
    queue = facts["mean queue per disk"]
    assert isinstance(queue, float) and queue >= 16  # half of the allowance held
    wait = facts["mean wait"]
    assert isinstance(wait, float) and wait > 100  # diskstats: no histograms on this host
    assert facts["mean read size"] == 8.0
    assert "AHCI 0000:00:17.0" in found.title
    assert (
        "/device/queue_depth" in found.remediation and "echo 2 > /sys/block/sd" in found.remediation
    )


def test_a_queue_depth_of_two_on_the_ahci_disks_is_fine(ahci_deep: RuleContext) -> None:
    inventory = ahci_deep.inventory.model_copy(deep=True)
    for device in inventory.block.devices:
        device.queue_depth = 2
    assert findings(changed(ahci_deep, inventory)) == []


def pooled(context: RuleContext, names: list[str], parameters: dict[str, int]) -> RuleContext:
    """The host with a ZFS pool mirroring `names` (partition 1 of each, as ZFS lays out a
    whole disk) and the `zfs_vdev_*` parameters given."""
    inventory = context.inventory.model_copy(deep=True)
    leaves = [
        Vdev(id=f"zpool:tank/{n}1", name=f"{n}1", kind=VdevKind.DISK, block_device=f"{n}1")
        for n in names
    ]
    mirror = Vdev(id="zpool:tank/mirror-0", name="mirror-0", kind=VdevKind.MIRROR, children=leaves)
    inventory.zfs.pools = [Pool(id="zpool:tank", name="tank", state="ONLINE", vdevs=[mirror])]
    inventory.zfs.vdev_queue_parameters = parameters
    return changed(context, inventory)


def test_zfs_caps_pool_disks_on_any_controller(ahci_deep: RuleContext) -> None:
    """ZFS's own per-leaf allowance applies to the AHCI disks of a pool: at 3 I/Os they are
    not too deep whatever NCQ allows; at 10 it is named in the evidence."""
    hdds = ["sda", "sdb", "sdc", "sdd", "sde", "sdf"]
    low = {n: 3 for n in ("zfs_vdev_sync_read_max_active", "zfs_vdev_async_write_max_active")}
    assert findings(pooled(ahci_deep, hdds, low)) == []
    ten = {n: 10 for n in low}
    (found,) = findings(pooled(ahci_deep, hdds, ten))
    facts = {f.name: f.value for f in found.evidence[0].facts}
    assert facts["zfs_vdev_sync_read_max_active"] == 10
    assert facts["I/Os allowed per disk"] == 10


def test_a_pool_elsewhere_does_not_cap_disks_outside_it(ahci_deep: RuleContext) -> None:
    low = {"zfs_vdev_sync_read_max_active": 2, "zfs_vdev_async_write_max_active": 2}
    (found,) = findings(pooled(ahci_deep, ["sdg", "sdh"], low))  # a pool on the SSDs only
    assert found.entity.name == "AHCI 0000:00:17.0"
    facts = {f.name: f.value for f in found.evidence[0].facts}
    assert "zfs_vdev_sync_read_max_active" not in facts


def test_healthy_nvme_and_virtio_hosts_are_not_judged_too_deep(
    nvme_healthy: RuleContext, virtio_vm: RuleContext
) -> None:
    """NVMe flash is not an HDD; the VM's virtio disks hold 90 of the 256 I/Os nr_requests
    allows: not the setting's fill (latency.threshold judges their wait)."""
    assert findings(nvme_healthy) == []
    assert findings(virtio_vm) == []


def test_an_md_array_over_deep_queued_hdds_is_judged_through_its_members(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The six HDDs of `ahci_deep_queue` as one RAID 6 array: the queue the knob sets is the
    members' (NCQ 32, nr_requests 64), so the finding stays on their controller; the array's
    own `queue/nr_requests` (128, a bio-based queue) is no finding and the array no entity."""
    host = load_spec(DEMO_SPEC_PATH.parent / "ahci_deep_queue.toml")
    members = ["sda", "sdb", "sdc", "sdd", "sde", "sdf"]
    md = MdSpec(name="md0", level="raid6", members=members)
    context = simulated(tmp_path_factory, host.model_copy(update={"md": [md]}))
    array = context.inventory.block.by_name("md0")
    assert array is not None and array.nr_requests == 128 and array.slaves == members
    found, _, _ = evaluate(context, RULES)
    assert [(f.rule, f.entity.name) for f in found] == [
        ("queue.hdd.too_deep", "AHCI 0000:00:17.0"),
        ("queue.ssd.too_shallow", "AHCI 0000:05:00.0"),  # the spec's SSDs at NCQ 1
    ]
    assert not [f for f in found if "md0" in f.model_dump_json()]
