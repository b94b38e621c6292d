"""Attaching statistics to inventory entities: kernel names, ZFS leaf paths, multipath names.

The inventory here is built by hand (one HBA, two JBODs, a dual-pathed and a single-pathed disk,
a ZFS leaf, an FC LUN behind a multipath map and one without), small enough to read at a glance.
"""

from __future__ import annotations

from pinchpoint.model.block import BlockDevice, BlockInventory, BlockKind, BlockPartition
from pinchpoint.model.fc import FcAdapter, FcInventory, FcLun, FcPort
from pinchpoint.model.inventory import HostInfo, Inventory, SourceKind
from pinchpoint.model.multipath import (
    MultipathInventory,
    MultipathMap,
    MultipathPath,
    MultipathPathGroup,
)
from pinchpoint.model.sas import Chain, Disk, DiskPath, Enclosure, Hba, HbaPort, SasFabric
from pinchpoint.model.zfs import Pool, Vdev, VdevKind, ZfsInventory
from pinchpoint.stats.attach import (
    AttachedKind,
    DeviceRole,
    EntityIndex,
    attach_names,
    wwid_key,
)

HBA = "hba:0000:03:00.0"
PORT_A = f"{HBA}/connector:0"
PORT_B = f"{HBA}/connector:1"
DUAL = "disk:naa.5000cca5488507cc"  # JBOD-001, paths sda (port A) and sdc (port B)
SINGLE = "disk:naa.5000cca5488507d0"  # JBOD-002, path sdb (port A) only
FC_PORT = "fc-port:0x1000e0071bce95f2"
FC_ADAPTER = "hba:0000:04:00.0"
LUN_WWID = "360060160ade32800f2e3baf47665e211"
LUN = f"mpath:{LUN_WWID}"
LONE_LUN = f"{FC_PORT}/target:0x500601603ce0a1b2/lun:7"


def _path(disk: str, port: str, hctl: str, device: str) -> DiskPath:
    return DiskPath(id=f"path:{hctl}", hba_id=HBA, hba_port_id=port, hctl=hctl, block_device=device)


def small_inventory() -> Inventory:
    """One HBA with two ports; JBOD-001 on both, JBOD-002 on port A only; FC with two LUNs."""
    disks = [
        Disk(
            id=DUAL,
            wwid="naa.5000cca5488507cc",
            serial="CH461MGD",
            enclosure_id="enclosure:1",
            slot=0,
            paths=[_path(DUAL, PORT_A, "1:0:0:0", "sda"), _path(DUAL, PORT_B, "1:0:9:0", "sdc")],
            hba_ports=2,
        ),
        Disk(
            id=SINGLE,
            wwid="naa.5000cca5488507d0",
            serial="CH461XYZ",
            enclosure_id="enclosure:2",
            slot=3,
            paths=[_path(SINGLE, PORT_A, "1:0:1:0", "sdb")],
            hba_ports=1,
        ),
    ]
    sas = SasFabric(
        hbas=[
            Hba(
                id=HBA,
                pci_address="0000:03:00.0",
                scsi_host="host1",
                driver="mpt3sas",
                board_name="SAS9300-8e",
                ports=[
                    HbaPort(id=PORT_A, name="port-1:0", hba_id=HBA, connector=0, width=4),
                    HbaPort(id=PORT_B, name="port-1:1", hba_id=HBA, connector=1, width=4),
                ],
            )
        ],
        enclosures=[
            Enclosure(id="enclosure:1", logical_id="0x1", nickname="JBOD-001", hba_ports=2),
            Enclosure(id="enclosure:2", logical_id="0x2", nickname="JBOD-002", hba_ports=1),
        ],
        chains=[
            Chain(
                id=f"chain:{PORT_A}",
                hba_id=HBA,
                hba_port_id=PORT_A,
                enclosure_ids=["enclosure:1", "enclosure:2"],
                branches=[["enclosure:1", "enclosure:2"]],
            ),
            Chain(
                id=f"chain:{PORT_B}",
                hba_id=HBA,
                hba_port_id=PORT_B,
                enclosure_ids=["enclosure:1"],
                branches=[["enclosure:1"]],
            ),
        ],
        disks=disks,
    )
    fc_port = FcPort(
        id=FC_PORT,
        scsi_host="host5",
        host_number=5,
        port_name="0x1000e0071bce95f2",
        port_state="Online",
        speed_text="16 Gbit",
        adapter_id=FC_ADAPTER,
        luns=[
            FcLun(
                id=f"{FC_PORT}/target:0x500601603ce0a1b2/lun:4",
                hctl="5:0:0:4",
                local_port_id=FC_PORT,
                lun=4,
                block_device="sdk",
                wwid="naa.60060160ade32800f2e3baf47665e211",
            ),
            FcLun(
                id=LONE_LUN,
                hctl="5:0:0:7",
                local_port_id=FC_PORT,
                lun=7,
                block_device="sdm",
                wwid="naa.60060160ade32800aaaaaaaaaaaaaaaa",
            ),
        ],
    )
    multipath = MultipathInventory(
        maps=[
            MultipathMap(
                id=LUN,
                wwid=LUN_WWID,
                name="mpatha",
                dm_device="dm-3",
                vendor="DGC",
                product="VRAID",
                path_groups=[
                    MultipathPathGroup(
                        index=1,
                        paths=[
                            MultipathPath(id=f"{LUN}/path:5:0:0:4", hctl="5:0:0:4", device="sdk"),
                            MultipathPath(
                                id=f"{LUN}/path:6:0:0:4",
                                hctl="6:0:0:4",
                                device="sdl",
                                fc_port_id="fc-port:0x1000e0071bce95f3",
                            ),
                        ],
                    )
                ],
            )
        ]
    )
    block = BlockInventory(
        devices=[
            BlockDevice(
                id="block:naa.5000cca5488507cc/path:1:0:0:0",
                name="sda",
                kind=BlockKind.SCSI_DISK,
                wwid="naa.5000cca5488507cc",
                partitions=[BlockPartition(id="p1", name="sda1", number=1)],
            ),
            BlockDevice(
                id="block:naa.5000cca5488507d0",
                name="sdx",  # renamed since the SAS walk: found by its WWID
                kind=BlockKind.SCSI_DISK,
                wwid="naa.5000cca5488507d0",
            ),
            BlockDevice(id="block:nvme", name="nvme0n1", kind=BlockKind.NVME, wwid="eui.0025"),
        ]
    )
    leaf = Vdev(
        id="zpool:tank/mirror-0/dev/disk/by-id/wwn-0x5000cca5488507cc-part1",
        name="/dev/disk/by-id/wwn-0x5000cca5488507cc-part1",
        kind=VdevKind.DISK,
        device_path="/dev/disk/by-id/wwn-0x5000cca5488507cc-part1",
        block_device="sda1",
    )
    zfs = ZfsInventory(
        pools=[
            Pool(
                id="zpool:tank",
                name="tank",
                vdevs=[
                    Vdev(
                        id="zpool:tank/mirror-0",
                        name="mirror-0",
                        kind=VdevKind.MIRROR,
                        children=[leaf],
                    )
                ],
            )
        ]
    )
    return Inventory(
        host=HostInfo(source=SourceKind.SNAPSHOT),
        sas=sas,
        fc=FcInventory(
            ports=[fc_port],
            adapters=[
                FcAdapter(
                    id=FC_ADAPTER,
                    pci_address="0000:04:00.0",
                    card_address="0000:04:00",
                    card_id="card:0000:04:00",
                    driver="lpfc",
                    model="LPe31002",
                    port_ids=[FC_PORT],
                )
            ],
        ),
        multipath=multipath,
        block=block,
        zfs=zfs,
    )


def test_each_path_of_a_dual_pathed_disk_attaches_to_the_disk_with_its_route() -> None:
    index = EntityIndex(small_inventory())
    sda, sdc = index.attach("sda"), index.attach("sdc")
    assert sda is not None and sdc is not None
    assert (sda.kind, sda.entity_id, sda.role) == (AttachedKind.DISK, DUAL, DeviceRole.PATH)
    assert (sda.hba_port_id, sdc.hba_port_id) == (PORT_A, PORT_B)
    assert sdc.entity_id == DUAL


def test_a_single_pathed_disk_is_its_only_device() -> None:
    sdb = EntityIndex(small_inventory()).attach("sdb")
    assert sdb is not None
    assert (sdb.entity_id, sdb.role, sdb.hba_port_id) == (SINGLE, DeviceRole.WHOLE, PORT_A)


def test_a_block_device_renamed_since_the_sas_walk_is_found_by_its_wwid() -> None:
    sdx = EntityIndex(small_inventory()).attach("sdx")
    assert sdx is not None
    assert sdx.entity_id == SINGLE
    assert "WWID" in sdx.via


def test_partitions_attach_to_their_disk_and_are_marked_so() -> None:
    index = EntityIndex(small_inventory())
    for name in ("sda1", "/dev/sda1", "sdb2"):
        found = index.attach(name)
        assert found is not None, name
        assert found.role is DeviceRole.PARTITION
    assert index.attach("sda1").entity_id == DUAL  # type: ignore[union-attr]
    assert index.attach("sdb2").entity_id == SINGLE  # type: ignore[union-attr]


def test_a_zfs_leaf_path_attaches_to_its_disk() -> None:
    index = EntityIndex(small_inventory())
    leaf = index.attach("/dev/disk/by-id/wwn-0x5000cca5488507cc-part1")
    assert leaf is not None
    assert leaf.entity_id == DUAL and leaf.kind is AttachedKind.DISK
    assert "ZFS leaf on sda1" in leaf.via


def test_a_by_id_path_zfs_did_not_list_attaches_by_the_wwn_or_serial_inside_it() -> None:
    index = EntityIndex(small_inventory())
    by_wwn = index.attach("/dev/disk/by-id/wwn-0x5000cca5488507d0-part1")
    assert by_wwn is not None and by_wwn.entity_id == SINGLE
    assert by_wwn.role is DeviceRole.PARTITION
    by_scsi = index.attach("/dev/disk/by-id/scsi-35000cca5488507d0")
    assert by_scsi is not None and by_scsi.entity_id == SINGLE
    by_serial = index.attach("/dev/disk/by-id/scsi-SHGST_HUH721212AL5200_CH461XYZ")
    assert by_serial is not None and by_serial.entity_id == SINGLE


def test_a_multipath_map_name_or_dm_device_attaches_to_the_lun() -> None:
    index = EntityIndex(small_inventory())
    for name in ("mpatha", "dm-3", "/dev/mapper/mpatha", "/dev/dm-3"):
        found = index.attach(name)
        assert found is not None, name
        assert (found.kind, found.entity_id, found.role) == (
            AttachedKind.LUN,
            LUN,
            DeviceRole.WHOLE,
        )


def test_the_paths_of_a_map_attach_to_the_lun_with_their_fc_port() -> None:
    index = EntityIndex(small_inventory())
    sdk, sdl = index.attach("sdk"), index.attach("sdl")
    assert sdk is not None and sdl is not None
    assert (sdk.entity_id, sdk.role, sdk.fc_port_id, sdk.hba_id) == (
        LUN,
        DeviceRole.PATH,
        FC_PORT,
        FC_ADAPTER,
    )
    assert sdl.fc_port_id == "fc-port:0x1000e0071bce95f3"


def test_an_fc_lun_without_a_map_is_a_lun_of_its_own() -> None:
    sdm = EntityIndex(small_inventory()).attach("sdm")
    assert sdm is not None
    assert (sdm.kind, sdm.entity_id, sdm.role) == (AttachedKind.LUN, LONE_LUN, DeviceRole.WHOLE)


def test_a_block_device_outside_the_topology_attaches_to_itself() -> None:
    nvme = EntityIndex(small_inventory()).attach("nvme0n1p2")
    assert nvme is not None
    assert (nvme.kind, nvme.entity_id) == (AttachedKind.BLOCK_DEVICE, "block:nvme")
    assert nvme.role is DeviceRole.PARTITION


def test_names_matching_nothing_stay_standalone_and_are_listed_in_order() -> None:
    names = ["H:", "sda", "C:", "sdzz", "H:", "", "mirror-0", "\x00\xff"]
    result = attach_names(small_inventory(), names)
    assert list(result.attached) == ["sda"]
    assert result.unmatched == ["H:", "C:", "sdzz", "", "mirror-0", "\x00\xff"]


def test_a_host_without_inventory_attaches_nothing() -> None:
    empty = Inventory(host=HostInfo(source=SourceKind.SNAPSHOT))
    result = attach_names(empty, ["sda", "H:", "/dev/disk/by-id/wwn-0x5000cca5488507cc"])
    assert result.attached == {}
    assert len(result.unmatched) == 3


def test_wwids_compare_across_tools() -> None:
    expected = "5000cca5488507cc"
    for text in ("naa.5000CCA5488507CC", "0x5000cca5488507cc", "wwn-0x5000cca5488507cc"):
        assert wwid_key(text) == expected
    assert wwid_key("35000cca5488507cc") == expected  # multipath: designator type 3 in front
    assert wwid_key(LUN_WWID) == "60060160ade32800f2e3baf47665e211"
